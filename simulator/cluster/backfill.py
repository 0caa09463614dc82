"""EASY backfill on the cluster of ``cluster.scheduler``: later jobs started around the head's
reservation (see that module's docstring for the policy), and the reservation itself, the
*shadow time*: the first instant some group could hold the head, found by applying running
jobs' releases and capacity changes in time order."""

from __future__ import annotations

from collections import deque
from math import inf
from typing import Protocol

import simpy

from tco.simulator.cluster.capacity import Event
from tco.simulator.cluster.groups import Group, changes
from tco.simulator.cluster.placement import Allocation
from tco.simulator.cluster.queue_records import QueueInput


class Cluster(Protocol):
    """What the backfill reads of the scheduler's cluster (``scheduler.Cluster``), and the one
    thing it does there: start a job."""

    env: simpy.Environment
    inp: QueueInput
    queue: deque[int]
    units: list[int]
    groups: list[Group]
    active: list[Group]
    newest_first: list[Group]
    running: list[tuple[float, int, int]]  # (end h, units, job), sorted
    future: list[Event]
    next_event: int
    cut_h: float
    where: list[int]
    alloc: dict[int, Allocation]
    head_shadow: tuple[float, int] | None
    shadow_head: int  # the job head_shadow was found for
    shadow_sure: bool  # no capacity change was due before it: the look-ahead was exact
    keeps_shadow: bool  # every active group keeps it across backfilled starts (servers)
    remember: bool

    def any_free(self) -> bool: ...

    def start_job(self, job: int, group: Group, alloc: Allocation) -> None: ...


def place_around(
    c: Cluster, job: int, shadow: float, extra: int
) -> tuple[Group, Allocation, bool] | None:
    """Where a later ``job`` may start now without delaying the head: the newest active
    group that holds it decides (it must end before ``shadow`` there, or, on a pool, use
    only the ``extra`` units); and whether it ends in time. The last group to try is not
    searched when the job could not start there anyway (placing is the costly part)."""
    need, now = c.units[job], c.env.now
    last = len(c.newest_first) - 1
    for i, group in enumerate(c.newest_first):
        in_time = now + group.hold[job] <= shadow
        usable = in_time or need <= extra
        if not usable and i == last:
            return None
        alloc = group.place_now(job, need)
        if alloc is not None:
            return (group, alloc, in_time) if usable else None
    return None


def backfill_pass(c: Cluster, first: int) -> int:
    """Later jobs started around the head's reservation; how many of the jobs looked at
    (from the front, up to ``depth``) still cannot start."""
    q = c.queue
    if c.head_shadow is None or not c.remember or c.shadow_head != q[0]:
        c.head_shadow, c.shadow_head = shadow_of(c, q[0]), q[0]
        nxt = c.future[c.next_event].at_h if c.next_event < len(c.future) else inf
        c.shadow_sure = nxt >= c.head_shadow[0]
    shadow, extra = c.head_shadow
    started: list[int] = []
    for group in c.active:
        group.look_for_room()
    now, units = c.env.now, c.units
    only = c.newest_first[0] if len(c.newest_first) == 1 else None
    for pos in range(first, min(len(q), c.inp.depth)):
        job = q[pos]
        if only is not None:  # one group (most clusters): the cheap test first, inline
            ends_in_time = now + only.hold[job] <= shadow
            if not ends_in_time and units[job] > extra:
                continue
            alloc = only.place_now(job, units[job])
            if alloc is None:
                continue
            group = only
        else:
            found = place_around(c, job, shadow, extra)
            if found is None:
                continue
            group, alloc, ends_in_time = found
        if not ends_in_time:
            extra -= units[job]
        started.append(pos)
        c.start_job(job, group, alloc)
        group.look_for_room()
        if not c.any_free():
            break
    for pos in reversed(started):
        del q[pos]
    for group in c.active:
        group.end_of_pass()
    # Jobs started around the head end before its shadow time, which stands; a pool's
    # units spare then are found anew (a start may have taken some).
    if started and not c.keeps_shadow:
        c.head_shadow = None
    return min(len(q) + len(started), c.inp.depth) - len(started)  # (not beyond)


def shadow_of(c: Cluster, head: int) -> tuple[float, int]:
    """The first instant some group could hold the head, releasing running jobs' GPUs and
    applying capacity changes in time order (those after a cutover are the successor's);
    and on a pool how many units beyond its need are free then."""
    need = c.units[head]
    looks = [g.look_ahead() for g in c.groups]
    # Only the group a change touches can newly hold the head (none could now): the
    # groups it may run on, by index.
    able = {g.index for g in c.active if g.hold[head] < inf}
    for t, _, _, job, event in changes(c.groups, c.running, c.future, c.next_event):
        if t >= c.cut_h > c.env.now:
            break  # what ends on retired servers frees nothing after the cutover
        if event is None:
            g = c.where[job]
            holds = looks[g].release(c.alloc[job], c.units[job], need)
        else:
            g = event.group
            holds = looks[g].apply(event, need)
        if holds and g in able:
            return t, looks[g].spare(need)
    return after_cutover(c, need)


def after_cutover(c: Cluster, need: int) -> tuple[float, int]:
    """A shadow time that only the successor brings: its instant if it holds ``need``."""
    cut = c.inp.cutover
    if cut is None or c.env.now >= cut.at_h or need > cut.gpus:
        return inf, 0
    return cut.at_h, c.groups[1].spare_with(cut.gpus, need)
