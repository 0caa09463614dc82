"""A cluster of mixed server models (GPU generations side by side), as a variant of the SimPy
scheduler (``simulator.scheduler``).

The queue's own servers are group 0; each ``QueueInput.groups`` entry adds servers of another
model, delivered at their own times. A job runs on servers of one model only, placed first fit
inside the group, and its hold is its run on that model. The head of the queue tries the newest
group first (the last in the list: usually the fastest GPUs), then the older ones. With backfill,
a later job starts where it fits now if it ends before the head's shadow time, the first instant
some group could hold the head (releases and deliveries in time order). Fragmentation is
counted per model: while the head waits, a model that could hold it and has as many GPUs free,
scattered over its servers, strands them.

Failures are each group's own (``server_changes``, ``server_outages``, servers numbered within
the group): a job under a failing GPU or on a server going down stops and queues again at its
place by arrival (``simulator.requeue``); its work left is kept in hours of the model it last
ran on and rescaled by the two models' run times when it restarts on another. A cutover is not
modelled here (the owned kind refuses a refresh with a mixed cluster).
"""

from __future__ import annotations

import bisect
import heapq
from math import inf

import numpy as np
import simpy

from tco.simulator.cluster.placement import Allocation, Servers
from tco.simulator.cluster.queue_records import SERVER_DOWN, SERVER_UP, Queued, QueueInput
from tco.simulator.cluster.requeue import back_in_line, requeued
from tco.simulator.cluster.scheduler import _Pool, _run, look_ahead

GROUP = 1 << 32  # a failure of group k's server s is the capacity event of server k x GROUP + s


