"""The scheduler's input (``queue_records.QueueInput``) as the model runs it: the groups of
servers (the queue's own, a refresh's successor, other models beside them), every capacity event
in the order it is applied, and the requeue of jobs stopped by failures."""

from __future__ import annotations

import numpy as np

from tco.simulator.cluster import capacity
from tco.simulator.cluster.capacity import Event
from tco.simulator.cluster.groups import Group, PoolGroup, ServerGroup
from tco.simulator.cluster.queue_records import QueueInput, floats
from tco.simulator.cluster.requeue import Requeue


def groups_of(inp: QueueInput) -> list[Group]:
    """Group 0 (the queue's own servers), then a refresh's successor or the other models."""
    initial = sum(u for t, u in inp.capacity if t <= 0)
    make = ServerGroup if inp.server_gpus else PoolGroup
    cut = inp.cutover
    own = make(0, floats(inp.hold_h), inp.server_gpus, initial)
    if cut is not None:
        own.until_h = cut.at_h
        successor = make(1, floats(cut.hold_h), cut.server_gpus, 0)
        successor.from_h = cut.at_h
        return [own, successor]
    others: list[Group] = [
        ServerGroup(k, floats(g.hold_h), g.server_gpus, sum(u for t, u in g.capacity if t <= 0))
        for k, g in enumerate(inp.groups, start=1)
    ]
    return [own, *others]


def events_of(inp: QueueInput) -> list[Event]:
    """Every group's capacity events in the order they are applied; a refresh's cutover ends
    the old servers' events and starts its successor's."""
    on_pool = not inp.server_gpus
    own = capacity.events(
        0,
        [(t, u) for t, u in inp.capacity if t > 0] if not on_pool else [],
        inp.server_changes,
        inp.server_outages,
        inp.capacity if on_pool else None,
    )
    cut = inp.cutover
    if cut is not None:
        mine = sorted(own, key=capacity.order)
        new = capacity.events(1, [], cut.server_changes, cut.server_outages, cut.changes or None)
        return [e for e in mine if e.at_h < cut.at_h] + [
            e for e in sorted(new, key=capacity.order) if e.at_h >= cut.at_h
        ]
    out = own
    for k, g in enumerate(inp.groups, start=1):
        out += capacity.events(k, g.capacity, g.server_changes, g.server_outages)
    return sorted(out, key=capacity.order)


def requeue_of(inp: QueueInput, groups: list[Group]) -> Requeue:
    """Jobs stopped by failures queue again; their work left is counted in hours of the group
    they would run fastest on (one group: its own), rescaled when they restart elsewhere."""
    rng = np.random.default_rng(inp.seed)
    assert inp.requeue is not None
    if len(groups) == 1 or inp.cutover is not None:
        return Requeue(inp.requeue, groups[0].hold, rng)  # the group's column, shared
    table = np.vstack([np.asarray(g.hold) for g in groups])
    basis = np.argmin(table, axis=0)
    rq = Requeue(inp.requeue, floats(table[basis, np.arange(table.shape[1])]), rng, shared=False)
    rq.basis, rq.holds = basis.tolist(), [g.hold for g in groups]
    return rq
