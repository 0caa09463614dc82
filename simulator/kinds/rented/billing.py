"""What a rented option is billed: each rental rounded up to the billing increment, at least
the minimum, the instances billed per clock hour of each shape, and a commitment's hours (a
Savings Plan's, a Capacity Block's: used first, the rest on demand, the unused paid anyway)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.simulator.core.calendar import per_month
from tco.simulator.costs.usage import hourly
from tco.simulator.kinds.rented.plan import CloudPlan
from tco.simulator.kinds.runs import JobRuns


def billed_hours(run_h: np.ndarray, increment_s: float, minimum_s: float) -> np.ndarray:
    """Billed hours per instance for each run: rounded up to the increment, at least the minimum."""
    seconds = run_h * 3600.0
    # Rounding before ceil keeps 3600.0000000001 s (float noise) from billing a second hour.
    billed = np.ceil(np.round(seconds / increment_s, 9)) * increment_s
    return np.asarray(np.maximum(billed, minimum_s) / 3600.0)


@dataclass(frozen=True)
class Usage:
    """A cloud option's usage: instances billed per clock hour of each shape (shapes x hours),
    GPU-hours billed and busy per month."""

    instances_hourly: np.ndarray
    paid_gpu_h: np.ndarray
    busy_gpu_h: np.ndarray

    def on_demand_usd_hourly(self, plan: CloudPlan) -> np.ndarray:
        """Instances billed each hour at each shape's price."""
        prices = np.array([s.price.usd_per_hour for s in plan.shapes])
        return np.asarray(prices @ self.instances_hourly)


def usage(plan: CloudPlan, runs: JobRuns, edges: np.ndarray) -> Usage:
    """Billed instances per clock hour and shape (each rental rounded up by the plan's billing
    rules) and GPU-hours billed and busy per month."""
    hours = int(edges[-1])
    r = runs.rentals
    if r is None:  # one rental per job: its own run
        shape = runs.shape if runs.shape is not None else np.zeros(len(runs.run_h), np.int64)
        start, span, count = runs.start_h, runs.run_h, runs.units.astype(np.float64)
    else:
        shape, start, span, count = r.shape, r.start_h, r.end_h - r.start_h, r.count
    bill_end = start + billed_hours(span, plan.billing_increment_s, plan.billing_minimum_s)
    inst = np.zeros((len(plan.shapes), hours))
    paid_gpu = np.zeros(len(edges) - 1)
    for s, sh in enumerate(plan.shapes):
        mine = shape == s
        if mine.any():
            inst[s] = hourly(start[mine], bill_end[mine], count[mine], hours)
            paid_gpu += per_month(inst[s], edges) * sh.hardware.gpus_per_unit
    if r is not None and r.busy_gpus is not None:  # interrupted runs: only while held
        busy = per_month(hourly(r.start_h, r.end_h, r.busy_gpus, hours), edges)
    else:
        busy_h = hourly(runs.start_h, runs.end_h, runs.gpus.astype(np.float64), hours)
        busy = per_month(busy_h, edges)
    return Usage(inst, paid_gpu, busy)


def savings_plan_hours(
    usage_instances: np.ndarray, commitment_usd: np.ndarray, rate: float, on_demand: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Clock hours under a Savings Plan: (instance-hours covered, used commitment USD, unused
    commitment USD, on-demand overflow USD) per hour. Usage up to the commitment is billed at the
    plan rate, the rest at on-demand, and the unused part of the commitment is paid anyway."""
    covered = np.minimum(usage_instances, commitment_usd / rate)
    used = covered * rate
    return covered, used, commitment_usd - used, (usage_instances - covered) * on_demand
