"""What a cluster ran, by month of submission, on the plan's calendar: jobs, GPU-hours and the
95th percentile wait (where the log records when each job started), from any log ``tco
workload`` reads. A job is counted in the month it was submitted, as the plan counts a job in the
month it arrives."""

from __future__ import annotations

import calendar
from dataclasses import dataclass

import numpy as np

from tco.simulator.core.calendar import month_edges_h, months_of
from tco.simulator.tracking.plan import Plan, p95_by_month
from tco.simulator.workload.traces import TraceJobs


@dataclass(frozen=True)
class Usage:
    """Actual use by month of the plan (arrays over the plan's months; months after ``recorded``
    hold nothing yet)."""

    recorded: int  # months with a record: up to the month of the last submission
    jobs: np.ndarray
    gpu_hours: np.ndarray
    p95_wait_h: np.ndarray  # NaN: no job, or the log does not say when jobs started
    before: int  # jobs submitted before the plan's start (not counted)
    after: int  # jobs submitted after its horizon (not counted)
    waits_known: bool


def start_epoch_s(start: str) -> float:
    """Seconds since 1970 (UTC) at the first hour of ``start`` (YYYY-MM)."""
    return float(calendar.timegm((int(start[:4]), int(start[5:7]), 1, 0, 0, 0)))


def of(trace: TraceJobs, plan: Plan) -> Usage:
    """``trace`` (submit times in seconds since 1970, UTC) counted on ``plan``'s months."""
    months = len(plan.months)
    edges = month_edges_h(plan.start, months)
    hour = (trace.submit_s - start_epoch_s(plan.start)) / 3600.0
    inside = (hour >= 0) & (hour < edges[-1])
    m = months_of(edges, hour[inside])
    gpu_h = (trace.gpus * trace.duration_s)[inside] / 3600.0
    wait = trace.waits()[inside] / 3600.0
    recorded = int(m.max()) + 1 if len(m) else 0
    return Usage(
        recorded=recorded,
        jobs=np.bincount(m, minlength=months).astype(float),
        gpu_hours=np.bincount(m, weights=gpu_h, minlength=months),
        p95_wait_h=p95_by_month(m, wait, months),
        before=int((hour < 0).sum()),
        after=int((hour >= edges[-1]).sum()),
        waits_known=bool(np.isfinite(wait).any()),
    )
