"""Gang scheduling of jobs on a pool of fixed capacity, as a SimPy model.

Actors: an *arrivals* process (jobs join the queue when they arrive, not before), a *deliveries*
process (capacity grows when servers arrive), and a *scheduler* that starts jobs. A job needs all
its units (GPUs, or cloud instances under a quota) at once. Policies:

- ``fifo``: strict first-come first-served; the head of the queue blocks the jobs behind it.
- ``backfill``: EASY backfill. The head gets a reservation at the earliest time enough units will
  be free (the *shadow time*); a later job may start now if it fits and either ends before the
  shadow time or uses only units the head will not need. At most ``depth`` queued jobs are looked
  at per pass (Slurm's ``bf_max_job_test``). Run times are known exactly (perfect estimates).

A *cutover* (an owned cluster's refresh, ``queue_records.Cutover``) replaces every server at one
instant: running jobs end on the retired servers, later starts use the successor and its run
times, and backfill's shadow time looks ahead to it.

Tie-break: at any instant, every completion, arrival and delivery due then is processed first,
then one scheduling pass runs. Nothing wakes up periodically: the only events are arrivals (one per
distinct arrival time), completions (one per job) and deliveries, and the model records only start
times; usage over time is rebuilt afterwards from the intervals (``simulator.usage``).
"""

from __future__ import annotations

import bisect
import heapq
from collections import deque
from math import inf
from typing import TypeVar

import numpy as np
import simpy

from tco.simulator.cluster.placement import Allocation, Servers
from tco.simulator.cluster.queue_records import (
    SERVER_DOWN,
    SERVER_UP,
    Cutover,
    Queued,
    QueueInput,
    Requeued,
    capacity_events,
)
from tco.simulator.cluster.requeue import Requeue, back_in_line, requeued

P = TypeVar("P", bound="_Pool")

__all__ = ["SERVER_DOWN", "SERVER_UP", "Cutover", "QueueInput", "Queued", "Requeued"]


