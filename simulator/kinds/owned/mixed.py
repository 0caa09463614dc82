"""Jobs queued on an owned cluster of several server models (``Tranche.server``): each job runs
on one model, the newest that can hold it when it fits there (``simulator.mixed``), at that
model's speed. With ``failures:``, each model's GPUs, servers and racks fail at the option's
rates, and the jobs under them queue again from their last checkpoint."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tco.simulator.cluster.failures import Failures, outages, server_outages
from tco.simulator.cluster.interruptions import Checkpointing
from tco.simulator.cluster.queue_records import Group, QueueInput
from tco.simulator.cluster.scheduler import simulate_queue
from tco.simulator.kinds.owned.parts import Delivery
from tco.simulator.kinds.owned.queue import Queueing
from tco.simulator.kinds.runs import Gaps, JobRuns, feasibility
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware, run_hours


def queue(
    jobs: Jobs,
    o: Queueing,
    hws: list[Hardware],
    deliveries: Sequence[Delivery],
    horizon_h: float,
    rng: np.random.Generator,
    patience_h: np.ndarray | None,
) -> tuple[JobRuns, np.ndarray]:
    """The jobs queued on a cluster whose generation ``g`` runs on ``hws[g]``; when each gave up
    waiting after ``patience_h`` (NaN: it did not)."""
    n = len(jobs)
    holds, capacity, reason, text = _models(jobs, hws, deliveries, horizon_h)
    brk = _Breakdowns.of(o.failures, hws, capacity, horizon_h, rng, n)
    runnable = reason == ""
    start, left = np.full(n, np.nan), np.full(n, np.nan)
    where = np.full(n, -1, np.int64)
    stranded = 0.0
    idx = np.nonzero(runnable)[0]
    end: np.ndarray | None = None
    if len(idx) and any(capacity):
        groups = [Group(hw.gpus_per_unit, h[idx], c, *brk.of_group(k))
                  for k, (hw, h, c) in enumerate(zip(hws[1:], holds[1:], capacity[1:],
                                                     strict=True), start=1)]  # fmt: skip
        changes, down = brk.of_group(0)
        inp = QueueInput(
            jobs.arrival_h[idx], jobs.gpus[idx], holds[0][idx], capacity[0], horizon_h,
            o.scheduler, o.backfill_depth, None if patience_h is None else patience_h[idx],
            server_gpus=hws[0].gpus_per_unit, server_changes=changes, server_outages=down,
            groups=groups, requeue=brk.checkpoints,
            seed=int(rng.integers(2**63)) if brk.checkpoints is not None else 0,
        )  # fmt: skip
        q = simulate_queue(inp)
        start[idx], left[idx], stranded = q.start_h, q.left_h, q.stranded_gpu_h
        assert q.group is not None
        where[idx] = q.group
        brk.servers_down_gpu_h = q.servers_down_gpu_h
        if q.requeued is not None:
            r = q.requeued
            end = np.full(n, np.nan)
            end[idx] = np.where(np.isnan(q.start_h), np.nan, r.end_h)
            brk.interruptions[idx], brk.lost_gpu_h[idx] = r.interruptions, r.lost_gpu_h
            brk.gaps = Gaps.of([(int(idx[j]), a, b) for j, a, b in r.gaps])
    elif patience_h is not None:  # no GPUs before the horizon: everyone gives up
        left[idx] = np.minimum(jobs.arrival_h[idx] + patience_h[idx], horizon_h)
    table = np.vstack(holds)
    fastest = np.where(runnable, np.min(table, axis=0), run_hours(jobs, hws[-1]))
    run = np.where(where >= 0, table[np.maximum(where, 0), np.arange(n)], fastest)
    f = o.failures
    runs = JobRuns(
        run_h=run,
        gpus=jobs.gpus,
        units=jobs.gpus.copy(),
        start_h=start,
        end_h=start + run if end is None else end,
        reason=reason,
        reason_text=text,
        generation=where,
        fragmented_gpu_h=stranded,
        interruptions=None if f is None else brk.interruptions,
        lost_gpu_h=None if f is None else brk.lost_gpu_h,
        failures=brk.failures,
        node_failures=brk.node_failures,
        rack_failures=brk.racks,
        unavailable_gpu_h=brk.down_gpu_h + brk.servers_down_gpu_h,
        gaps=brk.gaps,
    )
    return runs, left


def _models(
    jobs: Jobs, hws: list[Hardware], deliveries: Sequence[Delivery], horizon_h: float
) -> tuple[list[np.ndarray], list[list[tuple[float, int]]], np.ndarray, dict[str, str]]:
    """Per model: each job's run there (inf: it cannot run there) and the GPUs delivered
    (time h, GPUs); why each job runs on no model ('' when some model holds it)."""
    holds, fits, capacity = [], [], []
    reason = np.full(len(jobs), "", dtype=object)
    text: dict[str, str] = {}
    for g, hw in enumerate(hws):
        mine = [d for d in deliveries if d.generation == g]
        total = sum(d.servers for d in mine) * hw.gpus_per_unit
        why, text = feasibility(jobs, hw, total, f"GPUs of {hw.gpu} the cluster will ever have")
        holds.append(np.where(why == "", run_hours(jobs, hw), np.inf))
        fits.append(why == "")
        reason = why  # a job no model holds: said of the newest
        capacity.append([(d.delivery_h, d.servers * hw.gpus_per_unit) for d in mine
                         if d.delivery_h < horizon_h])  # fmt: skip
    return holds, capacity, np.where(np.any(fits, axis=0), "", reason), text


@dataclass
class _Breakdowns:
    """Each model's failures (GPUs, servers, racks, at the option's rates; servers numbered
    within the model), their counts, and what they did to the jobs."""

    changes: list[list[tuple[float, int, int]]]
    outages: list[list[tuple[float, int, float]]]
    checkpoints: Checkpointing | None
    interruptions: np.ndarray
    lost_gpu_h: np.ndarray
    failures: int = 0
    node_failures: int = 0
    racks: int = 0
    down_gpu_h: float = 0.0  # GPUs in repair
    servers_down_gpu_h: float = 0.0  # servers down whole (the scheduler's count)
    gaps: Gaps | None = None

    @classmethod
    def of(
        cls,
        f: Failures | None,
        hws: list[Hardware],
        capacity: list[list[tuple[float, int]]],
        horizon_h: float,
        rng: np.random.Generator,
        n: int = 0,
    ) -> _Breakdowns:
        out = cls([[] for _ in hws], [[] for _ in hws], None, np.zeros(n, np.int64), np.zeros(n))
        if f is None:
            return out
        out.checkpoints = f.checkpoints()
        for g, (hw, slots) in enumerate(zip(hws, capacity, strict=True)):
            gps = hw.gpus_per_unit
            gpus = outages(slots, f, horizon_h, rng)
            servers, nodes, racks = server_outages(
                [(t, u // gps) for t, u in slots], f, horizon_h, rng
            )
            out.changes[g], out.outages[g] = gpus.on_servers(gps), servers
            out.failures += gpus.failures
            out.node_failures += nodes
            out.racks += racks
            out.down_gpu_h += gpus.down_gpu_h
        return out

    def of_group(
        self, g: int
    ) -> tuple[list[tuple[float, int, int]], list[tuple[float, int, float]]]:
        return self.changes[g], self.outages[g]
