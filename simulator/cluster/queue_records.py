"""What the scheduler (``cluster.scheduler``) takes and gives: the jobs, capacity and policy
of one queue; start times and what failures, fragmentation and a cutover did to the jobs."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np

from tco.simulator.cluster.interruptions import Checkpointing

Floats: TypeAlias = "array[float]"  # a job's figure per job, typed: 8 bytes each


def floats(values: np.ndarray) -> Floats:
    """A column of a queue's jobs as the scheduler reads it, one at a time: 8 bytes a job (a
    list of Python floats took 32; for 5 million jobs the difference is 0.9 GiB), each read a
    Python float as from a list."""
    out = array("d")
    out.frombytes(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    return out


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
    # A queued job leaves after waiting this long (hybrid burst): one figure, or one per job.
    patience_h: float | np.ndarray | None = None
    # Placement on servers of this many GPUs (0: one pool). Then ``capacity`` adds whole servers
    # and ``server_changes`` (time h, server, GPUs +/-) are failures and repairs of one server's
    # GPUs (servers numbered in the order capacity adds them).
    server_gpus: int = 0
    server_changes: list[tuple[float, int, int]] = field(default_factory=list)
    # On servers: a job under a failing GPU stops and queues again (simulator/cluster/requeue.py),
    # with these checkpoints; ``seed`` draws which job a failure hits.
    requeue: Checkpointing | None = None
    seed: int = 0
    # On servers: whole servers down (down h, server, back h), their jobs stopped and requeued.
    server_outages: list[tuple[float, int, float]] = field(default_factory=list)
    # Every server replaced by a successor generation at one instant (owned ``refresh:``).
    cutover: Cutover | None = None
    # Servers of other models beside these (a mixed cluster): placement on servers, each job on
    # one model; ``hold_h`` is then the hold on the queue's own servers (inf: none).
    groups: list[Group] = field(default_factory=list)
    # Per job, its rank in the queue (lower first: a team's priority; ties by arrival); None:
    # first come, first served.
    priority: np.ndarray | None = None
    # Fair share among teams (``cluster.fair_share``): per job its team's index, each team's
    # shares and the half-life of usage (h); None: no fair share.
    fair_share: FairShareInput | None = None


@dataclass(frozen=True)
class FairShareInput:
    """The teams a fair-share queue weighs: ``team`` per job (an index), ``shares`` per team,
    and the half-life of their usage in hours."""

    team: np.ndarray
    shares: tuple[float, ...]
    half_life_h: float


@dataclass(frozen=True)
class Cutover:
    """At ``at_h`` the servers in service retire: the jobs running on them end there, no job
    starts there again, and ``gpus`` GPUs of the successor (servers of ``server_gpus``; 0 on a
    pool) take their place. A job starting from then on holds ``hold_h`` (its run on the
    successor); a queued job needing more than ``gpus`` never starts (with patience it leaves
    then). The queue's own capacity changes and outages are the old servers' and end at
    ``at_h``; the successor's are here (its servers numbered from 0), with ``changes`` on a pool.
    """

    at_h: float
    gpus: int
    server_gpus: int
    hold_h: np.ndarray
    changes: list[tuple[float, int]] = field(default_factory=list)
    server_changes: list[tuple[float, int, int]] = field(default_factory=list)
    server_outages: list[tuple[float, int, float]] = field(default_factory=list)


@dataclass(frozen=True)
class Group:
    """More servers of another model beside the queue's own (a mixed cluster): GPUs per
    server, each job's hold on them (inf: it cannot run there) and their deliveries (time h,
    GPUs). A job runs on the servers of one model, the newest group first when it fits there."""

    server_gpus: int
    hold_h: np.ndarray
    capacity: list[tuple[float, int]]
    # Its servers' failures, as ``QueueInput``'s (servers numbered within the group).
    server_changes: list[tuple[float, int, int]] = field(default_factory=list)
    server_outages: list[tuple[float, int, float]] = field(default_factory=list)


@dataclass(frozen=True)
class Queued:
    """What the queue did: start time (h) of every job and when a job gave up waiting (NaN
    where it did not), and on servers the GPU-hours left idle by fragmentation."""

    start_h: np.ndarray
    left_h: np.ndarray | None  # when each job gave up waiting (None: no patience)
    stranded_gpu_h: float = 0.0
    requeued: Requeued | None = None  # when jobs stopped by failures queue again
    servers_down_gpu_h: float = 0.0  # GPU-hours of servers down whole
    on_successor: np.ndarray | None = None  # with a cutover: the jobs started after it
    group: np.ndarray | None = None  # with groups: where each job ran (0: own, -1: nowhere)


@dataclass(frozen=True)
class Requeued:
    """Jobs stopped by failures and queued again: per job its final end (h), interruptions and
    GPU-hours of work lost; the gaps (job, from h, to h) when it held no GPUs."""

    end_h: np.ndarray
    interruptions: np.ndarray
    lost_gpu_h: np.ndarray
    gaps: list[tuple[int, float, float]]
