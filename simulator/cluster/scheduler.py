"""Gang scheduling of jobs on an owned cluster, as one SimPy model.

The cluster is a list of *groups*: the servers of one model each (or one pool of GPUs). A plain
cluster is one group; a refresh's cutover retires group 0 at one instant and starts its
successor, group 1, then; a cluster of mixed generations is several groups at once. How a group
holds a job is its *placement* (``cluster.groups``): a pool, where a job's GPUs may be anywhere,
or servers, where a job sits inside one server when it fits there (first fit) and failures stop
the jobs under them.

Actors: an *arrivals* chain (jobs join the queue when they arrive, not before), a *capacity*
process (deliveries, failures and repairs in time, ``cluster.capacity``), and a *scheduler*
pass that starts jobs. A job needs all its GPUs at once, on one group. Policies:

- ``fifo``: strict first-come first-served; the head of the queue blocks the jobs behind it.
  With ranks (``QueueInput.priority``: a team's priority) the queue is ordered by rank, then
  arrival: a job joins behind its rank, ahead of worse ranks (non-preemptive priority: a
  running job is never stopped for a better one). With fair share (``QueueInput.fair_share``,
  ``cluster.fair_share``) the queue is ordered before each pass by the teams' Slurm fair-share
  factors, then arrival.
  The head starts on the newest group that holds it now (mixed generations: usually the
  fastest GPUs), at that group's speed.
- ``backfill``: EASY backfill. The head gets a reservation at the earliest instant some group
  could hold it (the *shadow time*: running jobs' releases and capacity changes applied in time
  order); a later job may start now if it fits and ends before the shadow time or, on a pool,
  uses only units the head will not need then (the second rule needs the head's future
  placement on servers, so there the backfill is the more cautious one). At most ``depth``
  queued jobs are looked at per pass (Slurm's ``bf_max_job_test``). Run times are known
  exactly (perfect estimates).

A job may give up waiting after its patience (a hybrid bursts it), and on servers a failure
under a running job stops it and queues it again at its place by arrival (``requeue``).

Tie-break: at any instant, every completion, arrival and capacity change due then is processed
first, then one scheduling pass runs. Nothing wakes up periodically: the only events are
arrivals (one per distinct arrival time), completions (one per start) and capacity changes, and
the model records only start times; usage over time is rebuilt afterwards from the intervals
(``costs.usage``).
"""

from __future__ import annotations

import bisect
from collections import deque
from math import inf

import numpy as np
import simpy

from tco.simulator.cluster import capacity
from tco.simulator.cluster.backfill import backfill_pass
from tco.simulator.cluster.capacity import Delivery, Event, GpuChange, ServerDown, ServerUp
from tco.simulator.cluster.fair_share import FairShare
from tco.simulator.cluster.groups import Group, PoolGroup, ServerGroup
from tco.simulator.cluster.patience import Patience
from tco.simulator.cluster.placement import Allocation
from tco.simulator.cluster.queue_records import Cutover, Queued, QueueInput, Requeued, floats
from tco.simulator.cluster.requeue import Requeue, back_in_line, requeued
from tco.simulator.cluster.setup import events_of, groups_of, requeue_of

__all__ = ["Cluster", "Cutover", "QueueInput", "Queued", "Requeued", "simulate", "simulate_queue"]


