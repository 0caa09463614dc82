"""FIFO on servers as a bare heapq event loop with its own first fit: the reference the SimPy
model must match start for start (tests/cluster/test_placement.py) and a yardstick
(benchmarks/bench_answer.py)."""

from __future__ import annotations

import heapq
from collections import deque
from typing import Any

import numpy as np

from tco.simulator.cluster.scheduler import QueueInput


def _first_fit(free: list[int], size: int, need: int) -> list[tuple[int, int]] | None:
    if need <= size:
        s = next((i for i, n in enumerate(free) if n >= need), None)
        return None if s is None else [(s, need)]
    whole = [i for i, n in enumerate(free) if n == size][: need // size]
    if len(whole) < need // size:
        return None
    rest = need % size
    if not rest:
        return [(i, size) for i in whole]
    part = next((i for i, n in enumerate(free) if n >= rest and i not in whole), None)
    return None if part is None else [(i, size) for i in whole] + [(part, rest)]


def fifo_placed_heapq(inp: QueueInput) -> np.ndarray:
    """FIFO on servers as a bare event loop: every change due at an instant, then one pass."""
    size = inp.server_gpus
    n = len(inp.arrival_h)
    start = np.full(n, np.nan)
    free = [size] * (sum(u for t, u in inp.capacity if t <= 0) // size)
    # Capacity changes as the model's deliveries process applies them: in time order, each
    # at prev + (t - prev) (SimPy's arithmetic).
    changes = sorted(
        [(t, u, -1) for t, u in inp.capacity if t > 0]
        + [(t, u, s) for t, s, u in inp.server_changes]
    )
    # (time, seq, kind, payload): a release's (GPUs, server) or a start's [(server, GPUs), ...]
    events: list[tuple[float, int, int, Any]] = []
    seq, prev = 0, 0.0
    for t, u, s in changes:
        prev = prev + (t - prev)
        events.append((prev, seq, 0, (u, s)))
        seq += 1
    heapq.heapify(events)
    arrival = inp.arrival_h.tolist()
    queue: deque[int] = deque()
    i, last_arrival = 0, 0.0
    while True:
        nxt = arrival[i] if i < n else float("inf")
        arr_time = last_arrival + (nxt - last_arrival) if nxt > last_arrival else last_arrival
        now = min(arr_time, events[0][0] if events else float("inf"))
        if now >= inp.horizon_h:
            break
        while events and events[0][0] == now:
            _, _, kind, payload = heapq.heappop(events)
            if kind == 0:
                u, s = payload
                if s < 0:
                    free.extend([size] * (u // size))
                else:
                    free[s] += u
            else:
                for s, g in payload:
                    free[s] += g
        if i < n and arr_time == now:
            last_arrival = now
            a = arrival[i]
            while i < n and arrival[i] == a:
                queue.append(i)
                i += 1
        while queue:
            alloc = _first_fit(free, size, int(inp.units[queue[0]]))
            if alloc is None:
                break
            job = queue.popleft()
            start[job] = now
            for s, g in alloc:
                free[s] -= g
            heapq.heappush(events, (now + float(inp.hold_h[job]), seq, 1, alloc))
            seq += 1
    return start
