"""How the job stream ran on one option: per job, when it started and ended, or why it could not.

A kind's ``play`` returns :class:`JobRuns`; ledgers rebuild usage from its intervals and the
metrics read waits and work from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from tco.simulator.costs.usage import hourly, monthly_by
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware

REASON_MEMORY = "memory"
REASON_SIZE = "size"


@dataclass(frozen=True, kw_only=True)
class Rentals:
    """What a rented option was billed for, when that is not one rental per job (instances
    shared by several jobs, runs cut by interruptions): per rental, the instance shape (an index
    into the plan's shapes), start and end (h) and how many instances."""

    shape: np.ndarray
    start_h: np.ndarray
    end_h: np.ndarray
    count: np.ndarray
    fallback: np.ndarray | None = None  # True: billed at on-demand (after interruptions)
    busy_gpus: np.ndarray | None = None  # GPUs jobs used in each rental (None: from the jobs)

    def subset(self, keep: np.ndarray) -> Rentals:
        """The rentals where ``keep`` is true."""
        fb, busy = self.fallback, self.busy_gpus
        return Rentals(
            shape=self.shape[keep],
            start_h=self.start_h[keep],
            end_h=self.end_h[keep],
            count=self.count[keep],
            fallback=None if fb is None else fb[keep],
            busy_gpus=None if busy is None else busy[keep],
        )


@dataclass(frozen=True)
class Gaps:
    """Hours in which a started job held no GPUs (stopped by a failure, queued again): per gap
    the job, from and to (h)."""

    job: np.ndarray
    from_h: np.ndarray
    to_h: np.ndarray

    @classmethod
    def of(cls, rows: list[tuple[int, float, float]]) -> Gaps:
        a = np.array(rows, dtype=np.float64).reshape(-1, 3)
        return cls(a[:, 0].astype(np.int64), a[:, 1], a[:, 2])


def held_gpu_h(runs: JobRuns, where: np.ndarray) -> np.ndarray:
    """Per job, the GPU-hours it held from start to end (0 where ``where`` < 0: it did not run)."""
    return np.where(where >= 0, np.nan_to_num(runs.end_h - runs.start_h) * runs.gpus, 0.0)


@dataclass(frozen=True)
class JobPlaces:
    """Where each job ran and what it cost there (jobs.csv): ``names`` of the places (instance
    types with their provider, or server models), ``where`` per job an index into them (-1:
    it did not run), and ``usd`` per job: a rented job's instance-hours at its type's price
    (before commitments), an owned job's share of the option's cash by GPU-hours used."""

    names: tuple[str, ...]
    where: np.ndarray
    usd: np.ndarray
    # How each place's price was set (``pricing.records.BASES``), parallel to ``names``; None
    # where the kind does not say.
    bases: tuple[str, ...] | None = None

    @classmethod
    def shared(
        cls, names: tuple[str, ...], where: np.ndarray, runs: JobRuns, cash: float
    ) -> JobPlaces:
        """The option's ``cash`` shared out by each job's GPU-hours (an owner pays for the
        cluster, not per job: this is the allocation a chargeback would use)."""
        held = held_gpu_h(runs, where)
        total = float(held.sum())
        return cls(names, where, held * (cash / total) if total > 0 else np.zeros(len(held)))


@dataclass(frozen=True, kw_only=True)
class JobRuns:
    """Per job: run time, GPUs used, units held (GPUs or instances), compute start and end (NaN
    if never started), and why a job could not run (empty string when it could).

    Rented options may add: the instance shape each job ran on (``shape``; None: the plan's only
    one), the rentals billed when they are not the jobs' own intervals, and for interrupted runs
    the interruptions per job and the GPU-hours of work lost to them."""

    run_h: np.ndarray
    gpus: np.ndarray
    units: np.ndarray
    start_h: np.ndarray
    end_h: np.ndarray
    reason: np.ndarray  # object array of str
    reason_text: dict[str, str]
    shape: np.ndarray | None = None
    rentals: Rentals | None = None
    interruptions: np.ndarray | None = None
    lost_gpu_h: np.ndarray | None = None
    gaps: Gaps | None = None  # owned jobs stopped by failures and queued again
    # Per job: how long it would run on this option uninterrupted, where interruptions, lost
    # work or restarts make its run longer (None: ``run_h`` is that); a job's delay is its
    # finish - arrival - this.
    clean_run_h: np.ndarray | None = None
    # Figures a kind reports of its run as a whole (the declared ``Measure`` s read them), e.g.
    # the GPUs that failed; what a kind does not report is absent.
    counts: Mapping[str, float] = field(default_factory=dict)
    parts: dict[str, JobRuns] | None = None  # a composite option's parts (hybrid)
    burst: np.ndarray | None = None  # per job: sent to the cloud (hybrid)
    generation: np.ndarray | None = None  # per job: which server model it ran on (owned, mixed)

    def held_hourly(self, weight: np.ndarray, hours: int) -> np.ndarray:
        """``weight`` (e.g. GPUs) held per clock hour from start to end, less the gaps."""
        held = hourly(self.start_h, self.end_h, weight, hours)
        if self.gaps is not None and len(self.gaps.job):
            g = self.gaps
            held = held - hourly(g.from_h, g.to_h, weight[g.job], hours)
            held[np.abs(held) < 1e-9] = 0.0
        return held

    def held_monthly(
        self, group: np.ndarray, groups: int, weight: np.ndarray, edges: np.ndarray
    ) -> np.ndarray:
        """``weight`` held from start to end, less the gaps, by group (``group``: each job's,
        0 to ``groups`` - 1) and month: ``held_hourly`` summed by month for each group, in one
        pass without an hourly array (``costs.usage.monthly_by``)."""
        held = monthly_by(group, groups, self.start_h, self.end_h, weight, edges)
        if self.gaps is not None and len(self.gaps.job):
            g = self.gaps
            gap = monthly_by(group[g.job], groups, g.from_h, g.to_h, weight[g.job], edges)
            held = held - gap
            held[np.abs(held) < 1e-9] = 0.0
        return held

    @property
    def uninterrupted_h(self) -> np.ndarray:
        return self.run_h if self.clean_run_h is None else self.clean_run_h

    @property
    def runnable(self) -> np.ndarray:
        return np.asarray(self.reason == "")

    def scaled(self, k: float) -> JobRuns:
        """The same timing at k x the volume: k x the GPUs, instances and rentals held."""
        rentals = self.rentals
        if rentals is not None:
            busy = None if rentals.busy_gpus is None else rentals.busy_gpus * k
            rentals = replace(rentals, count=rentals.count * k, busy_gpus=busy)
        parts = None if self.parts is None else {n: p.scaled(k) for n, p in self.parts.items()}
        return replace(self, gpus=self.gpus * k, units=self.units * k, rentals=rentals, parts=parts)

    def __repr__(self) -> str:
        started = int((~np.isnan(self.start_h)).sum())
        return f"JobRuns({len(self.run_h):,} jobs, {started:,} started)"


def remaining_h(runs: JobRuns, horizon_h: float) -> np.ndarray:
    """Per job, the hours it still runs after the horizon: a running job's end - horizon, a
    queued one's whole run uninterrupted; 0 for a job finished by then or unable to run."""
    out = np.zeros(len(runs.run_h))
    ok = runs.runnable
    queued = ok & np.isnan(runs.start_h)
    with np.errstate(invalid="ignore"):
        running = ok & (runs.end_h > horizon_h)
    out[running] = runs.end_h[running] - horizon_h
    out[queued] = runs.uninterrupted_h[queued]
    return out


def feasibility(
    jobs: Jobs, hw: Hardware, max_gpus: int, max_label: str
) -> tuple[np.ndarray, dict[str, str]]:
    """Why each job cannot run on ``hw`` ('' when it can): too many GPUs, or too little memory."""
    reason = np.full(len(jobs), "", dtype=object)
    reason[jobs.gpus > max_gpus] = REASON_SIZE
    reason[jobs.memory_gb > hw.gpu_memory_gb] = REASON_MEMORY
    text = {
        REASON_MEMORY: f"needs more than the {hw.gpu_memory_gb:g} GB of one {hw.gpu}",
        REASON_SIZE: f"needs more GPUs than the {max_gpus} {max_label}",
    }
    return reason, text


@dataclass(frozen=True)
class Measure:
    """A figure of one option's run that summary.json gives for every option, declared by the
    module that produces it (like ledger categories): its name there, what it is (the
    schema's description), whether it is a count, and how it is read from the option's runs
    and its GPU-hours paid for (an option whose kind does not report it reads its neutral
    value: no failures, all GPUs available). ``order``: where the summary lists it among the
    measures (the built-in ones at 10, 20, ...; a plug-in's after them by default).
    ``remark``: the sentence the answer says about an option's value (given the option's name,
    the value and its GPU-hours paid for), or None when it is not worth saying; the remark
    belongs to the measure, not to a kind, so every kind that reports the figure (an owned
    cluster, a hybrid's owned side) gets it."""

    name: str
    description: str
    of: Callable[[JobRuns, float], float]
    integer: bool = False
    order: float = 1000.0
    remark: Callable[[str, float, float], str | None] | None = None


_MEASURES: dict[str, Measure] = {}


def declare_measure(*measures: Measure) -> None:
    """Declare measures (idempotent for the same name: a kind re-imported declares again)."""
    for m in measures:
        _MEASURES[m.name] = m


def declared_measures() -> tuple[Measure, ...]:
    """Every declared measure, in the order summary.json lists them."""
    return tuple(sorted(_MEASURES.values(), key=lambda m: m.order))


def forget_measures(names: set[str]) -> None:
    """Remove measures a plug-in declared (when it is unregistered)."""
    for n in names:
        _MEASURES.pop(n, None)


def count(name: str, neutral: float = 0.0) -> Callable[[JobRuns, float], float]:
    """A measure read from the runs' ``counts`` (``neutral`` when the kind reports none)."""
    return lambda runs, _paid: float(runs.counts.get(name, neutral))


# Interrupted runs (spot instances, failing owned GPUs) are common to several kinds.
declare_measure(
    Measure(
        "interruptions",
        "jobs' runs cut short by spot interruptions (or failures)",
        lambda runs, _: 0 if runs.interruptions is None else int(runs.interruptions.sum()),
        integer=True,
        order=10,
    ),
    Measure(
        "lost_gpu_hours",
        "GPU-hours of work since the last checkpoint, lost to interruptions",
        lambda runs, _: 0.0 if runs.lost_gpu_h is None else float(runs.lost_gpu_h.sum()),
        order=20,
    ),
)
