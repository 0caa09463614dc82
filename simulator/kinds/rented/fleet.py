"""A fleet: the instance shapes a cloud option may rent, which one each job runs on, and the
network between a shape's instances (``link_quotes``).

Each job goes to the shape that finishes it for the least money: its run time on that shape
(GPU speed, links, virtualization), times the instances it needs (whole instances, or its share
of one when instances are shared), times the shape's price. Memory per GPU must fit. A job larger
than one instance takes several of the shape that is cheapest for it. Ties go to the shape listed
first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.pricing import hardware
from tco.pricing.providers.links import Link
from tco.pricing.records import Price
from tco.simulator.core.quote import Quote
from tco.simulator.kinds.registry import Context
from tco.simulator.kinds.runs import REASON_MEMORY, REASON_SIZE, feasibility
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware, run_hours


@dataclass(frozen=True)
class Shape:
    """One instance type an option can rent: where jobs run on it, its price per instance-hour,
    and a label (type, GPUs and region)."""

    name: str
    hardware: Hardware
    price: Price
    label: str
    # Where it runs, for the grid its power comes from (``costs.carbon``): the provider and
    # its region.
    provider: str = "aws"
    region: str = ""


@dataclass(frozen=True)
class Placement:
    """Per job: the shape it runs on, its run time there, instances held, and why it cannot
    run anywhere ('' when it can)."""

    shape: np.ndarray
    run_h: np.ndarray
    units: np.ndarray
    reason: np.ndarray
    reason_text: dict[str, str]


def whole_instances(gpus: np.ndarray, per_instance: int) -> np.ndarray:
    return np.asarray(-(-gpus // per_instance))


def place(
    jobs: Jobs, shapes: tuple[Shape, ...], max_gpus: int, max_label: str, shared: bool
) -> Placement:
    """The cheapest shape for each job (see the module docstring). ``max_gpus``: the most GPUs a
    job may hold (a quota); ``shared``: jobs smaller than an instance pay their share of it."""
    n = len(jobs)
    runs = np.empty((len(shapes), n))
    cost = np.empty((len(shapes), n))
    reasons = []
    for s, shape in enumerate(shapes):
        hw = shape.hardware
        runs[s] = run_hours(jobs, hw)
        held = whole_instances(jobs.gpus, hw.gpus_per_unit).astype(np.float64)
        if shared:
            small = jobs.gpus < hw.gpus_per_unit
            held[small] = jobs.gpus[small] / hw.gpus_per_unit
        cost[s] = runs[s] * held * shape.price.usd_per_hour
        reason, _ = feasibility(jobs, hw, max_gpus, max_label)
        cost[s][reason != ""] = np.inf
        reasons.append(reason)
    best = np.argmin(cost, axis=0)
    cols = np.arange(n)
    # A job that fits nowhere: report it against the shape with the most memory per GPU.
    roomiest = max(range(len(shapes)), key=lambda s: shapes[s].hardware.gpu_memory_gb)
    nowhere = ~np.isfinite(cost[best, cols])
    best[nowhere] = roomiest
    hw = shapes[roomiest].hardware
    text = {
        REASON_MEMORY: f"needs more than the {hw.gpu_memory_gb:g} GB of one {hw.gpu}"
        + (" (the most of any instance type listed)" if len(shapes) > 1 else ""),
        REASON_SIZE: f"needs more GPUs than the {max_gpus} {max_label}",
    }
    reason = np.where(nowhere, reasons[roomiest], "").astype(object)
    per_instance = np.array([s.hardware.gpus_per_unit for s in shapes])[best]
    return Placement(
        shape=best,
        run_h=runs[best, cols],
        units=whole_instances(jobs.gpus, per_instance),
        reason=reason,
        reason_text=text,
    )


def job_costs(jobs: Jobs, shapes: tuple[Shape, ...], horizon_h: float | None = None) -> np.ndarray:
    """Each job's cost on its cheapest shape at list price: run time there x whole instances
    held x the shape's price (inf where it cannot run on any); before billing rounds it up.
    ``horizon_h``: only the hours between its arrival and the horizon."""
    p = place(jobs, shapes, 1 << 30, "GPUs", shared=False)
    usd = np.array([s.price.usd_per_hour for s in shapes])[p.shape]
    run_h = p.run_h
    if horizon_h is not None:
        start = jobs.arrival_h
        run_h = np.clip(np.minimum(start + run_h, horizon_h) - start, 0.0, None)
    return np.asarray(np.where(p.reason == "", run_h * p.units * usd, np.inf))


def link_quotes(shapes: tuple[Shape, ...], ctx: Context) -> list[Quote]:
    """The network between instances of other providers' shapes, one quote per link and
    source (a job larger than one instance runs at that link's speed)."""
    by: dict[Link, list[str]] = {}
    for sh in shapes:
        found = ctx.book.link(sh.name)  # None for AWS's types and a custom instance
        if found is not None:
            by.setdefault(found, []).append(sh.name)
    out = []
    for ln, names in by.items():
        gbit = hardware.interconnect(ln.inter_node).bandwidth_gb_per_s * 8
        out.append(
            Quote(
                f"network between instances of {', '.join(names)}",
                round(gbit, 1),
                f"Gb/s ({ln.fabric})",
                "assumption" if ln.status == "assumed" else "provider documentation",
                "undated" if ln.status == "assumed" else "2026-12",
                ln.source,
            )
        )
    return out
