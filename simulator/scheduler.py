"""Gang scheduling of jobs on a pool of fixed capacity, as a SimPy model.

Actors: an *arrivals* process (jobs join the queue when they arrive, not before), a *deliveries*
process (capacity grows when servers arrive), and a *scheduler* that starts jobs. A job needs all
its units (GPUs, or cloud instances under a quota) at once. Policies:

- ``fifo``: strict first-come first-served; the head of the queue blocks the jobs behind it.
- ``backfill``: EASY backfill. The head gets a reservation at the earliest time enough units will
  be free (the *shadow time*); a later job may start now if it fits and either ends before the
  shadow time or uses only units the head will not need. At most ``depth`` queued jobs are looked
  at per pass (Slurm's ``bf_max_job_test``). Run times are known exactly (perfect estimates).

Tie-break: at any instant, every completion, arrival and delivery due then is processed first,
then one scheduling pass runs. Nothing wakes up periodically: the only events are arrivals (one per
distinct arrival time), completions (one per job) and deliveries, and the model records only start
times; usage over time is rebuilt afterwards from the intervals (``simulator.usage``).
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import simpy


@dataclass(frozen=True)
class QueueInput:
    """What the scheduler needs: per job arrival (h), units and hold time (h), plus capacity.

    ``capacity`` is a list of (time h, units added); units added at time 0 are there from the start.
    Jobs must be sorted by arrival; a job needing more units than the pool ever has must be left
    out by the caller (it can never start).
    """

    arrival_h: np.ndarray
    units: np.ndarray
    hold_h: np.ndarray
    capacity: list[tuple[float, int]]
    horizon_h: float
    policy: str = "fifo"
    depth: int = 500


@dataclass
class _State:
    env: simpy.Environment
    inp: QueueInput
    start: np.ndarray
    free: int = 0
    queue: deque[int] = field(default_factory=deque)
    running: dict[int, tuple[float, int]] = field(default_factory=dict)  # job -> (end, units)
    future_capacity: list[tuple[float, int]] = field(default_factory=list)
    pass_pending: bool = False


def simulate(inp: QueueInput) -> np.ndarray:
    """Start time (h) of every job; NaN for jobs not started before the horizon."""
    env = simpy.Environment()
    n = len(inp.arrival_h)
    st = _State(env, inp, np.full(n, np.nan))
    st.future_capacity = sorted((t, u) for t, u in inp.capacity if t > 0)
    st.free = sum(u for t, u in inp.capacity if t <= 0)
    arrival = inp.arrival_h.tolist()  # Python floats: faster to index than numpy scalars
    units = inp.units.tolist()
    hold = inp.hold_h.tolist()

    def wake() -> None:
        if not st.pass_pending:
            st.pass_pending = True
            ev = env.event()
            ev.callbacks.append(schedule_pass)
            ev.succeed()  # runs after every event already due at this instant

    def on_finish(ev: simpy.Event) -> None:
        job = int(ev.value)  # type: ignore[arg-type]
        st.free += units[job]
        if st.running:
            st.running.pop(job, None)
        wake()

    def start_job(job: int) -> None:
        now = env.now
        st.start[job] = now
        st.free -= units[job]
        done = env.timeout(hold[job], value=job)
        done.callbacks.append(on_finish)
        if inp.policy == "backfill":
            st.running[job] = (now + hold[job], units[job])

    def schedule_pass(_: simpy.Event) -> None:
        st.pass_pending = False
        q = st.queue
        while q and units[q[0]] <= st.free:
            start_job(q.popleft())
        if inp.policy == "backfill" and len(q) > 1 and st.free > 0:
            backfill()  # with no GPU free nothing can start: skip the shadow-time work

    def backfill() -> None:
        q = st.queue
        head = q[0]
        now = env.now
        avail = st.free
        shadow, extra = float("inf"), 0
        releases = sorted(list(st.running.values()) + st.future_capacity)
        for t, u in releases:
            avail += u
            if avail >= units[head]:
                shadow, extra = t, avail - units[head]
                break
        started = []
        for pos in range(1, min(len(q), inp.depth)):
            job = q[pos]
            need = units[job]
            if need > st.free:
                continue
            ends_in_time = now + hold[job] <= shadow
            if ends_in_time or need <= extra:
                if not ends_in_time:
                    extra -= need
                started.append(pos)
                start_job(job)
                if st.free == 0:
                    break
        for pos in reversed(started):
            del q[pos]

    def arrivals() -> simpy.events.ProcessGenerator:
        i = 0
        while i < n:
            t = arrival[i]
            if t > env.now:
                yield env.timeout(t - env.now)
            while i < n and arrival[i] == t:
                st.queue.append(i)
                i += 1
            wake()

    def deliveries() -> simpy.events.ProcessGenerator:
        for t, u in list(st.future_capacity):
            yield env.timeout(t - env.now)
            st.free += u
            st.future_capacity.remove((t, u))
            wake()

    env.process(arrivals())
    if st.future_capacity:
        env.process(deliveries())
    env.run(until=inp.horizon_h)
    return st.start


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
