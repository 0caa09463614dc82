"""How the job stream ran on one option: per job, when it started and ended, or why it could not.

A kind's ``play`` returns :class:`JobRuns`; ledgers rebuild usage from its intervals and the
metrics read waits and work from it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from tco.simulator.costs.usage import hourly
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
    failures: int = 0  # GPUs of the option that failed (owned)
    node_failures: int = 0  # whole servers of the option that failed (owned)
    rack_failures: int = 0  # racks that failed, each taking its servers down (owned)
    unavailable_gpu_h: float = 0.0  # GPU-hours out of service for repair
    gaps: Gaps | None = None  # owned jobs stopped by failures and queued again
    fragmented_gpu_h: float = 0.0  # GPU-hours idle while a waiting job fit the free GPUs of
    # the pool but of no server (placement on servers)
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
