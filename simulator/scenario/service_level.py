"""The service level the budget owner's people need: how late the 95th-percentile job may be,
what share of the work may be unable to run, and what share may be left undone (waiting at the
horizon for longer than the level allows). An option that misses it is not an answer, however
cheap (issue 10 builds the recommendation on it; sweeps count how often it is met).

Late is measured on when work *finishes* (issue 24): a job's delay is finish - arrival - the time
it would run on that option uninterrupted, so queueing, capacity waits, interruptions, lost work
and restarts all count (``engine.metrics.job_delays``). ``p95_wait_hours`` (arrival to first
start) stays as an alternative or an extra measure; given alone, it is the level, as before.

Defaults, and why: a p95 delay of 72 h (three days: a queue a lab or team absorbs over a
weekend; an assumption, stated wherever the level is used), no work that cannot run at all, and
no work left undone. Waits and delays count the jobs still queued at the horizon at their least
(horizon - arrival), so an option whose queue never drains cannot meet the level by leaving its
jobs out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated

from pydantic import Field, model_validator

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Strict
from tco.simulator.workload.spec import valid_teams


class Miss(str):
    """One reason an option misses the level: its sentence (what it is as a string) and
    ``word``, what kind of miss it is, for a table cell ("delay", "wait", "can't run",
    "overdue"; a reading of the run may name a can't-run more closely: memory, capacity)."""

    word: str

    def __new__(cls, text: str, word: str) -> Miss:
        self = super().__new__(cls, text)
        self.word = word
        return self

    def __reduce__(self) -> tuple[type[Miss], tuple[str, str]]:  # a str subclass's own pickle
        return (Miss, (str(self), self.word))


CANNOT_RUN = "can't run"
DEFAULT_P95_DELAY_HOURS = 72.0
DEFAULT_CONFIDENCE = 0.9
# The confidences the answer's frontier shows (cost against the chance of meeting the level).
FRONTIER = (0.5, 0.8, 0.9, 0.95, 0.99)
Hours = Annotated[float, Field(ge=0, le=1e6)]


class ServiceLevel(Strict):
    """The level every option is held to."""

    p95_delay_hours: Hours | None = None  # neither this nor the wait given: 72 h
    p95_wait_hours: Hours | None = None
    max_cannot_run_share: Annotated[float, Field(ge=0, le=1)] = 0.0  # of reference GPU-hours
    # Of reference GPU-hours: work overdue at the horizon (``metrics.WorkBalance.overdue``):
    # never started although it arrived more than ``allowed_h`` before it, or, when the project
    # ends there, unfinished and more than ``allowed_h`` late.
    max_unfinished_share: Annotated[float, Field(ge=0, le=1)] = 0.0
    # Job classes with a level of their own: class name -> the p95 delay its jobs may have (h),
    # e.g. deadline-bound runs 24 h, fine-tunes a week; the scenario-wide level holds too.
    p95_delay_hours_by_class: dict[str, Hours] = Field(default_factory=dict)
    # Teams with a level of their own (the team: of job classes, one-off runs and a trace).
    p95_delay_hours_by_team: dict[str, Hours] = Field(default_factory=dict)
    # Over the futures of the odds: the share of job streams in which an answer must meet the
    # level (issue 37). 0.9 by default: an assumption, a budget owner's appetite for risk; the
    # answer shows what 0.5 to 0.99 would buy (the frontier).
    confidence: Annotated[float, Field(gt=0, le=1)] = DEFAULT_CONFIDENCE
    # A carbon ceiling: the most tCO2e an option may emit over the horizon (``costs.carbon``:
    # in running and embodied, finishing its unfinished work included); None: no ceiling.
    max_tco2e: Annotated[float, Field(gt=0, le=1e9)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _a_measure(cls, data: object) -> object:
        """Neither time measure given: the default delay."""
        if isinstance(data, dict) and all(
            data.get(k) is None for k in ("p95_delay_hours", "p95_wait_hours")
        ):
            return {**data, "p95_delay_hours": DEFAULT_P95_DELAY_HOURS}
        return data

    @property
    def allowed_h(self) -> float:
        """The hours the level lets the 95th-percentile job be late (the tighter measure)."""
        given = [h for h in (self.p95_delay_hours, self.p95_wait_hours) if h is not None]
        return min(given)

    @property
    def is_default(self) -> bool:
        return self.p95_wait_hours is None and self.p95_delay_hours == DEFAULT_P95_DELAY_HOURS

    @property
    def levels(self) -> tuple[float, ...]:
        """The frontier's confidences, with the scenario's own among them."""
        return tuple(sorted({*FRONTIER, self.confidence}))

    def words(self) -> str:
        """The measures, as the answer states them."""
        parts = []
        if self.p95_delay_hours is not None:
            parts.append(f"p95 delay (finish - arrival - run) at most {self.p95_delay_hours:g} h")
        for name, limit in self.p95_delay_hours_by_class.items():
            parts.append(f"{name}'s p95 delay at most {limit:g} h")
        for name, limit in self.p95_delay_hours_by_team.items():
            parts.append(f"team {name}'s p95 delay at most {limit:g} h")
        if self.p95_wait_hours is not None:
            parts.append(f"p95 wait at most {self.p95_wait_hours:g} h")
        if self.max_tco2e is not None:
            parts.append(f"at most {self.max_tco2e:,g} tCO2e over the horizon")
        return " and ".join(parts)

    @property
    def judges_delay(self) -> bool:
        """Whether the level holds the delay (finish - arrival - run; the default) or the wait
        only: the p95 a table shows beside it."""
        return self.p95_delay_hours is not None or self.p95_wait_hours is None

    def shortfall(self, p95_wait_h: float, p95_delay_h: float) -> float:
        """How far over its time limits an option is, relative (0: within them)."""
        over = 0.0
        for got, limit in ((p95_delay_h, self.p95_delay_hours), (p95_wait_h, self.p95_wait_hours)):
            if limit is not None:
                over = max(over, got / max(limit, 1e-9) - 1.0)
        return over

    def misses(
        self,
        p95_wait_h: float,
        cannot_run_share: float,
        unfinished_share: float = 0.0,
        *,
        p95_delay_h: float | None = None,
        class_p95_delay_h: Mapping[str, float] | None = None,
        class_cannot_run_share: Mapping[str, float] | None = None,
        carbon_t: float = 0.0,
        team_p95_delay_h: Mapping[str, float] | None = None,
    ) -> list[Miss]:
        """Why an option misses the level (empty: it meets it). ``p95_delay_h`` None: the
        option's delays are not known (then its wait stands for them: no job finishes sooner
        than it starts)."""
        out: list[Miss] = []
        delay = p95_wait_h if p95_delay_h is None else p95_delay_h
        if self.p95_delay_hours is not None and delay > self.p95_delay_hours:
            out.append(Miss(f"p95 delay {delay:,.1f} h > {self.p95_delay_hours:g} h", "delay"))
        if self.p95_wait_hours is not None and p95_wait_h > self.p95_wait_hours:
            out.append(Miss(f"p95 wait {p95_wait_h:,.1f} h > {self.p95_wait_hours:g} h", "wait"))
        for limits, delays, who in (
            (self.p95_delay_hours_by_class, class_p95_delay_h, ""),
            (self.p95_delay_hours_by_team, team_p95_delay_h, "team "),
        ):
            for name, limit in limits.items():
                got = (delays or {}).get(name, 0.0)
                if got > limit:
                    text = f"{who}{name}: p95 delay {got:,.1f} h > {limit:g} h"
                    out.append(Miss(text, "delay"))
        if cannot_run_share > self.max_cannot_run_share:
            text = (
                f"{cannot_run_share:.1%} of the work cannot run > {self.max_cannot_run_share:.1%}"
            )
            out.append(Miss(text, CANNOT_RUN))
        for name, share in (class_cannot_run_share or {}).items():
            # A class is a promise of its own: a small one that never runs hides in the total.
            if share > self.max_cannot_run_share and share > cannot_run_share:
                text = (
                    f"{name}: {share:.1%} of its work cannot run > {self.max_cannot_run_share:.1%}"
                )
                out.append(Miss(text, CANNOT_RUN))
        if unfinished_share > self.max_unfinished_share:
            text = (
                f"{unfinished_share:.1%} of the work overdue at the horizon (still queued, or"
                f" unfinished when the project ends there, over {self.allowed_h:g} h late)"
                f" > {self.max_unfinished_share:.1%}"
            )
            out.append(Miss(text, "overdue"))
        if self.max_tco2e is not None and carbon_t > self.max_tco2e:
            out.append(Miss(f"{carbon_t:,.1f} tCO2e > {self.max_tco2e:,g} t", "carbon"))
        return out


def check_classes(
    level: ServiceLevel, names: Sequence[str], file: str, teams: Sequence[str] = ()
) -> None:
    """A class given a level of its own must be a class of the workload (``names``), a team a
    team its classes name (``teams``)."""
    for name in level.p95_delay_hours_by_class:
        if name not in names:
            raise ScenarioError(
                file,
                f"service_level.p95_delay_hours_by_class.{name}",
                f"no job class {name!r}; valid: {', '.join(names)}",
            )
    for name in level.p95_delay_hours_by_team:
        if name not in teams:
            valid = valid_teams(teams)
            raise ScenarioError(
                file,
                f"service_level.p95_delay_hours_by_team.{name}",
                f"no team {name!r}; valid: {valid}",
            )
