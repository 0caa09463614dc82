"""Jobs queued on an owned cluster: the scheduler's input from the option, failures and their
effect on jobs, and the job runs that come out. One front end for every cluster: servers of one
model, a refresh (the servers bought until the cutover, the successor after it), or several
models side by side (``Tranche.server``), each a group of the scheduler (``cluster.scheduler``).

A job runs on one model at that model's speed: the newest that can hold it when it fits there.
A job only a later model (the successor) can hold joins the queue when that model arrives; a
job only a model that retires can hold cannot run if it has not started by then.

With failures, jobs on servers (``placement: servers``) are stopped by the failing GPU or server
under them and queued again (``cluster.requeue``); on a pool they resume in place, their holds
stretched by interruptions drawn apart from the outages (``failures.failed_runs``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from math import inf
from typing import Protocol

import numpy as np

from tco.simulator.cluster.failures import FailedRuns, Failures, failed_runs
from tco.simulator.cluster.queue_records import (
    Cutover,
    FairShareInput,
    Group,
    QueueInput,
    Requeued,
)
from tco.simulator.cluster.scheduler import simulate_queue
from tco.simulator.kinds.owned.generations import Successor
from tco.simulator.kinds.owned.outages import Breakdowns, Model
from tco.simulator.kinds.owned.parts import Delivery
from tco.simulator.kinds.runs import (
    REASON_SIZE,
    Gaps,
    JobRuns,
    Measure,
    count,
    declare_measure,
    feasibility,
)
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware, run_hours

UNAVAILABLE = "unavailable_gpu_h"  # GPU-hours out of service for repair (a count, not shown)


def _fragmentation(name: str, lost: float, paid: float) -> str | None:
    """Owned GPUs idle because free GPUs were scattered over servers (placement on servers)."""
    if lost > 0 and paid > 0:
        return (
            f"{name}: {lost:,.0f} GPU-hours ({lost / paid:.1%} of those in service) sat idle"
            " while the next job in line would have fit the free GPUs but no single server"
            " (fragmentation; placement: pool would ignore servers)."
        )
    return None


def _availability(runs: JobRuns, paid: float) -> float:
    return 1.0 - float(runs.counts.get(UNAVAILABLE, 0.0)) / paid if paid > 0 else 1.0


declare_measure(
    Measure(
        "failures",
        "GPUs of an owned cluster that failed over the horizon",
        count("failures"),
        integer=True,
        order=30,
    ),
    Measure(
        "node_failures",
        "whole servers that failed (owned; failures.node_failures_per_1000_node_days)",
        count("node_failures"),
        integer=True,
        order=40,
    ),
    Measure(
        "rack_failures",
        "racks that failed, each taking its servers down together (owned;"
        " failures.rack_failures_per_1000_rack_days)",
        count("rack_failures"),
        integer=True,
        order=50,
    ),
    Measure(
        "gpu_availability",
        "share of GPU-hours in service not out for repair (1 without failures)",
        _availability,
        order=60,
    ),
    Measure(
        "fragmented_gpu_hours",
        "GPU-hours idle while the job at the head of the queue would fit the free GPUs as a"
        " pool but on no server (owned, placed on servers; 0 otherwise)",
        count("fragmented_gpu_hours"),
        order=70,
        remark=_fragmentation,
    ),
)


class Queueing(Protocol):
    """What of an owned option the queue reads."""

    @property
    def upkeep(self) -> Failures | None: ...
    @property
    def scheduler(self) -> str: ...
    @property
    def backfill_depth(self) -> int: ...
    @property
    def placement(self) -> str: ...


def queue(
    jobs: Jobs,
    o: Queueing,
    hws: list[Hardware],
    deliveries: Sequence[Delivery],
    horizon_h: float,
    rng: np.random.Generator,
    patience_h: np.ndarray | None,
    successor: Successor | None = None,
) -> tuple[JobRuns, np.ndarray]:
    """The jobs queued on the cluster whose servers of model ``g`` run on ``hws[g]`` (on a
    refresh's ``successor`` from its cutover); when each gave up waiting after ``patience_h``
    (NaN: it did not; a hybrid bursts those)."""
    fleet = _Fleet.of(jobs, hws, deliveries, horizon_h, successor)
    f = o.upkeep
    requeue = f is not None and o.placement == "servers"
    brk = Breakdowns.of(fleet.models, f, horizon_h, rng)
    resumed = fleet.resumed(jobs, None if requeue else f, rng)
    holds = [r.hold_h for r in resumed] if resumed else fleet.runs
    patience_h, left = fleet.patience(patience_h, jobs)
    n = len(jobs)
    stranded, end, requeued = 0.0, None, None
    idx = np.nonzero((fleet.reason == "") & np.isnan(left))[0]
    if not _ascending(fleet.arrival):  # the scheduler takes them by arrival
        idx = idx[np.argsort(fleet.arrival[idx], kind="stable")]
    # Every job, in arrival order: the columns as they are (at 5 M jobs, 40 MB a copy).
    every = len(idx) == n and _ascending(idx)
    if len(idx) and any(m.slots for m in fleet.models):
        inp = _queue_input(jobs, idx, every, fleet, brk, holds, horizon_h, patience_h, o)
        if requeue and f is not None:
            inp = dataclasses.replace(inp, requeue=f.checkpoints(), seed=int(rng.integers(2**63)))
        q = simulate_queue(inp)
        stranded = q.stranded_gpu_h
        if q.left_h is not None:
            left[idx] = q.left_h
        placed = q.group if q.group is not None else _by_time(q.start_h, fleet)
        start, where = _spread(q.start_h, idx, n, every), _spread(placed, idx, n, every)
        if requeue:
            brk = dataclasses.replace(brk, servers_down_gpu_h=q.servers_down_gpu_h)
        requeued = q.requeued
    else:  # no GPUs before the horizon: nobody starts, and with patience everyone gives up
        start, where = np.full(n, np.nan), np.full(n, -1, np.int64)
        if patience_h is not None:
            left[idx] = np.minimum(jobs.arrival_h[idx] + patience_h[idx], horizon_h)
    run = fleet.run_h(holds, where)
    interruptions, lost = fleet.hits(resumed, where, requeue or f is None)
    gaps: Gaps | None = None
    if requeued is not None:
        end, interruptions, lost, gaps = _requeued(requeued, idx, start, n)
    runs = JobRuns(
        run_h=run,
        gpus=jobs.gpus,
        units=jobs.gpus.copy(),
        start_h=start,
        end_h=start + run if end is None else end,
        reason=fleet.reason_after(start, left),
        reason_text=fleet.text,
        interruptions=interruptions,
        lost_gpu_h=lost,
        clean_run_h=fleet.run_h(fleet.runs, where) if resumed else None,
        counts=_counts(brk, stranded),
        gaps=gaps,
        generation=where if len(hws) > 1 else None,
    )
    return runs, left


def _counts(brk: Breakdowns, stranded: float) -> dict[str, float]:
    """The run's figures the owned kind's measures read: failures and what they cost, and the
    GPU-hours idle by fragmentation."""
    return {
        "failures": brk.failures,
        "node_failures": brk.node_failures,
        "rack_failures": brk.racks,
        UNAVAILABLE: brk.down_gpu_h + brk.servers_down_gpu_h,
        "fragmented_gpu_hours": stranded,
    }


def _requeued(
    r: Requeued, idx: np.ndarray, start: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Gaps]:
    """What failures did to the jobs ``idx`` the scheduler queued again, as columns of all
    ``n`` jobs: when each ended, its interruptions and GPU-hours lost, and the gaps."""
    end = np.full(n, np.nan)
    end[idx] = np.where(np.isnan(start[idx]), np.nan, r.end_h)
    interruptions, lost = np.zeros(n, np.int64), np.zeros(n)
    interruptions[idx], lost[idx] = r.interruptions, r.lost_gpu_h
    return end, interruptions, lost, Gaps.of([(int(idx[j]), a, b) for j, a, b in r.gaps])


def _by_time(start: np.ndarray, fleet: _Fleet) -> np.ndarray:
    """Where each job ran when the scheduler does not say (one model, or a refresh): the model
    serving when it started (-1: it did not start)."""
    where = np.full(len(start), -1, np.int64)
    for g, m in enumerate(fleet.models):
        where[(start >= m.from_h) & (start < m.until_h)] = g
    return where


@dataclass(frozen=True)
class _Fleet:
    """The cluster's models: per model its servers (``Model``), each job's run there; why a job
    can run on none, and when each joins the queue (a job only the successor can hold: at the
    cutover)."""

    models: list[Model]
    runs: list[np.ndarray]  # per model, each job's run there (the successor's: for jobs it holds)
    ok: list[np.ndarray]  # per model, whether it can hold the job
    reason: np.ndarray
    text: dict[str, str]
    arrival: np.ndarray
    early: np.ndarray  # jobs only a model that retires can hold

    @classmethod
    def of(
        cls,
        jobs: Jobs,
        hws: list[Hardware],
        deliveries: Sequence[Delivery],
        horizon_h: float,
        s: Successor | None,
    ) -> _Fleet:
        models = Model.all_of(hws, deliveries, horizon_h, s)
        runs: list[np.ndarray] = []
        ok: list[np.ndarray] = []
        why, text = np.full(len(jobs), "", dtype=object), dict[str, str]()
        for m in models:
            why, text = feasibility(jobs, m.hardware, m.gpus, m.what)
            runs.append(run_hours(jobs, m.hardware))
            ok.append(why == "")
        reason = np.where(np.any(ok, axis=0), "", why)  # a job no model holds: said of the last
        arrival, early = jobs.arrival_h, np.zeros(len(jobs), bool)
        if s is not None:
            later = ~ok[0] & ok[1]  # only the successor holds it: it joins at the cutover
            early = ok[0] & ~ok[1]
            arrival = np.where(later, np.maximum(jobs.arrival_h, s.cutover_h), jobs.arrival_h)
            runs[0] = np.where(later, runs[1], runs[0])
            if early.any():
                text[REASON_SIZE] = (
                    f"needs more GPUs than the {s.gpus} of the successor and did not start on"
                    f" the {models[0].gpus} before the refresh"
                )
        return cls(models, runs, ok, reason, text, arrival, early)

    @property
    def refresh(self) -> bool:
        """A model that serves from later on (a refresh's successor)."""
        return any(m.from_h > 0 for m in self.models)

    def resumed(self, jobs: Jobs, f: Failures | None, rng: np.random.Generator) -> list[FailedRuns]:
        """Jobs that resume in place (failures on a pool): each one's run stretched by its
        interruptions on every model, drawn in turn (none without failures)."""
        if f is None:
            return []
        return [failed_runs(jobs.gpus, run, f, rng) for run in self.runs]

    def patience(
        self, patience_h: np.ndarray | None, jobs: Jobs
    ) -> tuple[np.ndarray | None, np.ndarray]:
        """Patience counts from arrival, but a job only the successor holds joins the queue at
        the cutover: what is left of it then, and when (NaN: it did not) a job's patience ran
        out before it could join (a hybrid bursts it then)."""
        gone = np.full(len(jobs), np.nan)
        if patience_h is None or not self.refresh:
            return patience_h, gone
        rest = patience_h - (self.arrival - jobs.arrival_h)
        out = rest < 0
        gone[out] = jobs.arrival_h[out] + patience_h[out]
        return np.maximum(rest, 0.0), gone

    def run_h(self, holds: list[np.ndarray], where: np.ndarray) -> np.ndarray:
        """Each job's hold on the model it ran on. For a job that did not run: with a refresh,
        its hold on the servers bought (the successor's for a job only it holds); with models
        side by side, on the fastest that can hold it, or on the last when none can."""
        table = np.vstack([np.where(ok, h, inf) for h, ok in zip(holds, self.ok, strict=True)])
        if self.refresh:
            fallback = holds[0]
        else:
            best = np.min(table, axis=0)
            fallback = np.where(np.isfinite(best), best, holds[-1])
        ran = where >= 0
        out = fallback.copy()
        out[ran] = table[where[ran], np.nonzero(ran)[0]]
        return out

    def hits(
        self, resumed: list[FailedRuns], where: np.ndarray, none: bool
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Interruptions and work lost per job on a pool, counted on the model it ran on (the
        first when it did not run); None without failures."""
        if none or not resumed:
            return None, None
        on = np.maximum(where, 0)
        n = np.arange(len(where))
        hits = np.vstack([r.interruptions for r in resumed])[on, n]
        lost = np.vstack([r.lost_gpu_h for r in resumed])[on, n]
        return hits, lost

    def reason_after(self, start: np.ndarray, left: np.ndarray) -> np.ndarray:
        """Why each job cannot run, once the queue has run: a job only a model that retires can
        hold cannot run if it had not started by then (nor left to burst)."""
        never = self.early & np.isnan(start) & np.isnan(left)
        return np.where(never, REASON_SIZE, self.reason) if never.any() else self.reason


def _ascending(a: np.ndarray) -> bool:
    """Whether ``a`` never decreases (indices that do are all of them, in order)."""
    return bool((a[1:] >= a[:-1]).all())


def _spread(values: np.ndarray, idx: np.ndarray, n: int, every: bool) -> np.ndarray:
    """Values of the jobs ``idx`` as a column of all ``n`` jobs (the others: NaN, or -1 for
    integers); the values themselves when ``idx`` is every job in order."""
    if every:
        return values
    out = np.full(n, np.nan if values.dtype.kind == "f" else -1, values.dtype)
    out[idx] = values
    return out


def _taken(column: np.ndarray, idx: np.ndarray, every: bool) -> np.ndarray:
    """The column's values at ``idx``: the column itself when ``idx`` is every row in order."""
    return column if every else column[idx]


def _fair_share(jobs: Jobs, idx: np.ndarray, every: bool) -> FairShareInput | None:
    """The teams' fair share for the queue's jobs (None: the scenario shares no other way)."""
    terms = jobs.fair_terms
    if terms is None:
        return None
    _, team = jobs.team_of_jobs()
    return FairShareInput(_taken(team, idx, every), terms.shares, terms.half_life_h)


def _queue_input(
    jobs: Jobs,
    idx: np.ndarray,
    every: bool,
    fleet: _Fleet,
    brk: Breakdowns,
    holds: list[np.ndarray],
    horizon_h: float,
    patience_h: np.ndarray | None,
    o: Queueing,
) -> QueueInput:
    """The scheduler's input for jobs ``idx``: model 0's servers, then a refresh's successor
    (a cutover) or the other models (groups). On servers, failures name their server; as a pool
    they are plain capacity changes (a server down: its GPUs leave and come back)."""
    on_servers = o.placement == "servers"
    own, *others = fleet.models
    # Side by side, a model's hold is inf for a job it cannot hold (the scheduler skips it
    # there); a refresh's models take each job at its own time.
    mask = len(fleet.models) > 1 and not fleet.refresh
    hold = [np.where(ok, h, inf) if mask else h for h, ok in zip(holds, fleet.ok, strict=True)]
    changes, outages = brk.of_model(0, on_servers)
    gps = own.hardware.gpus_per_unit
    capacity = [(t, n * gps) for t, n in own.slots]
    inp = QueueInput(
        arrival_h=_taken(fleet.arrival, idx, every),
        units=_taken(jobs.gpus, idx, every),
        hold_h=_taken(hold[0], idx, every),
        capacity=capacity if on_servers else capacity + changes.pool,
        horizon_h=horizon_h,
        policy=o.scheduler,
        depth=o.backfill_depth,
        patience_h=None if patience_h is None else _taken(patience_h, idx, every),
        server_gpus=gps if on_servers else 0,
        server_changes=changes.servers,
        server_outages=outages,
        priority=None if (rank := jobs.priority_of_jobs()) is None else _taken(rank, idx, every),
        fair_share=_fair_share(jobs, idx, every),
    )
    if fleet.refresh:  # the successor from its cutover
        m = others[0]
        new_changes, new_outages = brk.of_model(1, on_servers)
        cut = Cutover(
            at_h=m.from_h,
            gpus=m.gpus,
            server_gpus=m.hardware.gpus_per_unit if on_servers else 0,
            hold_h=_taken(hold[1], idx, every),
            changes=new_changes.pool,
            server_changes=new_changes.servers,
            server_outages=new_outages,
        )
        return dataclasses.replace(inp, cutover=cut)
    groups = []
    for k, m in enumerate(others, start=1):
        ch, down = brk.of_model(k, on_servers)
        groups.append(
            Group(
                server_gpus=m.hardware.gpus_per_unit,
                hold_h=_taken(hold[k], idx, every),
                capacity=[(t, n * m.hardware.gpus_per_unit) for t, n in m.slots],
                server_changes=ch.servers,
                server_outages=down,
            )
        )
    return dataclasses.replace(inp, groups=groups)
