"""Shared instances: jobs smaller than an instance pack onto a pool of instances of one shape.

How a lab uses one 8-GPU instance for eight students. Jobs are taken in arrival order; each goes
to the first instance (oldest first) with enough free GPUs at that moment, else a new instance is
started (ready after the provisioning delay). An instance is billed from when it is ready until
it has been idle for the release timeout (or the horizon). Capacity is unlimited, so nothing
queues: a job waits only for a new instance to come up.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Packed:
    """Per packed job its start (h); per instance session its start and end (h)."""

    start_h: np.ndarray
    session_start_h: np.ndarray
    session_end_h: np.ndarray


def pack(
    arrival_h: np.ndarray,
    gpus: np.ndarray,
    run_h: np.ndarray,
    per_instance: int,
    delay_h: float,
    idle_h: float,
) -> Packed:
    """Pack jobs (sorted by arrival, each with fewer GPUs than an instance) onto instances."""
    start = np.empty(len(arrival_h))
    ready: list[float] = []  # per instance: when it can run jobs
    free: list[int] = []  # per instance: free GPUs now
    idle_since: list[float | None] = []  # per instance: when it last became empty
    closed_at: list[float | None] = []
    open_ids: list[int] = []  # instances not yet released, oldest first
    ending: list[tuple[float, int, int]] = []  # (end h, instance, GPUs) of running jobs
    rows = zip(arrival_h.tolist(), gpus.tolist(), run_h.tolist(), strict=True)
    for j, (a, g, r) in enumerate(rows):
        while ending and ending[0][0] <= a:
            end, i, k = heapq.heappop(ending)
            free[i] += k
            if free[i] == per_instance:
                idle_since[i] = end
        for i in [i for i in open_ids if _expired(idle_since[i], idle_h, a)]:
            closed_at[i] = idle_since[i] + idle_h  # type: ignore[operator]
            open_ids.remove(i)
        i = next((i for i in open_ids if free[i] >= g), -1)
        if i < 0:
            i = len(ready)
            ready.append(a + delay_h)
            free.append(per_instance)
            idle_since.append(None)
            closed_at.append(None)
            open_ids.append(i)
        start[j] = max(a, ready[i])
        free[i] -= g
        idle_since[i] = None
        heapq.heappush(ending, (start[j] + r, i, g))
    while ending:
        end, i, k = heapq.heappop(ending)
        free[i] += k
        if free[i] == per_instance:
            idle_since[i] = end
    for i in open_ids:
        closed_at[i] = idle_since[i] + idle_h  # type: ignore[operator]
    return Packed(start, np.array(ready, dtype=np.float64), np.array(closed_at, dtype=np.float64))


def _expired(since: float | None, idle_h: float, now: float) -> bool:
    return since is not None and since + idle_h <= now
