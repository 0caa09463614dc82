"""Jobs queued on an owned cluster: the scheduler's input from the option, failures and their
effect on jobs, and the job runs that come out.

With failures, jobs on servers (``placement: servers``) are stopped by the failing GPU under
them and queued again (``simulator.requeue``); on a pool they resume in place, their holds
stretched by interruptions drawn apart from the outages (``failures.failed_runs``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tco.simulator.cluster.failures import (
    FailedRuns,
    Failures,
    Outages,
    failed_runs,
    outages,
    server_outages,
)
from tco.simulator.cluster.scheduler import Cutover, QueueInput, simulate_queue
from tco.simulator.kinds.owned.generations import Successor
from tco.simulator.kinds.owned.parts import Delivery
from tco.simulator.kinds.runs import REASON_SIZE, Gaps, JobRuns, feasibility
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware, run_hours


class Queueing(Protocol):
    """What of an owned option the queue reads."""

    @property
    def failures(self) -> Failures | None: ...
    @property
    def scheduler(self) -> str: ...
    @property
    def backfill_depth(self) -> int: ...
    @property
    def placement(self) -> str: ...


def queue(
    jobs: Jobs,
    o: Queueing,
    hw: Hardware,
    deliveries: Sequence[Delivery],
    horizon_h: float,
    rng: np.random.Generator,
    patience_h: np.ndarray | None,
    successor: Successor | None = None,
) -> tuple[JobRuns, np.ndarray]:
    """The jobs queued on the cluster (on a ``successor`` from its cutover); when each gave up."""
    gen = _Generations.of(jobs, hw, sum(d.servers for d in deliveries), successor)
    run, reason, text, arrival = gen.run, gen.reason, gen.text, gen.arrival
    slots = [(d.delivery_h, d.servers) for d in deliveries if d.delivery_h < horizon_h]
    capacity = [(t, n * hw.gpus_per_unit) for t, n in slots]
    f = o.failures
    requeue = f is not None and o.placement == "servers"
    brk = _Breakdowns.of(slots, f, horizon_h, rng, hw, successor)
    hit, hit_new = gen.resumed(jobs, None if requeue else f, rng)
    hold = hit.hold_h if hit is not None else run
    start = np.full(len(jobs), np.nan)
    end = start + hold
    interruptions, lost = (None, None) if hit is None else (hit.interruptions, hit.lost_gpu_h)
    gaps: Gaps | None = None
    patience_h, left = gen.patience(patience_h, jobs)
    idx = np.nonzero((reason == "") & np.isnan(left))[0]
    idx = idx[np.argsort(arrival[idx], kind="stable")]  # the scheduler takes them by arrival
    stranded = 0.0
    if len(idx) and capacity:
        inp = queue_input(
            jobs, hold, idx, capacity, brk.out, brk.nodes, horizon_h, patience_h, o, hw
        )
        new_hold = gen.run_new if hit_new is None else hit_new.hold_h
        cut = gen.cutover(idx, o, brk, new_hold)
        inp = dataclasses.replace(inp, arrival_h=arrival[idx], cutover=cut)
        if requeue and f is not None:
            inp = dataclasses.replace(inp, requeue=f.checkpoints(), seed=int(rng.integers(2**63)))
        q = simulate_queue(inp)
        start[idx], left[idx], stranded = q.start_h, q.left_h, q.stranded_gpu_h
        brk = dataclasses.replace(brk, nodes_down_h=q.servers_down_gpu_h) if requeue else brk
        hold = gen.held(hold, idx, q.on_successor, new_hold)
        end = start + hold
        if hit is not None and hit_new is not None and q.on_successor is not None:
            interruptions, lost = _on_successor(hit, hit_new, idx[q.on_successor])
        if q.requeued is not None:
            r = q.requeued
            end[idx] = np.where(np.isnan(q.start_h), np.nan, r.end_h)
            interruptions, lost = np.zeros(len(jobs), np.int64), np.zeros(len(jobs))
            interruptions[idx], lost[idx] = r.interruptions, r.lost_gpu_h
            gaps = Gaps.of([(int(idx[j]), a, b) for j, a, b in r.gaps])
    elif patience_h is not None:  # no GPUs before the horizon: everyone gives up
        left[idx] = np.minimum(jobs.arrival_h[idx] + patience_h[idx], horizon_h)
    runs = JobRuns(
        run_h=hold,
        gpus=jobs.gpus,
        units=jobs.gpus.copy(),
        start_h=start,
        end_h=end,
        reason=gen.reason_after(start, left),
        reason_text=text,
        interruptions=interruptions,
        lost_gpu_h=lost,
        failures=brk.failures,
        node_failures=brk.node_failures,
        rack_failures=brk.racks,
        unavailable_gpu_h=brk.down_gpu_h + brk.nodes_down_h,
        fragmented_gpu_h=stranded,
        gaps=gaps,
    )
    return runs, left


def _on_successor(
    hit: FailedRuns, new: FailedRuns, on: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Interruptions and work lost per job, the jobs ``on`` the successor counted there."""
    hits, lost = hit.interruptions.copy(), hit.lost_gpu_h.copy()
    hits[on], lost[on] = new.interruptions[on], new.lost_gpu_h[on]
    return hits, lost


