"""Jobs stopped by a GPU failure and queued again (owned clusters placed on servers).

When a GPU of a server fails, it is one of the server's GPUs in service, each alike: it is under
a running job with probability (busy GPUs / GPUs in service) of that server, and then under a
given job in proportion to that job's GPUs there. The job stops at once, keeps the work up to
its last checkpoint (``interruptions.segment``), gives its GPUs back and joins the queue again
at its place by arrival (Slurm's requeue keeps the job's priority); when it starts again it
first spends the restart overhead. Its hours queued in between are a *gap*: its GPUs are not
held then (the ledger's busy hours leave gaps out). The failures are the cluster's own outage
events (``failures.outages``), not drawn apart as when jobs resume in place on a pool.
"""

from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from tco.simulator.cluster.interruptions import Checkpointing, segment
from tco.simulator.cluster.placement import Allocation
from tco.simulator.cluster.queue_records import Floats, Requeued


@dataclass
class Requeue:
    """Per job: work left (run hours), the restart to spend when it next starts, when its
    current hold began, interruptions, GPU-hours lost; the gaps between holds.

    ``base`` is each job's whole run where it would run (the group's own holds, shared with it
    until a cutover changes them); a job's work left is its base until a failure stops it or it
    starts on another group, and is kept apart only then (``left``): at 5 M jobs a column a job
    is 40 MB, and most jobs are never stopped."""

    checkpoints: Checkpointing
    base: Floats
    rng: np.random.Generator
    work_left: dict[int, float] = field(default_factory=dict)  # where it is not ``base``
    restart: dict[int, float] = field(default_factory=dict)  # stopped jobs' (others: none)
    began: Floats = field(default_factory=lambda: array("d"))  # each job's, as it last started
    queued_since: dict[int, float] = field(default_factory=dict)
    interruptions: dict[int, int] = field(default_factory=dict)
    lost_gpu_h: dict[int, float] = field(default_factory=dict)
    gaps: list[tuple[int, float, float]] = field(default_factory=list)
    # Several groups (server models): the group each job's work left is counted in, and every
    # group's holds, to rescale the work when it restarts on another (None: one group).
    basis: list[int] | None = None
    holds: list[Floats] = field(default_factory=list)
    shared: bool = True  # ``base`` is still the group's own column (copied before a change)

    def __post_init__(self) -> None:
        self.began = array("d", bytes(8 * len(self.base)))  # typed: 8 bytes a job

    def left(self, job: int) -> float:
        """The job's work left, in hours of the group it is counted in."""
        return self.work_left.get(job, self.base[job])

    def on(self, job: int, group: int) -> None:
        """The job (re)starts on ``group``: its work left, counted in hours of the group it
        last ran on, rescaled by the two groups' run times."""
        if self.basis is None:
            return
        b = self.basis[job]
        if b != group:
            self.work_left[job] = self.left(job) * self.holds[group][job] / self.holds[b][job]
            self.basis[job] = group

    def hold_h(self, job: int, now: float) -> float:
        """The job (re)starts now: how long it will hold its GPUs, if nothing fails."""
        if job in self.queued_since:
            self.gaps.append((job, self.queued_since.pop(job), now))
        self.began[job] = now
        return self.restart.get(job, 0.0) + self.left(job)

    def victim(
        self, server: int, free: int, in_service: int, alloc: dict[int, Allocation]
    ) -> int | None:
        """The running job under the GPU of ``server`` that failed, or None if it was idle."""
        busy = in_service - max(free, 0)
        if busy <= 0 or self.rng.random() >= busy / in_service:
            return None
        jobs = [(j, n) for j, a in alloc.items() for s, n in a if s == server]
        weights = np.array([n for _, n in jobs], dtype=np.float64)
        return jobs[int(self.rng.choice(len(jobs), p=weights / weights.sum()))][0]

    def stop(self, job: int, now: float, gpus: int) -> None:
        """The job stops: the work up to its last checkpoint is kept."""
        held = now - self.began[job]
        left = self.left(job)
        saved, lost = segment(held, self.restart.get(job, 0.0), left, self.checkpoints)
        self.work_left[job] = left - saved
        self.restart[job] = self.checkpoints.restart_h
        self.interruptions[job] = self.interruptions.get(job, 0) + 1
        self.lost_gpu_h[job] = self.lost_gpu_h.get(job, 0.0) + lost * gpus
        self.queued_since[job] = now

    def to_successor(self, hold: Floats, holding: set[int]) -> None:
        """A refresh's cutover: every job but those ``holding`` GPUs now (they end on the retired
        servers) will run on the successor, ``hold`` its run there; the work left of one stopped
        by a failure shrinks or grows in proportion."""
        if self.shared:  # the retired group's own column: changed here, so copied first
            self.base, self.shared = array("d", self.base), False
        for j, new in enumerate(hold):
            if j in holding:
                continue
            if j in self.interruptions:
                self.work_left[j] = self.left(j) * (new / self.base[j] if self.base[j] > 0 else 1.0)
            else:
                self.work_left.pop(j, None)  # its base, set below
            self.base[j] = new

    def close(self, horizon_h: float) -> None:
        """Jobs still queued again at the horizon: their gap runs to the horizon."""
        for job, since in self.queued_since.items():
            self.gaps.append((job, since, horizon_h))
        self.queued_since.clear()


def back_in_line(queue: deque[int], job: int, rank: list[int] | None = None) -> None:
    """A stopped job queues again at its place by arrival (jobs are numbered by arrival), within
    its rank where jobs have ranks (``rank[job]``: lower first)."""
    if rank is None:
        at = next((i for i, other in enumerate(queue) if other > job), len(queue))
    else:
        key = (rank[job], job)
        at = next((i for i, o in enumerate(queue) if (rank[o], o) > key), len(queue))
    queue.insert(at, job)


def requeued(rq: Requeue | None, end_h: np.ndarray, horizon_h: float) -> Requeued | None:
    """What the failures did to the jobs: when each ended (``end_h``, the scheduler's; a job
    queued again and not restarted ends after the horizon), interruptions, work lost, gaps."""
    if rq is None:
        return None
    end = end_h.copy()
    for job in rq.queued_since:
        end[job] = horizon_h + rq.left(job)
    rq.close(horizon_h)
    n = len(end)
    hits, lost = np.zeros(n, np.int64), np.zeros(n)
    for job, k in rq.interruptions.items():
        hits[job] = k
        lost[job] = rq.lost_gpu_h[job]
    return Requeued(end, hits, lost, rq.gaps)