class _MixedPool(_Pool):
    def __init__(self, inp: QueueInput) -> None:
        super().__init__(inp)
        assert self.servers is not None, "a mixed cluster is placed on servers"
        self.groups: list[Servers] = [self.servers]
        self.holds = [self.hold] + [g.hold_h.tolist() for g in inp.groups]
        for k, g in enumerate(inp.groups, start=1):
            srv = Servers(g.server_gpus)
            srv.add_servers(sum(u for t, u in g.capacity if t <= 0))
            self.groups.append(srv)
            # A delivery to group k is (time, GPUs, -1 - k): the queue's own are -1.
            self.future_capacity += [(t, u, -1 - k) for t, u in g.capacity if t > 0]
            at = k * GROUP
            self.future_capacity += [(t, u, at + s) for t, s, u in g.server_changes]
            self.future_capacity += [(t, SERVER_DOWN, at + s) for t, s, _ in g.server_outages]
            self.future_capacity += [(t, SERVER_UP, at + s) for _, s, t in g.server_outages]
        self.future_capacity.sort()
        self.group = np.full(len(inp.arrival_h), -1, np.int64)
        if self.requeue is not None:  # work left in hours of the fastest model, to begin with
            table = np.vstack([np.asarray(h) for h in self.holds])
            self.basis = np.argmin(table, axis=0)
            self.requeue.work_left = table[self.basis, np.arange(table.shape[1])].tolist()
            self.requeue.base = list(self.requeue.work_left)

    def place_any(self, job: int, frees: list[list[int]] | None = None) -> tuple[int, Allocation]:
        """Where ``job`` starts now (or on ``frees``, copies for looking ahead): the newest group
        that can hold it, first fit inside; (-1, []) when none can."""
        need = self.units[job]
        for g in range(len(self.groups) - 1, -1, -1):
            if self.holds[g][job] == inf:
                continue  # too large or too little memory for this model
            srv = self.groups[g]
            if frees is None and need > srv.free_gpus():
                continue
            alloc = srv.place(need, None if frees is None else frees[g])
            if alloc is not None:
                return g, alloc
        return -1, []

    def start_on(self, job: int, g: int, alloc: Allocation) -> None:
        now, rq = self.env.now, self.requeue
        if rq is None:
            hold = self.holds[g][job]
            self.start[job] = now
        else:
            b = int(self.basis[job])
            if b != g:  # on another model than its work left is counted in
                rq.work_left[job] *= self.holds[g][job] / self.holds[b][job]
                self.basis[job] = g
            hold = rq.hold_h(job, now)
            if np.isnan(self.start[job]):  # queued again: it keeps its first start
                self.start[job] = now
        self.group[job] = g
        self.groups[g].take(alloc)
        self.alloc[job] = alloc
        done = self.env.timeout(hold, value=job)
        done.callbacks.append(self.on_finish)
        if rq is not None:
            self.finish_ev[job], self.end[job] = done, now + hold
        if self.backfill:
            self.ends[job] = now + hold
            bisect.insort(self.running, (now + hold, self.units[job], job))

    def on_finish(self, ev: simpy.Event) -> None:
        job = self.ended(ev)
        if job is None:
            return
        self.off(job)
        if self.queue:
            self.wake()

    def off(self, job: int) -> None:
        """The job gives its GPUs back (it ended, or a failure stopped it)."""
        self.groups[int(self.group[job])].release(self.alloc.pop(job))
        if self.backfill:
            entry = (self.ends.pop(job), self.units[job], job)
            del self.running[bisect.bisect_left(self.running, entry)]

    def stop_job(self, job: int) -> None:
        """A failure under the job: it stops and queues again from its last checkpoint."""
        assert self.requeue is not None
        self.off(job)
        del self.finish_ev[job]
        self.requeue.stop(job, self.env.now, self.units[job])
        back_in_line(self.queue, job)
        self.wake()

    def schedule_pass(self, _: simpy.Event) -> None:
        self.pass_pending = False
        q = self.queue
        while q:
            g, alloc = self.place_any(q[0])
            if g < 0:
                break
            self.start_on(q.popleft(), g, alloc)
        if self.backfill and len(q) > 1:
            now, shadow = self.env.now, self.mixed_shadow(q[0])
            started = []
            for pos in range(1, min(len(q), self.inp.depth)):
                job = q[pos]
                g, alloc = self.place_any(job)
                if g >= 0 and now + self.holds[g][job] <= shadow:
                    started.append(pos)
                    self.start_on(job, g, alloc)
            for pos in reversed(started):
                del q[pos]
        self.note_head(q[0] if q else None)

    def note_head(self, head: int | None) -> None:
        """Each model's GPUs idle by fragmentation: the head, which no model could place, would
        have started on its free GPUs as one pool (a model that cannot hold it strands none)."""
        for g, srv in enumerate(self.groups):
            fits = head is not None and self.holds[g][head] < inf
            srv.note(self.env.now, self.units[head] if fits and head is not None else None)

    def mixed_shadow(self, head: int) -> float:
        """The first instant some group could hold the head, releasing running jobs' GPUs and
        adding deliveries in time order."""
        frees = [list(s.free) for s in self.groups]
        changes = heapq.merge(
            ((t, 0, job) for t, _, job in self.running),
            ((t, 1, i) for i, (t, _, _) in enumerate(self.future_capacity)),
        )
        for t, what, i in changes:
            if what == 0:
                for s, n in self.alloc[i]:
                    frees[int(self.group[i])][s] += n
            else:
                _, u, s = self.future_capacity[i]
                if s < 0:
                    size = self.groups[-1 - s].size
                    frees[-1 - s].extend([size] * (u // size))
                else:  # a failure or repair
                    g, server = divmod(s, GROUP)
                    look_ahead(self.groups[g], frees[g], server, u)
            if self.place_any(head, frees)[0] >= 0:
                return t
        return inf

    def deliveries(self) -> simpy.events.ProcessGenerator:
        for t, u, s in list(self.future_capacity):
            yield self.env.timeout(t - self.env.now)
            if s < 0:
                self.groups[-1 - s].add_servers(u)
            else:
                g, server = divmod(s, GROUP)
                ours = {j: a for j, a in self.alloc.items() if self.group[j] == g}
                self.server_event(self.groups[g], server, u, ours)
            self.future_capacity.remove((t, u, s))
            if self.queue:
                self.wake()


def simulate_mixed(inp: QueueInput) -> Queued:
    """Start time (h) of every job, where it ran (``Queued.group``) and when a job gave up
    waiting, on a cluster of mixed server models."""
    if inp.cutover is not None:
        raise ValueError("a mixed cluster takes no cutover")
    pool = _run(_MixedPool(inp), inp.horizon_h)
    stranded = sum(srv.close(inp.horizon_h) for srv in pool.groups)
    down = sum(srv.down_gpu_h for srv in pool.groups)
    done = requeued(pool.requeue, pool.end, inp.horizon_h)
    return Queued(pool.start, pool.left, stranded, done, down, group=pool.group)