@dataclass(frozen=True)
class _Generations:
    """Per job: its run on the servers bought and on a refresh's successor, why it cannot run
    on either, and when it joins the queue (a job only the successor can hold: at the cutover)."""

    run: np.ndarray  # on the servers bought (on the successor for a job only it can hold)
    reason: np.ndarray
    text: dict[str, str]
    arrival: np.ndarray
    successor: Successor | None
    run_new: np.ndarray
    early: np.ndarray  # jobs only the servers bought can hold (more GPUs than the successor)

    @classmethod
    def of(cls, jobs: Jobs, hw: Hardware, servers: int, s: Successor | None) -> _Generations:
        run = run_hours(jobs, hw)
        total = servers * hw.gpus_per_unit
        reason, text = feasibility(jobs, hw, total, "GPUs this cluster will ever have")
        if s is None:
            return cls(run, reason, text, jobs.arrival_h, None, run, np.zeros(len(jobs), bool))
        run_new = run_hours(jobs, s.hardware)
        new_reason, text = feasibility(jobs, s.hardware, s.gpus, "GPUs of the successor")
        later = (reason != "") & (new_reason == "")
        early = (reason == "") & (new_reason != "")  # more GPUs than the successor has
        if early.any():
            text[REASON_SIZE] = (
                f"needs more GPUs than the {s.gpus} of the successor and did not start on the"
                f" {total} before the refresh"
            )
        arrival = np.where(later, np.maximum(jobs.arrival_h, s.cutover_h), jobs.arrival_h)
        run = np.where(later, run_new, run)
        return cls(run, np.where(early, "", new_reason), text, arrival, s, run_new, early)

    def resumed(
        self, jobs: Jobs, f: Failures | None, rng: np.random.Generator
    ) -> tuple[FailedRuns | None, FailedRuns | None]:
        """Jobs that resume in place (failures on a pool): each one's run stretched by its
        interruptions, on the servers bought and, by draws of its run there, on the successor."""
        if f is None:
            return None, None
        hit = failed_runs(jobs.gpus, self.run, f, rng)
        new = None if self.successor is None else failed_runs(jobs.gpus, self.run_new, f, rng)
        return hit, new

    def reason_after(self, start: np.ndarray, left: np.ndarray) -> np.ndarray:
        """Why each job cannot run, once the queue has run: a job only the servers bought can
        hold cannot run if it had not started by the cutover (nor left to burst)."""
        never = self.early & np.isnan(start) & np.isnan(left)
        return np.where(never, REASON_SIZE, self.reason) if never.any() else self.reason

    def patience(
        self, patience_h: np.ndarray | None, jobs: Jobs
    ) -> tuple[np.ndarray | None, np.ndarray]:
        """Patience counts from arrival, but a job only the successor holds joins the queue at
        the cutover: what is left of it then, and when (NaN: it did not) a job's patience ran
        out before it could join (a hybrid bursts it then)."""
        gone = np.full(len(jobs), np.nan)
        if patience_h is None or self.successor is None:
            return patience_h, gone
        rest = patience_h - (self.arrival - jobs.arrival_h)
        out = rest < 0
        gone[out] = jobs.arrival_h[out] + patience_h[out]
        return np.maximum(rest, 0.0), gone

    def cutover(
        self, idx: np.ndarray, o: Queueing, brk: _Breakdowns, new_hold: np.ndarray
    ) -> Cutover | None:
        """The cutover for jobs ``idx``, with the successor's own failures; ``new_hold``: each
        job's hold on the successor."""
        s = self.successor
        if s is None:
            return None
        gps = s.hardware.gpus_per_unit
        cut = Cutover(s.cutover_h, s.gpus, gps if o.placement == "servers" else 0, new_hold[idx])
        if brk.new_out is None:
            return cut
        if o.placement == "servers":
            return dataclasses.replace(
                cut, server_changes=brk.new_out.on_servers(gps), server_outages=brk.new_nodes
            )
        spells = [c for a, _, b in brk.new_nodes for c in ((a, -gps), (b, gps))]
        return dataclasses.replace(cut, changes=brk.new_out.changes + spells)

    def held(
        self, hold: np.ndarray, idx: np.ndarray, new: np.ndarray | None, new_hold: np.ndarray
    ) -> np.ndarray:
        """``hold`` with the jobs that started on the successor holding ``new_hold``."""
        if new is None:
            return hold
        out = hold.copy()
        out[idx] = np.where(new, new_hold[idx], hold[idx])
        return out


