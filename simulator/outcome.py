"""Playing the job stream out on one option: who runs when, and who cannot run and why.

Owned clusters and quota-limited cloud options queue (``simulator.scheduler``); cloud options
without a quota start every job on arrival (plus any provisioning delay) and need no events.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.simulator.options import CloudPlan, OwnedPlan, Plan
from tco.simulator.scheduler import QueueInput, simulate
from tco.simulator.speed import run_hours
from tco.simulator.workload import Jobs

REASON_MEMORY = "memory"
REASON_SIZE = "size"


@dataclass(frozen=True)
class Outcome:
    """Per job: run time, units held, compute start and end (NaN if never started), and why a
    job could not run (empty string when it could)."""

    run_h: np.ndarray
    gpus: np.ndarray  # GPUs each job uses
    units: np.ndarray  # GPUs (owned) or instances (cloud) held
    start_h: np.ndarray
    end_h: np.ndarray
    reason: np.ndarray  # object array of str
    reason_text: dict[str, str]

    @property
    def runnable(self) -> np.ndarray:
        return np.asarray(self.reason == "")


def _feasibility(
    jobs: Jobs, plan: Plan, max_gpus: int, max_label: str
) -> tuple[np.ndarray, dict[str, str]]:
    hw = plan.hardware
    reason = np.full(len(jobs), "", dtype=object)
    too_big = jobs.gpus > max_gpus
    reason[too_big] = REASON_SIZE
    no_fit = jobs.memory_gb > hw.gpu_memory_gb
    reason[no_fit] = REASON_MEMORY
    text = {
        REASON_MEMORY: f"needs more than the {hw.gpu_memory_gb:g} GB of one {hw.gpu}",
        REASON_SIZE: f"needs more GPUs than the {max_gpus} {max_label}",
    }
    return reason, text


def play(jobs: Jobs, plan: Plan, horizon_h: float) -> Outcome:
    """Simulate one option over the job stream."""
    hw = plan.hardware
    run = run_hours(jobs, hw)
    n = len(jobs)
    start = np.full(n, np.nan)
    if isinstance(plan, OwnedPlan):
        total = sum(d.servers for d in plan.deliveries) * hw.gpus_per_unit
        reason, text = _feasibility(jobs, plan, total, "GPUs this cluster will ever have")
        units = jobs.gpus.copy()
        ok = reason == ""
        capacity = [
            (d.delivery_h, d.servers * hw.gpus_per_unit)
            for d in plan.deliveries
            if d.delivery_h < horizon_h
        ]
        idx = np.nonzero(ok)[0]
        if len(idx) and capacity:
            start[idx] = simulate(
                QueueInput(
                    jobs.arrival_h[idx],
                    units[idx],
                    run[idx],
                    capacity,
                    horizon_h,
                    plan.option.scheduler,
                    plan.option.backfill_depth,
                )
            )
    else:
        assert isinstance(plan, CloudPlan)
        units = -(-jobs.gpus // hw.gpus_per_unit)  # whole instances
        limit = (
            plan.quota_instances * hw.gpus_per_unit
            if plan.quota_instances is not None
            else np.iinfo(np.int64).max
        )
        reason, text = _feasibility(jobs, plan, int(limit), "GPUs of the instance quota")
        ok = reason == ""
        idx = np.nonzero(ok)[0]
        if plan.quota_instances is None:
            start[idx] = jobs.arrival_h[idx] + plan.delay_h
        elif len(idx):
            acquired = simulate(
                QueueInput(
                    jobs.arrival_h[idx],
                    units[idx],
                    run[idx] + plan.delay_h,
                    [(0.0, plan.quota_instances)],
                    horizon_h,
                )
            )
            start[idx] = acquired + plan.delay_h
        start[start >= horizon_h] = np.nan
    return Outcome(run, jobs.gpus, units, start, start + run, reason, text)
