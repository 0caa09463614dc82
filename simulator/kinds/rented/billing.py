"""What a rented option is billed: each rental rounded up to the billing increment, at least
the minimum, the instances billed per clock hour of each shape, and a commitment's hours (a
Savings Plan's, a Capacity Block's: used first, the rest on demand, the unused paid anyway)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.pricing import carbon as carbon_data
from tco.pricing import hardware
from tco.simulator.core import defaults
from tco.simulator.core.calendar import per_month
from tco.simulator.costs.carbon import Draw, it_kwh
from tco.simulator.costs.usage import hourly, monthly_by
from tco.simulator.kinds.rented.fleet import Shape
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
    GPU-hours billed and busy per month, in all and by shape (shapes x months)."""

    instances_hourly: np.ndarray
    paid_gpu_h: np.ndarray
    busy_gpu_h: np.ndarray
    paid_by_shape: np.ndarray
    busy_by_shape: np.ndarray

    def on_demand_usd_hourly(self, plan: CloudPlan) -> np.ndarray:
        """Instances billed each hour at each shape's price."""
        prices = np.array([s.price.usd_per_hour for s in plan.shapes])
        return np.asarray(prices @ self.instances_hourly)

    def draws(self, plan: CloudPlan) -> tuple[Draw, ...]:
        """The power its instances draw, shape by shape, where each is rented."""
        return tuple(
            cloud_draw(sh, self.paid_by_shape[s], self.busy_by_shape[s])
            for s, sh in enumerate(plan.shapes)
        )


def cloud_draw(shape: Shape, paid_gpu_h: np.ndarray, busy_gpu_h: np.ndarray) -> Draw:
    """What rented instances of ``shape`` draw: its GPU's server power (TDP x
    ``SERVER_POWER_PER_GPU_TDP``) as an owned server draws (idle while billed, busy while used;
    ``costs.carbon.it_kwh``), its provider's PUE and its region's grid, and the embodied carbon
    of the instance-hours billed."""
    kw = hardware.gpu(shape.hardware.gpu).tdp_w / 1e3 * carbon_data.SERVER_POWER_PER_GPU_TDP
    energy = it_kwh(
        paid_gpu_h, busy_gpu_h, kw, defaults.IDLE_POWER_FRACTION, defaults.BUSY_POWER_FRACTION
    )
    per = shape.hardware.gpus_per_unit
    embodied = paid_gpu_h / per * carbon_data.embodied_kg_per_hour(per)
    return Draw(
        f"{shape.provider}:{shape.region}",
        energy,
        carbon_data.pue(shape.provider, defaults.PUE, defaults.PUE_SOURCE),
        carbon_data.grid(shape.provider, shape.region),
        embodied,
    )


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
    paid = np.zeros((len(plan.shapes), len(edges) - 1))
    for s, sh in enumerate(plan.shapes):
        mine = shape == s
        if mine.any():
            inst[s] = hourly(start[mine], bill_end[mine], count[mine], hours)
            paid[s] = per_month(inst[s], edges) * sh.hardware.gpus_per_unit
    if r is not None and r.busy_gpus is not None:  # interrupted runs: only while held
        busy_start, busy_end, gpus, busy_shape = r.start_h, r.end_h, r.busy_gpus, r.shape
    else:
        busy_start, busy_end, gpus = runs.start_h, runs.end_h, runs.gpus.astype(np.float64)
        busy_shape = runs.shape if runs.shape is not None else np.zeros(len(gpus), np.int64)
    busy = per_month(hourly(busy_start, busy_end, gpus, hours), edges)
    if len(plan.shapes) == 1:
        by_shape = busy[None, :]
    else:  # each shape's own: its power and grid differ
        by_shape = monthly_by(busy_shape, len(plan.shapes), busy_start, busy_end, gpus, edges)
    return Usage(inst, paid.sum(axis=0), busy, paid, by_shape)


def savings_plan_hours(
    usage_instances: np.ndarray, commitment_usd: np.ndarray, rate: float, on_demand: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Clock hours under a Savings Plan: (instance-hours covered, used commitment USD, unused
    commitment USD, on-demand overflow USD) per hour. Usage up to the commitment is billed at the
    plan rate, the rest at on-demand, and the unused part of the commitment is paid anyway."""
    covered = np.minimum(usage_instances, commitment_usd / rate)
    used = covered * rate
    return covered, used, commitment_usd - used, (usage_instances - covered) * on_demand
