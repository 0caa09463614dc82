"""How a group of the cluster holds jobs: its *placement*, the object the scheduler
(``cluster.scheduler``) is given for each group, as Ciw is given its node and server classes.

- :class:`PoolGroup`: the group's GPUs as one pool of units; a job starts whenever enough are
  free, wherever they are. Failures are changes of units (a job under a failing GPU resumes in
  place, its hold stretched beforehand: ``failures.failed_runs``). In a look-ahead, releases and
  changes are taken by time and then by size, and the units beyond the head's need at its
  shadow time may be backfilled (EASY's second rule).
- :class:`ServerGroup`: servers of one model (``placement.Servers``): a job sits inside one
  server when it fits there, first fit; GPUs idle by fragmentation are counted; a failure under
  a job stops it (``requeue``). In a look-ahead, at one instant releases come before capacity
  changes, and only the shadow time counts (the second rule needs the head's future placement).

Each group has the jobs' holds on it (inf: the job cannot run there) and the span it serves in:
from its first delivery (a refresh's successor: from the cutover) until it retires.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from math import inf

from tco.simulator.cluster import capacity
from tco.simulator.cluster.capacity import Delivery, Event, GpuChange, ServerDown, ServerUp
from tco.simulator.cluster.placement import Allocation, Servers
from tco.simulator.cluster.queue_records import Floats

Running = list[tuple[float, int, int]]  # (end h, units, job), sorted
NOWHERE: Allocation = []  # a pool's allocation: its units are anywhere (never changed)
# (time h, order, 0 = a release / 1 = a capacity event, job or index, the event or None)
Change = tuple[float, int, int, int, Event | None]


class PoolGroup:
    """A group whose GPUs are one pool of units."""

    keeps_shadow = False  # the units spare at the head's shadow time change with each start
    counts_fragments = False  # a pool has no fragmentation

    def __init__(self, index: int, hold: Floats, server_gpus: int, gpus: int) -> None:
        self.index = index
        self.hold = hold
        self.free = gpus
        self.from_h, self.until_h = 0.0, inf

    def place_now(self, job: int, need: int) -> Allocation | None:
        return NOWHERE if need <= self.free else None

    def any_free(self) -> bool:
        return self.free > 0

    def take(self, alloc: Allocation, units: int) -> None:
        self.free -= units

    def release(self, alloc: Allocation, units: int) -> None:
        self.free += units

    def deliver(self, units: int) -> None:
        """Units arriving (a delivery, a repair) or leaving (a failure: < 0)."""
        self.free += units

    def look_for_room(self) -> None:
        pass

    def end_of_pass(self) -> None:
        pass

    def note(self, now: float, head: int | None, need: int | None) -> None:
        pass

    def retire(self, now: float) -> None:
        self.until_h = now

    def close(self, horizon_h: float) -> float:
        return 0.0

    def down_gpu_h(self) -> float:
        return 0.0

    def spare_with(self, gpus: int, need: int) -> int:
        """Units beyond ``need`` when ``gpus`` are free (EASY's second rule)."""
        return gpus - need

    def look_ahead(self) -> PoolLook:
        return PoolLook(self.free)


class ServerGroup:
    """A group of servers of one model, each job inside one server when it fits there."""

    keeps_shadow = True  # jobs backfilled around the head end before its shadow time
    counts_fragments = True  # GPUs idle while free but scattered over servers

    def __init__(self, index: int, hold: Floats, server_gpus: int, gpus: int) -> None:
        self.index = index
        self.hold = hold
        self.srv = Servers(server_gpus)
        self.srv.add_servers(gpus)
        self.from_h, self.until_h = 0.0, inf
        self.room: tuple[int, int] | None = None  # during a backfill pass: srv.room()
        self.closed: tuple[float, float] | None = None  # retired: (stranded, down) GPU-hours

    def place_now(self, job: int, need: int) -> Allocation | None:
        if self.hold[job] == inf:
            return None  # too large or too little memory for this model
        srv = self.srv
        if need > srv.free_gpus():  # short: no search
            return None
        if self.room is not None and not srv.may_hold(need, self.room):
            return None  # a job no server could hold is not looked for (a long queue)
        return srv.place_here(need)

    def any_free(self) -> bool:
        return self.srv.free_gpus() > 0

    def take(self, alloc: Allocation, units: int) -> None:
        self.srv.take(alloc)

    def release(self, alloc: Allocation, units: int) -> None:
        self.srv.release(alloc)

    def deliver(self, gpus: int) -> None:
        self.srv.add_servers(gpus)

    def look_for_room(self) -> None:
        self.room = self.srv.room()

    def end_of_pass(self) -> None:
        self.room = None

    def note(self, now: float, head: int | None, need: int | None) -> None:
        """The head, which no group could place, strands the free GPUs of this group if a pool
        of them would have started it (a model that cannot hold it strands none)."""
        fits = head is not None and self.hold[head] < inf
        self.srv.note(now, need if fits else None)

    def jobs_on(self, server: int, alloc: dict[int, Allocation], where: list[int]) -> list[int]:
        """The jobs with GPUs on ``server`` of this group, in the order they started."""
        ours = self.allocations(alloc, where)
        return [j for j, a in ours.items() if any(x == server for x, _ in a)]

    def allocations(self, alloc: dict[int, Allocation], where: list[int]) -> dict[int, Allocation]:
        """The jobs running on this group (of all running ``alloc``; ``where``: each job's
        group), in the order they started."""
        return {j: a for j, a in alloc.items() if where[j] == self.index}

    def retire(self, now: float) -> None:
        self.until_h = now
        self.closed = (self.srv.close(now), self.srv.down_gpu_h)

    def close(self, horizon_h: float) -> float:
        return self.closed[0] if self.closed is not None else self.srv.close(horizon_h)

    def down_gpu_h(self) -> float:
        return self.closed[1] if self.closed is not None else self.srv.down_gpu_h

    def spare_with(self, gpus: int, need: int) -> int:
        return 0

    def look_ahead(self) -> ServerLook:
        return ServerLook(self.srv)


Group = PoolGroup | ServerGroup


class PoolLook:
    """A copy of a pool's free units, for looking ahead."""

    def __init__(self, free: int) -> None:
        self.free = free

    def release(self, alloc: Allocation, units: int, need: int) -> bool:
        """A job's units back; whether ``need`` units are free then."""
        self.free += units
        return self.free >= need

    def apply(self, e: Event, need: int) -> bool:
        """A change of units; whether ``need`` units are free then."""
        self.free += capacity.units(e)
        return self.free >= need

    def spare(self, need: int) -> int:
        return self.free - need


class ServerLook:
    """A copy of a group's free GPUs per server, for looking ahead. The head could be placed
    nowhere when the look began, so after a change only the servers it touched can newly hold a
    job of one server or less."""

    def __init__(self, srv: Servers) -> None:
        self.srv = srv
        self.free = list(srv.free)
        self.out = list(srv.out)  # GPUs out per server, grown by deliveries in the look

    def release(self, alloc: Allocation, units: int, need: int) -> bool:
        """A job's GPUs back; whether a job of ``need`` GPUs could be placed then."""
        free = self.free
        for s, n in alloc:
            free[s] += n
        if need <= self.srv.size:
            return any(free[s] >= need for s, _ in alloc)
        return self.srv.place(need, free) is not None

    def apply(self, e: Event, need: int) -> bool:
        """A change applied to the copy (a server down holds nothing until it is back);
        whether a job of ``need`` GPUs could be placed then."""
        srv, free = self.srv, self.free
        if isinstance(e, Delivery):
            n = e.gpus // srv.size
            touched = list(range(len(free), len(free) + n))
            free.extend([srv.size] * n)
            self.out.extend([0] * n)
        else:
            touched = [e.server]
            if isinstance(e, ServerDown):
                free[e.server] = -srv.size
            elif isinstance(e, ServerUp):
                free[e.server] = srv.size - self.out[e.server]
            else:
                assert isinstance(e, GpuChange)
                free[e.server] += e.gpus
        if need <= srv.size:
            return any(free[s] >= need for s in touched)
        return srv.place(need, free) is not None

    def spare(self, need: int) -> int:
        return 0


def changes(
    groups: list[Group], running: Running, future: list[Event], start: int
) -> Iterator[Change]:
    """Running jobs' releases and the capacity events from ``future[start:]``, in the order a
    look-ahead applies them: by time, then on a pool by size (a release's units, an event's
    change), on servers releases first (stable: in the running order, then the events' own)."""
    # Plain tuples, compared no further than needed: (time, size, 0 = a release / 1 = an event,
    # job or index, event) on a pool; (time, 0 / 1, job or index, event) on servers.
    later = future[start:]
    if all(isinstance(g, PoolGroup) for g in groups):
        return heapq.merge(
            ((t, u, 0, job, None) for t, u, job in running),
            ((e.at_h, capacity.units(e), 1, i, e) for i, e in enumerate(later)),
        )
    return heapq.merge(
        ((t, 0, 0, job, None) for t, _, job in running),
        ((e.at_h, 1, 1, i, e) for i, e in enumerate(later)),
    )
