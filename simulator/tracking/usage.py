"""What a cluster ran, by month of submission, on the plan's calendar: jobs, GPU-hours and the
95th percentile wait (where the log records when each job started), from any log ``tco
workload`` reads. A job is counted in the month it was submitted, as the plan counts a job in the
month it arrives.

Which months the log covers, whole: a log runs to its last record (the latest submission, start
or end in it, the export's instant at best), so the month that record falls in is a month to
date, never read as a whole one (``sacct -S 2027-01-01`` ends today). Months before it are
covered up to the first one with no record where the plan expects several jobs: a job dated
months after a silent stretch is a stray (a clock, a test), not months of no work, and what lies
beyond the gap is left out and said. ``--through YYYY-MM`` states the last whole month instead.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass

import numpy as np

from tco.simulator.core.calendar import month_edges_h, months_of
from tco.simulator.tracking.plan_files import Plan, p95_by_month
from tco.simulator.workload.traces import TraceJobs

# A month with no record where the plan expects this many jobs or more is a gap in the log, not
# a month of no work: a Poisson month of 5 expected arrivals is empty once in 150.
GAP_JOBS = 5.0


@dataclass(frozen=True)
class Usage:
    """Actual use by month of the plan (arrays over the plan's months; months after ``recorded``
    hold nothing counted)."""

    recorded: int  # whole months the log covers, from the plan's start
    jobs: np.ndarray
    gpu_hours: np.ndarray
    p95_wait_h: np.ndarray  # NaN: no job, or the log does not say when jobs started
    before: int  # jobs submitted before the plan's start (not counted)
    after: int  # jobs submitted after its horizon (not counted)
    waits_known: bool
    # The month after the whole ones, when the log ends inside it: the share of it covered.
    to_date: float = 0.0
    beyond_gap: int = 0  # jobs left out: submitted after a month with no record (a gap)
    last_record_h: float = 0.0  # hours from the plan's start to the log's last record


def start_epoch_s(start: str) -> float:
    """Seconds since 1970 (UTC) at the first hour of ``start`` (YYYY-MM)."""
    return float(calendar.timegm((int(start[:4]), int(start[5:7]), 1, 0, 0, 0)))


def _last_record_h(trace: TraceJobs, origin_s: float, keep: np.ndarray | None = None) -> float:
    """Hours from ``origin_s`` to the latest instant the log records (of the jobs ``keep``
    says): a submission, a start, an end (a running job's end is its time so far: the export's
    instant)."""
    wait = np.nan_to_num(trace.waits(), nan=0.0)
    last = np.maximum(trace.submit_s, trace.submit_s + wait + trace.duration_s)
    last = last if keep is None else last[keep]
    return float((last.max() - origin_s) / 3600.0) if len(last) else -np.inf


def of(trace: TraceJobs, plan: Plan, through: int | None = None) -> Usage:
    """``trace`` (submit times in seconds since 1970, UTC) counted on ``plan``'s months, over
    the whole months the log covers (``through``: the number of whole months stated instead)."""
    months = len(plan.months)
    edges = month_edges_h(plan.start, months)
    hour = (trace.submit_s - start_epoch_s(plan.start)) / 3600.0
    inside = (hour >= 0) & (hour < edges[-1])
    m = months_of(edges, hour[inside])
    last_h = _last_record_h(trace, start_epoch_s(plan.start))
    jobs = np.bincount(m, minlength=months).astype(float)
    whole = int(np.searchsorted(edges[1:], min(last_h, float(edges[-1])), side="right"))
    if through is not None:
        whole = min(through, months)
    else:
        gap = next((i for i in range(whole) if jobs[i] == 0 and plan.jobs[i] >= GAP_JOBS), None)
        if gap is not None:  # after a silent month: a stray, not months of no work
            before_gap = trace.submit_s < start_epoch_s(plan.start) + edges[gap] * 3600.0
            last_h = min(
                _last_record_h(trace, start_epoch_s(plan.start), before_gap),
                float(edges[gap]),
            )
            whole = int(np.searchsorted(edges[1:], last_h, side="right"))
    to_date = 0.0
    if through is None and whole < months and last_h > edges[whole]:
        to_date = float((last_h - edges[whole]) / (edges[whole + 1] - edges[whole]))
    kept = (m < whole) | ((m == whole) & (to_date > 0))
    gpu_h = (trace.gpus * trace.duration_s)[inside] / 3600.0
    wait = trace.waits()[inside] / 3600.0
    mk = m[kept]
    return Usage(
        recorded=whole,
        jobs=np.bincount(mk, minlength=months).astype(float),
        gpu_hours=np.bincount(mk, weights=gpu_h[kept], minlength=months),
        p95_wait_h=p95_by_month(mk, wait[kept], months),
        before=int((hour < 0).sum()),
        after=int((hour >= edges[-1]).sum()),
        waits_known=bool(np.isfinite(wait).any()),
        to_date=to_date,
        beyond_gap=int((~kept).sum()),
        last_record_h=last_h,
    )