class _Pool:
    """One run of the model: the SimPy environment, the free units, the queue and (for backfill)
    the running jobs ordered by end time."""

    remember = True  # placed backfill skips jobs seen before (tests turn it off: same starts)

    def __init__(self, inp: QueueInput) -> None:
        self.env = simpy.Environment()
        self.inp = inp
        self.start = np.full(len(inp.arrival_h), np.nan)
        self.arrival = inp.arrival_h.tolist()  # Python floats: faster to index than numpy's
        self.units = inp.units.tolist()
        self.hold = inp.hold_h.tolist()
        self.free = sum(u for t, u in inp.capacity if t <= 0)
        # (time, units, server): server -1 adds units (new servers when placed on servers).
        self.future_capacity = capacity_events(inp.capacity, inp.server_changes, inp.server_outages)
        cut = inp.cutover
        if cut is not None:  # the old servers' events end there; the successor's follow
            self.future_capacity = [e for e in self.future_capacity if e[0] < cut.at_h] + [
                e
                for e in capacity_events(cut.changes, cut.server_changes, cut.server_outages)
                if e[0] >= cut.at_h
            ]
        self.servers: Servers | None = None
        self.alloc: dict[int, Allocation] = {}
        if inp.server_gpus:
            self.servers = Servers(inp.server_gpus)
            self.servers.add_servers(self.free)
        self.requeue: Requeue | None = None
        self.finish_ev: dict[int, simpy.Event] = {}
        self.end = np.full(len(inp.arrival_h), np.nan)
        if inp.requeue is not None and self.servers is not None:
            rng = np.random.default_rng(inp.seed)
            self.requeue = Requeue(inp.requeue, inp.hold_h.tolist(), rng)
        self.queue: deque[int] = deque()
        self.backfill = inp.policy == "backfill"
        # (end h, units, job), kept sorted: the shadow time is found by scanning from the
        # earliest end and stopping as soon as enough units are released.
        self.running: list[tuple[float, int, int]] = []
        self.ends: dict[int, float] = {}
        self.pass_pending = False
        self.scanned = 0  # placed backfill: jobs none of which can start (0: look at all)
        self.head_shadow: float | None = None  # the head's shadow time, while nothing changes
        self.left = np.full(len(inp.arrival_h), np.nan)  # when a job gave up waiting
        self.cut_h = inf if inp.cutover is None else inp.cutover.at_h
        # Fragmentation and servers down whole on the servers the cutover retired.
        self.retired_stranded_gpu_h = self.retired_down_gpu_h = 0.0
        if cut is not None and cut.at_h < inp.horizon_h:  # created first: it runs before any
            self.env.timeout(cut.at_h).callbacks.append(self.cutover)  # pass at at_h
        self.patience: list[float] | None = None
        if inp.patience_h is not None:
            each = np.broadcast_to(np.asarray(inp.patience_h, np.float64), self.start.shape)
            self.patience = each.tolist()

    def changed(self) -> None:
        """Something besides an arrival happened: the next pass looks at every job again."""
        self.scanned, self.head_shadow = 0, None

    def wake(self) -> None:
        """Ask for one scheduling pass after every event already due at this instant."""
        if not self.pass_pending:
            self.pass_pending = True
            ev = self.env.event()
            ev.callbacks.append(self.schedule_pass)
            ev.succeed()

    def ended(self, ev: simpy.Event) -> int | None:
        """The job ``ev`` ends, or None when a failure had stopped it (that end is void)."""
        job = int(ev.value)  # type: ignore[arg-type]
        if self.requeue is not None:
            if self.finish_ev.get(job) is not ev:
                return None
            del self.finish_ev[job]
        return job

    def on_finish(self, ev: simpy.Event) -> None:
        job = self.ended(ev)
        if job is None:
            return
        if self.cut_h <= self.env.now and self.start[job] < self.cut_h and job not in self.alloc:
            return  # it ran on a retired server: its GPUs are gone with the server
        self.changed()
        self.free += self.units[job]
        if self.servers is not None:
            self.servers.release(self.alloc.pop(job))
        if self.backfill:
            entry = (self.ends.pop(job), self.units[job], job)
            del self.running[bisect.bisect_left(self.running, entry)]
        if self.queue:  # with nobody waiting a pass would start nothing: no event for it
            self.wake()

    def start_job(self, job: int, alloc: Allocation | None = None) -> None:
        now = self.env.now
        if self.requeue is None:  # the hot path: one start per job
            hold = self.hold[job]
            self.start[job] = now
        else:
            hold = self.requeue.hold_h(job, now)
            if np.isnan(self.start[job]):  # queued again: it keeps its first start (its wait)
                self.start[job] = now
        self.free -= self.units[job]
        if self.servers is not None and alloc is not None:
            self.servers.take(alloc)
            self.alloc[job] = alloc
        done = self.env.timeout(hold, value=job)
        done.callbacks.append(self.on_finish)
        if self.requeue is not None:
            self.finish_ev[job] = done
            self.end[job] = now + hold
        if self.backfill:
            end = now + hold
            self.ends[job] = end
            bisect.insort(self.running, (end, self.units[job], job))

    def schedule_pass(self, _: simpy.Event) -> None:
        self.pass_pending = False
        q = self.queue
        if self.servers is not None:
            self.placed_pass()
            return
        while q and self.units[q[0]] <= self.free:
            self.start_job(q.popleft())
        if self.backfill and len(q) > 1 and self.free > 0:
            self.backfill_pass()  # with no unit free nothing can start: skip the shadow time

    def cutover(self, _: simpy.Event) -> None:
        """Every server retires and the successor's take their place (see ``Cutover``)."""
        cut = self.inp.cutover
        assert cut is not None
        self.changed()
        self.hold = cut.hold_h.tolist()
        self.free = cut.gpus
        # A job larger than the successor never starts now; with patience it leaves (bursts).
        kept = deque(j for j in self.queue if self.units[j] <= cut.gpus)
        if len(kept) < len(self.queue) and self.patience is not None:
            for j in set(self.queue) - set(kept):
                self.left[j] = self.env.now
        self.queue = kept
        self.running.clear()  # what runs now ends on retired servers: it frees nothing
        self.ends.clear()
        if self.requeue is not None:  # jobs not running now will run on the successor
            self.requeue.to_successor(self.hold, set(self.finish_ev))
        if self.servers is not None:
            self.retired_stranded_gpu_h = self.servers.close(self.env.now)
            self.retired_down_gpu_h = self.servers.down_gpu_h
            self.servers = Servers(cut.server_gpus)
            self.servers.add_servers(cut.gpus)
            self.alloc.clear()
        if self.queue:
            self.wake()

    def after_cutover(self, need: int) -> float:
        """A shadow time that only the successor brings: its instant if it holds ``need``."""
        cut = self.inp.cutover
        if cut is None or self.env.now >= cut.at_h or need > cut.gpus:
            return inf
        return cut.at_h

    def placed_pass(self) -> None:
        """The pass on servers: the head starts where it fits (first fit); with backfill, a
        later job starts if it fits now and ends before the head's shadow time (the pool's
        second rule, units the head will not need, is not applied: on servers it would need
        the head's future placement, so this backfill is the more cautious one)."""
        q, srv = self.queue, self.servers
        assert srv is not None
        while q:
            need = self.units[q[0]]
            alloc = srv.place(need) if need <= srv.free_gpus() else None  # no scan when short
            if alloc is None:
                break
            self.start_job(q.popleft(), alloc)
        # After arrivals alone the jobs looked at before still cannot start (nothing freed, the
        # head's shadow time the same, the clock later): only the new ones are looked at.
        first, seen = max(1, self.scanned * self.remember), len(q)  # seen: none can start
        if self.backfill and first < min(len(q), self.inp.depth) and srv.total_free > 0:
            now = self.env.now
            if self.head_shadow is None or not self.remember:
                self.head_shadow = self.placed_shadow(self.units[q[0]])
            shadow = self.head_shadow
            started = []
            room = srv.room()  # a job no server could hold is not looked for (a long queue)
            for pos in range(first, min(len(q), self.inp.depth)):
                job, need = q[pos], self.units[q[pos]]
                if now + self.hold[job] > shadow or not srv.may_hold(need, room):
                    continue
                alloc = srv.place(need)
                if alloc is not None:
                    started.append(pos)
                    self.start_job(job, alloc)
                    room = srv.room()
            for pos in reversed(started):
                del q[pos]
            seen = min(len(q) + len(started), self.inp.depth) - len(started)  # (not beyond)
        self.note_head(q[0] if q else None)
        self.scanned = seen

    def note_head(self, head: int | None) -> None:
        """After a pass: the head that could not start (None: nobody waits), for fragmentation."""
        if self.servers is not None:
            self.servers.note(self.env.now, None if head is None else self.units[head])

    def placed_shadow(self, need: int) -> float:
        """When the head could first be placed, releasing running jobs' GPUs and applying
        capacity changes in time order."""
        srv = self.servers
        assert srv is not None
        free = list(srv.free)
        changes = heapq.merge(
            ((t, 0, job) for t, _, job in self.running),
            ((t, 1, i) for i, (t, _, _) in enumerate(self.future_capacity)),
        )
        small = need <= srv.size  # then only a server a change touched can newly hold it
        for t, what, i in changes:
            if t >= self.cut_h > self.env.now:
                break  # what ends on retired servers frees nothing after the cutover
            if what == 0:
                touched = [s for s, _ in self.alloc[i]]
                for s, n in self.alloc[i]:
                    free[s] += n
            else:
                _, u, s = self.future_capacity[i]
                touched = [s]
                if s < 0:
                    touched = list(range(len(free), len(free) + u // srv.size))
                    free.extend([srv.size] * (u // srv.size))
                else:
                    look_ahead(srv, free, s, u)
            if any(free[s] >= need for s in touched) if small else srv.place(need, free):
                return t
        return self.after_cutover(need)

    def shadow(self, need: int) -> tuple[float, int]:
        """When the head's ``need`` units will be free (releases in time order), and how many
        units beyond its need are free then."""
        avail = self.free
        releases = heapq.merge(
            ((t, u) for t, u, _ in self.running), ((t, u) for t, u, _ in self.future_capacity)
        )
        for t, u in releases:
            if t >= self.cut_h > self.env.now:
                break
            avail += u
            if avail >= need:
                return t, avail - need
        at, cut = self.after_cutover(need), self.inp.cutover
        return at, (cut.gpus - need if cut is not None and at < inf else 0)

    def backfill_pass(self) -> None:
        q = self.queue
        now = self.env.now
        shadow, extra = self.shadow(self.units[q[0]])
        started = []
        for pos in range(1, min(len(q), self.inp.depth)):
            job = q[pos]
            need = self.units[job]
            if need > self.free:
                continue
            ends_in_time = now + self.hold[job] <= shadow
            if ends_in_time or need <= extra:
                if not ends_in_time:
                    extra -= need
                started.append(pos)
                self.start_job(job)
                if self.free == 0:
                    break
        for pos in reversed(started):
            del q[pos]

    def start_arrivals(self) -> None:
        """Arrivals as a chain of timeouts, one per distinct arrival time (the same events, in
        the same order, as a process yielding them, without resuming a generator each time)."""
        self.next_arrival = 0
        if self.arrival:
            self._arrive_after(self.arrival[0] - self.env.now)

    def _arrive_after(self, delay: float) -> None:
        ev = self.env.timeout(delay)
        ev.callbacks.append(self._arrive)

    def _arrive(self, _: simpy.Event) -> None:
        arrival, n, i = self.arrival, len(self.arrival), self.next_arrival
        while True:
            t = arrival[i]
            while i < n and arrival[i] == t:
                self.queue.append(i)
                if self.patience is not None:
                    ev = self.env.timeout(self.patience[i], value=i)
                    ev.callbacks.append(self._give_up)
                i += 1
            self.wake()
            # As the process did: an arrival not after the clock (now + (t - now) can pass t by
            # an ulp) joins in this same step; a later one gets its own timeout.
            if i >= n or arrival[i] > self.env.now:
                break
        self.next_arrival = i
        if i < n:
            self._arrive_after(arrival[i] - self.env.now)

    def _give_up(self, ev: simpy.Event) -> None:
        """A job still queued when its patience runs out leaves, wherever it stands (as in
        Starburst's waiting policies); the jobs behind it may now start."""
        job = int(ev.value)  # type: ignore[arg-type]
        if np.isnan(self.start[job]) and np.isnan(self.left[job]):  # (a cutover may drop it)
            self.queue.remove(job)
            self.changed()
            self.left[job] = self.env.now
            if self.queue:
                self.wake()
            else:
                self.note_head(None)  # nobody waits: nothing is stranded

    def server_event(self, srv: Servers, s: int, u: int, alloc: dict[int, Allocation]) -> int:
        """A failure or repair of ``srv``'s server ``s`` (a GPU, or the server whole; ``alloc``:
        the jobs on ``srv``): the jobs under it stop and queue again; the change in free GPUs."""
        now = self.env.now
        if u == SERVER_DOWN:
            for job in [j for j, a in alloc.items() if any(x == s for x, _ in a)]:
                self.stop_job(job)
            return -srv.server_down(s, now)
        if u == SERVER_UP:
            return srv.server_up(s, now)
        if self.requeue is not None and u < 0 and s not in srv.down:  # a GPU under a job?
            hit = self.requeue.victim(s, srv.free[s], srv.size - srv.out[s], alloc)
            if hit is not None:
                self.stop_job(hit)
        return srv.change(s, u, now)

    def stop_job(self, job: int) -> None:
        """A running job stops (a failure under it) and queues again at its place by arrival."""
        srv, rq = self.servers, self.requeue
        assert srv is not None and rq is not None
        now = self.env.now
        srv.release(self.alloc.pop(job))
        self.free += self.units[job]
        del self.finish_ev[job]
        if self.backfill:
            entry = (self.ends.pop(job), self.units[job], job)
            del self.running[bisect.bisect_left(self.running, entry)]
        rq.stop(job, now, self.units[job])
        self.changed()
        back_in_line(self.queue, job)
        self.wake()

    def deliveries(self) -> simpy.events.ProcessGenerator:
        for t, u, s in list(self.future_capacity):
            yield self.env.timeout(t - self.env.now)
            self.changed()
            srv = self.servers
            if srv is None:
                self.free += u
            elif s < 0:
                self.free += u
                srv.add_servers(u)
            else:
                self.free += self.server_event(srv, s, u, self.alloc)
            self.future_capacity.remove((t, u, s))
            if self.queue:
                self.wake()


def simulate(inp: QueueInput) -> np.ndarray:
    """Start time (h) of every job; NaN for jobs not started before the horizon."""
    return simulate_queue(inp).start_h


def simulate_queue(inp: QueueInput) -> Queued:
    """Start time (h) of every job, when a job gave up waiting (``inp.patience_h``), and on
    servers the GPU-hours idle by fragmentation."""
    pool = _run(_Pool(inp), inp.horizon_h)
    srv = pool.servers
    stranded = srv.close(inp.horizon_h) + pool.retired_stranded_gpu_h if srv is not None else 0.0
    down = srv.down_gpu_h + pool.retired_down_gpu_h if srv is not None else 0.0
    # The cutover runs before any pass at its instant, so a start at it is on the successor.
    new = None if inp.cutover is None else pool.start >= inp.cutover.at_h
    return Queued(
        pool.start, pool.left, stranded, requeued(pool.requeue, pool.end, inp.horizon_h), down, new
    )


def _run(pool: P, horizon_h: float) -> P:
    """Run one model to the horizon: arrivals as they come, deliveries and changes in time."""
    pool.start_arrivals()
    if pool.future_capacity:
        pool.env.process(pool.deliveries())
    pool.env.run(until=horizon_h)
    return pool


def look_ahead(srv: Servers, free: list[int], s: int, u: int) -> None:
    """A failure or repair of ``srv``'s server ``s`` applied to ``free``, a copy of its free
    GPUs for looking ahead (a server down holds nothing until it is back)."""
    if u == SERVER_DOWN:
        free[s] = -srv.size
    elif u == SERVER_UP:
        free[s] = srv.size - srv.out[s]
    else:
        free[s] += u