@dataclass(frozen=True)
class _Breakdowns:
    """The cluster's failures: GPUs out for repair and servers down whole, those of the servers
    bought until a refresh's cutover and the successor's after it, with their counts."""

    out: Outages | None
    nodes: list[tuple[float, int, float]]
    new_out: Outages | None
    new_nodes: list[tuple[float, int, float]]
    failures: int = 0
    node_failures: int = 0
    racks: int = 0
    down_gpu_h: float = 0.0  # GPUs in repair
    # Servers down whole (the scheduler's count replaces it on servers: there a GPU already in
    # repair when its server goes down is not counted twice).
    nodes_down_h: float = 0.0

    @classmethod
    def of(
        cls,
        slots: list[tuple[float, int]],
        f: Failures | None,
        horizon_h: float,
        rng: np.random.Generator,
        hw: Hardware,
        s: Successor | None,
    ) -> _Breakdowns:
        if f is None:
            return cls(None, [], None, [])
        until = horizon_h if s is None else min(horizon_h, s.cutover_h)
        gps = hw.gpus_per_unit
        out = outages([(t, n * gps) for t, n in slots], f, until, rng)
        nodes, node_failures, racks = server_outages(slots, f, until, rng)
        down = sum(gps * (min(b, until) - a) for a, _, b in nodes)
        if s is None or s.cutover_h >= horizon_h:
            return cls(out, nodes, None, [], out.failures, node_failures, racks,
                       out.down_gpu_h, down)  # fmt: skip
        new_out = outages([(s.cutover_h, s.gpus)], f, horizon_h, rng)
        new_nodes, more_nodes, more_racks = server_outages(
            [(s.cutover_h, s.servers)], f, horizon_h, rng
        )
        down += sum(s.hardware.gpus_per_unit * (min(b, horizon_h) - a) for a, _, b in new_nodes)
        return cls(
            out, nodes, new_out, new_nodes, out.failures + new_out.failures,
            node_failures + more_nodes, racks + more_racks,
            out.down_gpu_h + new_out.down_gpu_h, down,
        )  # fmt: skip


def queue_input(
    jobs: Jobs,
    hold: np.ndarray,
    idx: np.ndarray,
    capacity: list[tuple[float, int]],
    out: Outages | None,
    nodes: list[tuple[float, int, float]],
    horizon_h: float,
    patience_h: np.ndarray | None,
    o: Queueing,
    hw: Hardware,
) -> QueueInput:
    """The scheduler's input for jobs ``idx``. On servers, failures name their server; as a
    pool, they are plain capacity changes (a server down: its GPUs leave and come back)."""
    gps = hw.gpus_per_unit
    on_servers = o.placement == "servers"
    changes = [] if out is None else out.changes
    if not on_servers:
        changes = changes + [c for a, _, b in nodes for c in ((a, -gps), (b, gps))]
    return QueueInput(
        jobs.arrival_h[idx],
        jobs.gpus[idx],
        hold[idx],
        capacity if on_servers else capacity + changes,
        horizon_h,
        o.scheduler,
        o.backfill_depth,
        None if patience_h is None else patience_h[idx],
        server_gpus=gps if on_servers else 0,
        server_changes=out.on_servers(gps) if on_servers and out is not None else [],
        server_outages=nodes if on_servers else [],
    )