class Cluster:
    """One run of the model: the SimPy environment, the groups, the queue and (for backfill)
    the running jobs ordered by end time."""

    remember = True  # backfill skips jobs seen before when only arrivals came (tests: same starts)
    keep_shadow_on_end = True  # a job ending when due leaves the head's shadow (tests: the same)

    def __init__(self, inp: QueueInput) -> None:
        self.env = simpy.Environment()
        self.inp = inp
        n = len(inp.arrival_h)
        self.start = np.full(n, np.nan)
        self.arrival = floats(inp.arrival_h)  # read as Python floats: faster than numpy's
        self.units = inp.units.tolist()
        self.groups: list[Group] = groups_of(inp)
        self.active = [g for g in self.groups if g.from_h <= 0]  # the newest last
        self.newest_first = self.active[::-1]
        self.keeps_shadow = all(g.keeps_shadow for g in self.active)  # (servers: see backfill)
        self.fragments = any(g.counts_fragments for g in self.groups)  # servers: notes
        self.future: list[Event] = events_of(inp)
        self.next_event = 0  # future[next_event:] are still to come
        self.where = [-1] * n  # the group each job ran on last
        self.alloc: dict[int, Allocation] = {}
        self.requeue: Requeue | None = None
        self.finish_ev: dict[int, simpy.Event] = {}
        # When each job ended, and gave up waiting: kept only where they can differ from the
        # start plus the hold (jobs queued again) and where a job can leave (patience).
        self.end = np.empty(0)
        if inp.requeue is not None and isinstance(self.groups[0], ServerGroup):
            self.requeue = requeue_of(inp, self.groups)
            self.end = np.full(n, np.nan)
        self.queue: deque[int] = deque()
        # Priority by rank (lower first; ``QueueInput.priority``), by arrival within a rank;
        # None: by arrival alone (first come, first served).
        self.rank: list[int] | None = None if inp.priority is None else inp.priority.tolist()
        fs = inp.fair_share
        self.fair = None if fs is None else FairShare(fs.team.tolist(), fs.shares, fs.half_life_h)
        self.backfill = inp.policy == "backfill"
        # (end h, units, job), kept sorted: the shadow time is found by scanning from the
        # earliest end and stopping as soon as the head fits.
        self.running: list[tuple[float, int, int]] = []
        self.ends: dict[int, float] = {}
        self.pass_pending = False
        self.scanned = 0  # backfill: queued jobs none of which can start (0: look at all)
        self.head_shadow: tuple[float, int] | None = None  # the head's, while nothing changes
        self.shadow_head = -1  # the job it was found for
        # Found with no capacity change due before it: the releases it counted are exact, and
        # a job ending when due leaves it standing (a failure's look-ahead is an estimate).
        self.shadow_sure = False
        self.left = np.full(n if inp.patience_h is not None else 0, np.nan)
        cut = inp.cutover
        self.cut_h = inf if cut is None else cut.at_h
        if cut is not None and cut.at_h < inp.horizon_h:  # created first: it runs before any
            self.env.timeout(cut.at_h).callbacks.append(self.cutover)  # pass at at_h
        self.patience: Patience | None = None
        if inp.patience_h is not None:
            each = np.broadcast_to(np.asarray(inp.patience_h, np.float64), self.start.shape)
            self.patience = Patience(self.env, each.tolist(), self.waiting, self._give_up)

    # ------------------------------------------------------------------ state changes

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

    def wake_last(self) -> None:
        """``wake`` from the last thing a handler does: when no other event is due at this
        instant the pass runs here and then, as its own event would have, without the event
        (an arrival and a completion each asked for one: a third of a job's events)."""
        if self.pass_pending:
            return
        if self.env.peek() > self.env.now:
            self.schedule_pass(None)
        else:
            self.wake()

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
        group = self.groups[self.where[job]]
        if group.until_h <= self.env.now:
            return  # it ran on a retired group: its GPUs are gone with its servers
        # A job ending when it was due to is a release the head's shadow time already counted:
        # the shadow stands on groups of servers (as after a backfilled start), not on a pool.
        self.scanned = 0
        if not (self.keep_shadow_on_end and self.shadow_sure and self.keeps_shadow):
            self.head_shadow = None
        group.release(self.alloc.pop(job), self.units[job])
        if self.backfill:
            entry = (self.ends.pop(job), self.units[job], job)
            del self.running[bisect.bisect_left(self.running, entry)]
        if self.queue:  # with nobody waiting a pass would start nothing: no event for it
            self.wake_last()

    def off(self, job: int, group: Group) -> None:
        """The job gives its GPUs back (it ended, or a failure stopped it)."""
        group.release(self.alloc.pop(job), self.units[job])
        if self.backfill:
            entry = (self.ends.pop(job), self.units[job], job)
            del self.running[bisect.bisect_left(self.running, entry)]

    def start_job(self, job: int, group: Group, alloc: Allocation) -> None:
        now, rq = self.env.now, self.requeue
        if rq is None:  # the hot path: one start per job
            hold = group.hold[job]
            self.start[job] = now
        else:
            rq.on(job, group.index)
            hold = rq.hold_h(job, now)
            if np.isnan(self.start[job]):  # queued again: it keeps its first start (its wait)
                self.start[job] = now
        self.where[job] = group.index
        if self.fair is not None:
            self.fair.charge(job, hold * self.units[job], now)
        group.take(alloc, self.units[job])
        self.alloc[job] = alloc
        done = self.env.timeout(hold, value=job)
        done.callbacks.append(self.on_finish)
        if rq is not None:
            self.finish_ev[job] = done
            self.end[job] = now + hold
        if self.backfill:
            end = now + hold
            self.ends[job] = end
            bisect.insort(self.running, (end, self.units[job], job))

    def stop_job(self, job: int) -> None:
        """A running job stops (a failure under it) and queues again at its place by arrival."""
        rq = self.requeue
        assert rq is not None
        self.off(job, self.groups[self.where[job]])
        del self.finish_ev[job]
        rq.stop(job, self.env.now, self.units[job])
        self.changed()
        back_in_line(self.queue, job, self.rank)
        self.wake()

    def cutover(self, _: simpy.Event) -> None:
        """Group 0 retires and its successor, group 1, takes its place (see ``Cutover``)."""
        cut = self.inp.cutover
        assert cut is not None
        self.changed()
        old, new = self.groups
        old.retire(self.env.now)
        new.deliver(cut.gpus)
        self.active = self.newest_first = [new]
        self.keeps_shadow = new.keeps_shadow
        # A job larger than the successor never starts now; with patience it leaves (bursts).
        kept = deque(j for j in self.queue if self.units[j] <= cut.gpus)
        if len(kept) < len(self.queue) and self.patience is not None:
            for j in set(self.queue) - set(kept):
                self.left[j] = self.env.now
        self.queue = kept
        self.running.clear()  # what runs now ends on retired servers: it frees nothing
        self.ends.clear()
        if self.requeue is not None:  # jobs not running now will run on the successor
            self.requeue.to_successor(new.hold, set(self.finish_ev))
        self.alloc.clear()
        if self.queue:
            self.wake()

    # ------------------------------------------------------------------ the scheduling pass

    def place_any(self, job: int) -> tuple[Group, Allocation] | None:
        """Where ``job`` starts now: the newest active group that holds it, or None."""
        need = self.units[job]
        for group in self.newest_first:
            alloc = group.place_now(job, need)
            if alloc is not None:
                return group, alloc
        return None

    def schedule_pass(self, _: simpy.Event | None) -> None:
        self.pass_pending = False
        if self.fair is not None and (order := self.fair.ordered(self.queue, self.env.now)):
            self.queue = order  # the teams' factors moved: the order is new, look at every job
            self.changed()
        q, units = self.queue, self.units
        if len(self.newest_first) == 1:  # one group (most clusters): the head loop inline
            only = self.newest_first[0]
            while q and (alloc := only.place_now(q[0], units[q[0]])) is not None:
                self.start_job(q.popleft(), only, alloc)
        else:
            while q and (found := self.place_any(q[0])) is not None:
                self.start_job(q.popleft(), *found)
        if not self.backfill:  # FIFO: the head blocks the rest; on servers it may strand GPUs
            if self.fragments:
                self.note_head(q[0] if q else None)
            return
        # After arrivals alone the jobs looked at before still cannot start (nothing freed, the
        # head's shadow time the same, the clock later): only the new ones are looked at.
        first, seen = max(1, self.scanned * self.remember), len(q)  # seen: none can start
        if self.backfill and first < min(len(q), self.inp.depth) and self.any_free():
            seen = backfill_pass(self, first)
        self.note_head(q[0] if q else None)
        self.scanned = seen

    def any_free(self) -> bool:
        return any(g.any_free() for g in self.active)

    def note_head(self, head: int | None) -> None:
        """After a pass: the head that could not start (None: nobody waits), for each group's
        GPUs idle by fragmentation."""
        need, now = (None if head is None else self.units[head]), self.env.now
        for group in self.active:
            group.note(now, head, need)

    # ------------------------------------------------------------------ arrivals and capacity

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
        first = i
        while True:
            t = arrival[i]
            while i < n and arrival[i] == t:
                if self.rank is None:
                    self.queue.append(i)
                else:
                    self.enqueue(i)
                i += 1
            # As the process did: an arrival not after the clock (now + (t - now) can pass t by
            # an ulp) joins in this same step; a later one gets its own timeout.
            if i >= n or arrival[i] > self.env.now:
                break
        self.next_arrival = i
        if i < n:
            self._arrive_after(arrival[i] - self.env.now)
        # The pass is asked for before the patience limits are set: a job whose patience is 0
        # leaves only if that pass could not start it ("burst what cannot start now"; before,
        # its limit came first and every such job left an idle cluster).
        self.wake_last()
        if self.patience is not None:
            self.patience.arrived(first, i)

    def enqueue(self, job: int) -> None:
        """A job joins the queue behind every job of its rank or a better one (its arrival is
        the latest), ahead of the worse ranks; the passes look at every job again when it goes
        anywhere but the end (backfill's memory of jobs seen assumes arrivals at the end)."""
        rank, q = self.rank, self.queue
        assert rank is not None
        r, k = rank[job], len(q)
        while k > 0 and rank[q[k - 1]] > r:
            k -= 1
        if k == len(q):
            q.append(job)
            return
        q.insert(k, job)
        self.changed()

    def waiting(self, job: int) -> bool:
        """Still queued: not started, not gone (a cutover may drop a job)."""
        s, gone = self.start[job], self.left[job]
        return bool(s != s and gone != gone)  # both NaN

    def _give_up(self, jobs: list[int]) -> None:
        """Jobs still queued when their patience runs out leave, wherever they stand (as in
        Starburst's waiting policies); the jobs behind them may now start."""
        for job in jobs:
            self.queue.remove(job)
            self.left[job] = self.env.now
        self.changed()
        if self.queue:
            self.wake_last()
        else:
            self.note_head(None)  # nobody waits: nothing is stranded

    def capacity_changes(self) -> simpy.events.ProcessGenerator:
        for i, e in enumerate(list(self.future)):
            yield self.env.timeout(e.at_h - self.env.now)
            self.changed()
            self.apply(e)
            self.next_event = i + 1
            if self.queue:
                self.wake()

    def apply(self, e: Event) -> None:
        """A delivery, or a failure or repair of a GPU or a whole server: the jobs under a
        failure stop and queue again (on servers)."""
        group = self.groups[e.group]
        if isinstance(e, Delivery):
            group.deliver(e.gpus)
            return
        assert isinstance(group, ServerGroup) or isinstance(e, GpuChange)
        now = self.env.now
        if isinstance(group, PoolGroup):
            group.deliver(capacity.units(e))  # a pool's change of units (a failure: < 0)
        elif isinstance(e, ServerDown):
            for job in group.jobs_on(e.server, self.alloc, self.where):
                self.stop_job(job)
            group.srv.server_down(e.server, now)
        elif isinstance(e, ServerUp):
            group.srv.server_up(e.server, now)
        else:
            srv = group.srv
            if self.requeue is not None and e.gpus < 0 and e.server not in srv.down:
                ours = group.allocations(self.alloc, self.where)
                hit = self.requeue.victim(
                    e.server, srv.free[e.server], srv.size - srv.out[e.server], ours
                )
                if hit is not None:
                    self.stop_job(hit)
            srv.change(e.server, e.gpus, now)


