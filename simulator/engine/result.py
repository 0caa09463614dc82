"""Results: immutable records per option and per run, that become DataFrames in one call.

A Result carries the scenario, its seed, the software version and every price used with its
source and date, so any result can be traced and reproduced.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tco.simulator.core.quote import Quote
from tco.simulator.costs.ledger import Ledger
from tco.simulator.engine.findings import (
    BreakEvenVolume,
    Considered,
    FlipPoint,
    Recommendation,
    Standing,
    Verdict,
    WhatIf,
)
from tco.simulator.engine.metrics import Metrics, Waits, WorkBalance
from tco.simulator.engine.rule import cheapest_of
from tco.simulator.kinds.runs import JobPlaces, JobRuns
from tco.simulator.scenario.model import Scenario
from tco.simulator.workload.jobs import Jobs

if typing.TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, kw_only=True)
class OptionResult:
    """Everything known about one option after the run."""

    name: str
    kind: str
    description: str
    quotes: tuple[Quote, ...]
    ledger: Ledger
    runs: JobRuns
    metrics: Metrics
    cannot_run_examples: dict[str, list[str]]  # reason text -> first job ids
    break_even: dict[str, int | None]  # other option -> month (1-based) or None
    servers: tuple[int, int] | None = None  # servers it runs: (existing, bought); None: rents
    # The providers (``pricing.providers``) it rents from, its parts' too (a hybrid's burst),
    # as its kinds declare them (``Kind.providers_of``): who bills its cloud categories.
    rents_from: tuple[str, ...] = ()
    # Where each job ran and what it cost (``places``, for jobs.csv): computed when asked, so a
    # sweep's futures, which never write one, do not pay for it.
    places_of: Callable[[], JobPlaces | None] | None = field(
        default=None, compare=False, repr=False
    )

    def __repr__(self) -> str:
        return f"OptionResult({self.name!r}, {self.kind}, cash ${self.total_cash_usd:,.0f})"

    @functools.cached_property
    def places(self) -> JobPlaces | None:
        """Where each job ran and what it cost there (None: the kind does not say); computed
        once, for jobs.csv and the report's budgets alike."""
        return None if self.places_of is None else self.places_of()

    @property
    def total_cash_usd(self) -> float:
        return self.metrics.cash_usd

    @property
    def total_accounting_usd(self) -> float:
        return self.metrics.accounting_usd

    @property
    def npv_usd(self) -> float:
        return self.metrics.npv_usd

    @property
    def work(self) -> WorkBalance:
        return self.metrics.work

    @property
    def waits(self) -> Waits:
        return self.metrics.waits

    @property
    def jobs_completed(self) -> int:
        return self.metrics.jobs_completed

    @property
    def jobs_running_at_horizon(self) -> int:
        return self.metrics.jobs_running_at_horizon

    @property
    def jobs_queued_at_horizon(self) -> int:
        return self.metrics.jobs_queued_at_horizon

    @property
    def cannot_run(self) -> dict[str, int]:
        return self.metrics.cannot_run

    @property
    def usd_per_ref_gpu_hour(self) -> float:
        """Total cash cost per reference GPU-hour of the work it pays for (``Metrics.
        work_paid_for``; NaN if none)."""
        delivered = self.metrics.work_paid_for
        return self.total_cash_usd / delivered if delivered > 0 else float("nan")

    @property
    def carbon_kg_per_ref_gpu_hour(self) -> float:
        """kgCO2e per reference GPU-hour of the work it pays for, as its cash is (NaN if none
        or no footprint)."""
        fp, delivered = self.ledger.footprint, self.metrics.work_paid_for
        return fp.total_t * 1e3 / delivered if fp is not None and delivered > 0 else float("nan")

    @property
    def gpu_utilisation(self) -> float:
        """Busy GPU-hours / available (owned) or billed (cloud) GPU-hours over the horizon."""
        return self.metrics.gpu_utilisation


