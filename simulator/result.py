"""Results: immutable records per option and per run, that become DataFrames in one call.

A Result carries the scenario, its seed, the software version and every price used with its
source and date, so any result can be traced and reproduced.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tco.simulator.costs import Ledger
from tco.simulator.options import Quote
from tco.simulator.outcome import Outcome
from tco.simulator.scenario import Scenario
from tco.simulator.workload import Jobs


@dataclass(frozen=True)
class Waits:
    """Queue waits in hours of the jobs that started (``censored``: still queued at the horizon)."""

    mean_h: float
    p50_h: float
    p95_h: float
    max_h: float
    started: int
    censored: int

    @staticmethod
    def of(waits: np.ndarray, censored: int) -> Waits:
        if len(waits) == 0:
            return Waits(0.0, 0.0, 0.0, 0.0, 0, censored)
        p50, p95 = np.percentile(waits, [50, 95])
        return Waits(
            float(waits.mean()), float(p50), float(p95), float(waits.max()), len(waits), censored
        )


@dataclass(frozen=True)
class WorkBalance:
    """Reference GPU-hours: demanded = delivered + cannot run + unfinished at the horizon."""

    demanded: float
    delivered: float
    cannot_run: float
    unfinished: float


@dataclass(frozen=True)
class OptionResult:
    """Everything known about one option after the run."""

    name: str
    kind: str
    description: str
    quotes: tuple[Quote, ...]
    ledger: Ledger
    outcome: Outcome
    npv_usd: float
    work: WorkBalance
    waits: Waits
    jobs_completed: int
    jobs_running_at_horizon: int
    jobs_queued_at_horizon: int
    cannot_run: dict[str, int]  # reason text -> jobs
    cannot_run_examples: dict[str, list[str]]  # reason text -> first job ids
    break_even: dict[str, int | None]  # other option -> month (1-based) or None

    @property
    def total_cash_usd(self) -> float:
        return float(self.ledger.cash_total().sum())

    @property
    def total_accounting_usd(self) -> float:
        return float(self.ledger.accounting_total().sum())

    @property
    def usd_per_ref_gpu_hour(self) -> float:
        """Total cash cost per delivered reference GPU-hour (NaN if nothing was delivered)."""
        return (
            self.total_cash_usd / self.work.delivered if self.work.delivered > 0 else float("nan")
        )

    @property
    def gpu_utilisation(self) -> float:
        """Busy GPU-hours / available (owned) or billed (cloud) GPU-hours over the horizon."""
        paid = float(self.ledger.gpu_hours_paid.sum())
        return float(self.ledger.gpu_hours_busy.sum()) / paid if paid > 0 else float("nan")


@dataclass(frozen=True)
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
    price_warnings: tuple[str, ...] = ()

    def option(self, name: str) -> OptionResult:
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(name)

    def cheapest(self) -> OptionResult:
        """The option with the lowest total cash cost over the horizon (ties: scenario order)."""
        return min(self.options, key=lambda o: o.total_cash_usd)

    def jobs_frame(self, option: str) -> pd.DataFrame:
        """One row per job on one option: arrival, size, run, start, end, wait (hours), status."""
        o = self.option(option)
        out = o.outcome
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
            }
        )

    def monthly_frame(self) -> pd.DataFrame:
        """Long table: option, month, view (cash/accounting), category, usd."""
        rows = []
        for o in self.options:
            for view, table in (("cash", o.ledger.cash), ("accounting", o.ledger.accounting)):
                for cat, values in table.items():
                    for month, usd in zip(self.months, values.tolist(), strict=True):
                        rows.append((o.name, month, view, cat, usd))
        return pd.DataFrame(rows, columns=["option", "month", "view", "category", "usd"])