def simulate(inp: QueueInput) -> np.ndarray:
    """Start time (h) of every job; NaN for jobs not started before the horizon."""
    return simulate_queue(inp).start_h


def simulate_queue(inp: QueueInput) -> Queued:
    """What the queue did: start times, when a job gave up waiting (``inp.patience_h``), where
    each job ran (with several groups), on servers the GPU-hours idle by fragmentation and
    down whole, and what failures did to the jobs."""
    c = Cluster(inp)
    c.start_arrivals()
    if c.future:
        c.env.process(c.capacity_changes())
    c.env.run(until=inp.horizon_h)
    stranded = sum(g.close(inp.horizon_h) for g in c.groups)
    down = sum(g.down_gpu_h() for g in c.groups)
    done = requeued(c.requeue, c.end, inp.horizon_h)
    # The cutover runs before any pass at its instant, so a start at it is on the successor.
    new = None if inp.cutover is None else c.start >= inp.cutover.at_h
    group = np.asarray(c.where, np.int64) if inp.groups else None
    out = Queued(
        start_h=c.start,
        left_h=c.left if inp.patience_h is not None else None,
        stranded_gpu_h=stranded,
        requeued=done,
        servers_down_gpu_h=down,
        on_successor=new,
        group=group,
    )
    # The events still pending at the horizon hold the processes, whose frames hold the
    # cluster: a reference cycle the collector frees only when it next runs, by then with a
    # second play's state beside it (at 5 M jobs, about 0.5 GiB). Its state goes now, and
    # the patience's (a pending timeout holds it too).
    if c.patience is not None:
        vars(c.patience).clear()
    vars(c).clear()
    return out
