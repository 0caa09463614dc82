"""The owned-cluster queue as a bare heapq event loop: a reference the SimPy model must match
start for start (tests/cluster/test_scheduler.py) and a speed yardstick
(benchmarks/bench_scheduler.py).
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from tco.simulator.cluster.scheduler import QueueInput


def fifo_heapq(inp: QueueInput) -> np.ndarray:
    """The same FIFO gang scheduling as a bare heapq event loop (a reference for tests/benchmarks).

    It reproduces SimPy's arithmetic (an arrival's time is ``now + (t - now)``), so start times are
    identical, not merely close.
    """
    n = len(inp.arrival_h)
    start = np.full(n, np.nan)
    arrival = inp.arrival_h.tolist()
    units = inp.units.tolist()
    hold = inp.hold_h.tolist()
    free = sum(u for t, u in inp.capacity if t <= 0)
    events: list[tuple[float, int, int]] = []  # (time, seq, +units released / -1 marker)
    seq = 0
    prev = 0.0  # the deliveries process waits t - (its own last wake-up time), as in SimPy
    for t, u in sorted((t, u) for t, u in inp.capacity if t > 0):
        prev = prev + (t - prev)
        events.append((prev, seq, u))
        seq += 1
    heapq.heapify(events)
    queue: deque[int] = deque()
    i = 0
    now = 0.0
    last_arrival = 0.0  # when the arrivals process last woke up
    horizon = inp.horizon_h
    while True:
        next_arrival = arrival[i] if i < n else float("inf")
        if next_arrival > last_arrival:
            arr_time = last_arrival + (next_arrival - last_arrival)
        else:
            arr_time = last_arrival
        t = min(arr_time, events[0][0] if events else float("inf"))
        if t >= horizon or t == float("inf"):
            break
        now = t
        while events and events[0][0] == now:
            free += heapq.heappop(events)[2]
        if i < n and arr_time == now:
            last_arrival = now
            a = arrival[i]
            while i < n and arrival[i] == a:
                queue.append(i)
                i += 1
        while queue and units[queue[0]] <= free:
            job = queue.popleft()
            start[job] = now
            free -= units[job]
            heapq.heappush(events, (now + hold[job], seq, units[job]))
            seq += 1
    return start
