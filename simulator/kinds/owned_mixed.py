"""Jobs queued on an owned cluster of several server models (``Tranche.server``): each job runs
on one model, the newest that can hold it when it fits there (``simulator.mixed``), at that
model's speed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tco.simulator.jobs import Jobs
from tco.simulator.kinds.owned_parts import Delivery
from tco.simulator.kinds.owned_queue import Queueing
from tco.simulator.mixed import simulate_mixed
from tco.simulator.queue_records import Group, QueueInput
from tco.simulator.runs import JobRuns, feasibility
from tco.simulator.speed import Hardware, run_hours


def queue(
    jobs: Jobs,
    o: Queueing,
    hws: list[Hardware],
    deliveries: Sequence[Delivery],
    horizon_h: float,
    patience_h: np.ndarray | None,
) -> tuple[JobRuns, np.ndarray]:
    """The jobs queued on a cluster whose generation ``g`` runs on ``hws[g]``; when each gave up
    waiting after ``patience_h`` (NaN: it did not)."""
    n = len(jobs)
    holds, fits, capacity = [], [], []
    reason = np.full(n, "", dtype=object)
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
    runnable = np.any(fits, axis=0)
    reason = np.where(runnable, "", reason)
    start, left = np.full(n, np.nan), np.full(n, np.nan)
    where = np.full(n, -1, np.int64)
    stranded = 0.0
    idx = np.nonzero(runnable)[0]
    if len(idx) and any(capacity):
        groups = [Group(hw.gpus_per_unit, h[idx], c)
                  for hw, h, c in zip(hws[1:], holds[1:], capacity[1:], strict=True)]  # fmt: skip
        inp = QueueInput(
            jobs.arrival_h[idx], jobs.gpus[idx], holds[0][idx], capacity[0], horizon_h,
            o.scheduler, o.backfill_depth, None if patience_h is None else patience_h[idx],
            server_gpus=hws[0].gpus_per_unit, groups=groups,
        )  # fmt: skip
        q = simulate_mixed(inp)
        start[idx], left[idx], stranded = q.start_h, q.left_h, q.stranded_gpu_h
        assert q.group is not None
        where[idx] = q.group
    elif patience_h is not None:  # no GPUs before the horizon: everyone gives up
        left[idx] = np.minimum(jobs.arrival_h[idx] + patience_h[idx], horizon_h)
    table = np.vstack(holds)
    fastest = np.where(runnable, np.min(table, axis=0), run_hours(jobs, hws[-1]))
    run = np.where(where >= 0, table[np.maximum(where, 0), np.arange(n)], fastest)
    runs = JobRuns(
        run_h=run,
        gpus=jobs.gpus,
        units=jobs.gpus.copy(),
        start_h=start,
        end_h=start + run,
        reason=reason,
        reason_text=text,
        generation=where,
        fragmented_gpu_h=stranded,
    )
    return runs, left
