"""What a trace holds, for ``tco workload stats``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.simulator.workload.traces.records import TraceJobs


@dataclass(frozen=True)
class TraceStats:
    """What a trace holds: jobs, span, GPU-hours, sizes, durations (hours), arrivals per day."""

    jobs: int
    span_days: float
    gpu_hours: float
    jobs_by_gpus: dict[int, int]
    gpu_hours_by_gpus: dict[int, float]
    duration_p50_h: float
    duration_p90_h: float
    duration_p99_h: float
    duration_max_h: float
    arrivals_per_day_mean: float
    arrivals_per_day_max: int
    arrivals_per_day: list[int]


def stats(jobs: TraceJobs) -> TraceStats:
    """Jobs, span, GPU-hours, GPUs per job, duration percentiles and arrivals per day."""
    if len(jobs) == 0:
        return TraceStats(0, 0.0, 0.0, {}, {}, 0.0, 0.0, 0.0, 0.0, 0.0, 0, [])
    t = jobs.submit_s - jobs.submit_s.min()
    per_day = np.bincount(np.floor(t / 86400.0).astype(np.int64))
    sizes, counts = np.unique(jobs.gpus, return_counts=True)
    gpu_h = jobs.duration_s * jobs.gpus / 3600.0
    p = np.percentile(jobs.duration_s / 3600.0, [50, 90, 99])
    return TraceStats(
        jobs=len(jobs),
        span_days=float(t.max() / 86400.0),
        gpu_hours=float(gpu_h.sum()),
        jobs_by_gpus={int(k): int(v) for k, v in zip(sizes, counts, strict=True)},
        gpu_hours_by_gpus={int(k): float(gpu_h[jobs.gpus == k].sum()) for k in sizes},
        duration_p50_h=float(p[0]),
        duration_p90_h=float(p[1]),
        duration_p99_h=float(p[2]),
        duration_max_h=float(jobs.duration_s.max() / 3600.0),
        arrivals_per_day_mean=float(per_day.mean()),
        arrivals_per_day_max=int(per_day.max()),
        arrivals_per_day=per_day.tolist(),
    )