@dataclass(frozen=True, kw_only=True)
class Result:
    """A whole run: the scenario and its provenance, the job stream, and every option."""

    scenario: Scenario
    scenario_file: str
    scenario_sha256: str
    version: str
    months: tuple[str, ...]
    horizon_h: float
    jobs: Jobs
    options: tuple[OptionResult, ...]
    price_provenance: dict[str, str]
    # Each option against the service level, and the recommendation among the options as typed
    # (``engine.verdicts``); the advice adds resized clusters to the recommendation.
    verdicts: Mapping[str, Verdict]
    recommendation: Recommendation
    price_warnings: tuple[str, ...] = ()
    break_even_volumes: tuple[BreakEvenVolume, ...] = ()  # owned vs rented (when advised)
    what_ifs: tuple[WhatIf, ...] = ()  # the recommendation under other inputs (when advised)
    flip_points: tuple[FlipPoint, ...] = ()  # how far each input that turns the answer must move
    # Each option as the rule judged it over the futures (when advised; ``engine.verdicts``:
    # where an option has none, its verdict and cash on the base job stream).
    standings: Mapping[str, Standing] = field(default_factory=dict)
    # The catalog's candidates considered (``candidates:``): simulated as options, or dropped.
    candidates: tuple[Considered, ...] = ()

    def __repr__(self) -> str:
        return (
            f"Result({self.scenario.name!r}, {len(self.months)} months, {len(self.jobs):,} jobs,"
            f" options: {', '.join(o.name for o in self.options)})"
        )

    def option(self, name: str) -> OptionResult:
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(name)

    def standing(self, name: str) -> Standing:
        """Option ``name`` as the one rule judged it (``engine.verdicts``): over the futures
        when the advice decided over them, else its verdict and cash on the base job stream."""
        found = self.standings.get(name)
        if found is not None:
            return found
        return Standing(self.verdicts[name].meets, self.option(name).total_cash_usd)

    def cheapest(self) -> OptionResult:
        """The option with the lowest total cash cost over the horizon, whether or not it meets
        the level (``engine.rule``: to the cent; ties: scenario order)."""
        found = cheapest_of(self.options, lambda o: o.total_cash_usd, lambda o: True)
        assert found is not None
        return found

    def jobs_frame(self, option: str) -> pd.DataFrame:
        """One row per job on one option: arrival, size, run, start, end, wait (hours), status."""
        import pandas as pd

        out = self.option(option).runs
        h = self.horizon_h
        status = np.where(
            ~out.runnable,
            "cannot_run",
            np.where(
                np.isnan(out.start_h),
                "queued_at_horizon",
                np.where(out.end_h <= h, "completed", "running_at_horizon"),
            ),
        )
        return pd.DataFrame(
            {
                "job_id": self.jobs.job_ids(),
                "job_class": [self.jobs.class_names[c] for c in self.jobs.job_class.tolist()],
                "arrival_h": self.jobs.arrival_h,
                "gpus": self.jobs.gpus,
                "work_ref_gpu_h": self.jobs.work_ref_gpu_h,
                "memory_gb": self.jobs.memory_gb,
                "run_h": np.where(out.runnable, out.run_h, np.nan),
                "start_h": out.start_h,
                "end_h": out.end_h,
                "wait_h": out.start_h - self.jobs.arrival_h,
                "status": status,
                "reason": [out.reason_text.get(r, "") for r in out.reason.tolist()],
                **self._places(option),
            }
        )

    def _places(self, option: str) -> dict[str, Any]:
        """Where each job ran, what it cost there, and what interruptions did to it."""
        o = self.option(option)
        n, runs, p = len(self.jobs), o.runs, o.places
        names = [] if p is None else [*p.names, ""]  # index -1: did not run
        return {
            "ran_on": [""] * n if p is None else [names[w] for w in p.where.tolist()],
            "cost_usd": np.full(n, np.nan) if p is None else p.usd,
            "interruptions": np.zeros(n, np.int64)
            if runs.interruptions is None
            else runs.interruptions,
            "lost_gpu_h": np.zeros(n) if runs.lost_gpu_h is None else runs.lost_gpu_h,
        }

    def comparison_frame(self) -> pd.DataFrame:
        """One row per option: the comparison table's figures (USD, hours, shares), whether it
        meets the service level, and the month from which it stays cheaper than the cheapest
        rented option that meets the level, for an owned option that meets it (None: never,
        renting, or it misses the level: renting against renting has no break-even)."""
        import pandas as pd

        from tco.simulator.kinds import registry

        ok = {o.name: self.standing(o.name).meets for o in self.options}
        owns = {o.name: registry.get(o.kind).buys_hardware for o in self.options}
        rented = [x for x in self.options if ok[x.name] and not owns[x.name]]
        cheapest_rented = cheapest_of(rented, lambda x: x.total_cash_usd, lambda x: True)
        rows = []
        for o in self.options:
            other = cheapest_rented if owns[o.name] and ok[o.name] else None
            month = o.break_even.get(other.name) if other is not None else None
            rows.append(
                {
                    "option": o.name,
                    "kind": o.kind,
                    "total cash (USD)": o.total_cash_usd,
                    "total accounting (USD)": o.total_accounting_usd,
                    "NPV of cash (USD)": o.npv_usd,
                    "USD per delivered GPU-hour": o.usd_per_ref_gpu_hour,
                    "GPU utilisation": o.gpu_utilisation,
                    "paid GPU-hours": o.metrics.paid_gpu_hours,
                    "busy GPU-hours": o.metrics.busy_gpu_hours,
                    "mean wait (h)": o.waits.mean_h,
                    "p50 wait (h)": o.waits.p50_h,
                    "p95 wait (h)": o.waits.p95_h,
                    "max wait (h)": o.waits.max_h,
                    "p95 delay (h)": o.metrics.delays.p95_h,
                    "jobs completed": o.jobs_completed,
                    "jobs that cannot run": sum(o.cannot_run.values()),
                    "jobs queued at horizon": o.jobs_queued_at_horizon,
                    "meets service level": ok[o.name],
                    "break-even month": None if month is None else self.months[month - 1],
                    "break-even against": None if month is None or other is None else other.name,
                    "what": o.description,
                }
            )
        return pd.DataFrame(rows)

    def monthly_frame(self) -> pd.DataFrame:
        """Long table: option, month, view (cash/accounting, and tax when the scenario has a
        tax: section and decides before tax: after tax, the tax is in the cash), category,
        usd."""
        import pandas as pd

        rows = []
        for o in self.options:
            views = [("cash", o.ledger.cash), ("accounting", o.ledger.accounting)]
            t = o.metrics.tax
            if t is not None and not t.after_tax:
                views.append(("tax", o.ledger.tax))
            for view, table in views:
                for cat, values in table.items():
                    for month, usd in zip(self.months, values.tolist(), strict=True):
                        rows.append((o.name, month, view, cat, usd))
        return pd.DataFrame(rows, columns=["option", "month", "view", "category", "usd"])
