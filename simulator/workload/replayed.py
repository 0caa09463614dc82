"""A recorded trace as part of the job stream: filtered, aligned, scaled, repeated, grown, and
converted from measured run times to work on the trace's GPU.

Durations were measured on the source cluster, synchronisation included. Work is recovered as
duration x GPUs / (1 + sync on the source links), so that each option's speed model can apply
its own GPU speed, links and virtualization. Time zero of the trace (its first kept submit) is
hour 0 of the scenario. The file is read once (:func:`read_trace`); :func:`replay` turns what was
read into :class:`~tco.simulator.workload.jobs.Jobs`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from tco.pricing import hardware
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.limits import MAX_JOBS
from tco.simulator.workload.arrivals import HOURS_PER_AVERAGE_MONTH
from tco.simulator.workload.calibration import ALL_FAMILIES
from tco.simulator.workload.jobs import INDEX, Jobs
from tco.simulator.workload.spec import Trace
from tco.simulator.workload.speed import Hardware, run_hours
from tco.simulator.workload.traces import TraceJobs, read


@dataclass(frozen=True)
class ReadTrace:
    """A trace file as read, with the sentence saying what was read and skipped."""

    jobs: TraceJobs
    note: str


def read_trace(tr: Trace, scenario_dir: Path) -> ReadTrace:
    """Read the trace file named by the scenario (relative to the scenario's folder)."""
    jobs, report = read(
        scenario_dir / tr.file,
        tr.format,
        tr.columns,
        tr.timestamps,
        tr.utc_offset_hours,
        sacct_format=tr.sacct_format,
        keep_unfinished=tr.keeps_unfinished,
    )
    return ReadTrace(jobs, report.summary())


@dataclass(frozen=True)
class _Kept:
    """The trace's jobs on the way to the job stream: hours from the start, GPUs, hours run."""

    t_h: np.ndarray
    gpus: np.ndarray
    duration_h: np.ndarray
    ids: np.ndarray  # object array of recorded ids

    def take(self, mask: np.ndarray) -> _Kept:
        return _Kept(self.t_h[mask], self.gpus[mask], self.duration_h[mask], self.ids[mask])


def _filter(tr: Trace, jobs: TraceJobs) -> np.ndarray:
    keep = np.ones(len(jobs), dtype=bool)
    if tr.clusters is not None:
        keep &= np.isin(np.asarray(jobs.cluster, dtype=object), tr.clusters)
    if tr.status is not None:
        wanted = {s.upper() for s in tr.status}
        keep &= np.array([s.upper() in wanted for s in jobs.status], dtype=bool)
    if tr.min_gpus is not None:
        keep &= jobs.gpus >= tr.min_gpus
    if tr.max_gpus is not None:
        keep &= jobs.gpus <= tr.max_gpus
    return keep


def _window(tr: Trace, k: _Kept) -> _Kept:
    if tr.start_day is None and tr.end_day is None:
        return k
    lo = (tr.start_day or 0.0) * 24.0
    hi = tr.end_day * 24.0 if tr.end_day is not None else np.inf
    k = k.take((k.t_h >= lo) & (k.t_h < hi))
    return replace(k, t_h=k.t_h - lo)


def _too_many(n: float) -> ScenarioError:
    found = f"replaying the trace over the horizon gives about {n:,.3g} jobs"
    return ScenarioError("<scenario>", "workload.trace", MAX_JOBS.exceeded(found))


def _repeat(k: _Kept, horizon_h: float) -> _Kept:
    """Back-to-back copies covering the horizon (one mean gap between copies)."""
    gaps = np.diff(k.t_h)
    period = float(k.t_h.max() + (gaps.mean() if len(gaps) else 1.0))
    if horizon_h / period * len(k.t_h) > MAX_JOBS.value():
        raise _too_many(horizon_h / period * len(k.t_h))
    copies = int(np.ceil(horizon_h / period))
    ids = np.concatenate(
        [
            k.ids if c == 0 else np.array([f"{x}#r{c + 1}" for x in k.ids], dtype=object)
            for c in range(copies)
        ]
    )
    return _Kept(
        np.concatenate([k.t_h + c * period for c in range(copies)]),
        np.tile(k.gpus, copies),
        np.tile(k.duration_h, copies),
        ids,
    )


def _grow(k: _Kept, growth_per_month: float, seed: int) -> _Kept:
    """Each job is kept floor(f) or floor(f)+1 times, f = (1+g)^(t/730 h): the expected load
    grows (or shrinks) by g a month while job sizes keep their recorded mix."""
    rng = np.random.default_rng([seed, 1_000_003])
    f = (1.0 + growth_per_month) ** (k.t_h / HOURS_PER_AVERAGE_MONTH)
    if f.sum() > MAX_JOBS.value():
        raise _too_many(float(f.sum()))
    times = np.floor(f).astype(np.int64) + (rng.random(len(f)) < f - np.floor(f))
    base_ids = np.repeat(k.ids, times)
    copy_no = np.concatenate([np.arange(n) for n in times.tolist()]) if len(times) else times
    ids = np.array(
        [
            x if c == 0 else f"{x}#g{c + 1}"
            for x, c in zip(base_ids.tolist(), copy_no.tolist(), strict=True)
        ],
        dtype=object,
    )
    t_h, gpus, duration_h = (np.repeat(a, times) for a in (k.t_h, k.gpus, k.duration_h))
    return _Kept(t_h, gpus, duration_h, ids)


def source_factor(tr: Trace, gpus: np.ndarray) -> np.ndarray:
    """Run time on the source hardware per GPU-hour of work per GPU: (1 + sync)."""
    g = hardware.gpu(tr.source_gpu)
    hw = Hardware(
        g.name,
        g.memory_gb,
        tr.source_gpus_per_node,
        tr.source_intra_node,
        tr.source_inter_node,
        0.0,
    )
    n = len(gpus)
    unit = Jobs(
        arrival_h=np.zeros(n),
        gpus=gpus,
        work_ref_gpu_h=gpus.astype(np.float64),
        memory_gb=np.zeros(n),
        comm_share=np.full(n, tr.comm_share),
        job_class=np.zeros(n, dtype=INDEX),
        reference_gpu=np.zeros(n, dtype=INDEX),
        class_names=("t",),
        reference_gpus=(g.name,),
    )
    return run_hours(unit, hw)


def replay(
    tr: Trace,
    read_: ReadTrace,
    seed: int,
    horizon_h: float,
    class_index: int,
    class_names: tuple[str, ...],
    reference_gpus: tuple[str, ...],
) -> Jobs:
    """The trace's jobs as class number ``class_index`` of the job stream, with their recorded
    ids and a note saying what was replayed, filtered and left out."""
    jobs = read_.jobs
    keep = _filter(tr, jobs)
    submit = jobs.submit_s[keep]
    k = _Kept(
        (submit - (submit.min() if len(submit) else 0.0)) / 3600.0,
        jobs.gpus[keep],
        jobs.duration_s[keep] / 3600.0,
        np.asarray(jobs.job_id, dtype=object)[keep],
    )
    k = _window(tr, k)
    k = replace(k, t_h=k.t_h / tr.scale_arrivals)
    if tr.repeat and len(k.t_h):
        k = _repeat(k, horizon_h)
    if tr.growth_per_month != 0.0 and len(k.t_h):
        k = _grow(k, tr.growth_per_month, seed)
    inside = k.t_h < horizon_h
    dropped = int((~inside).sum())
    k = k.take(inside)
    work = k.duration_h * k.gpus / source_factor(tr, k.gpus) if len(k.gpus) else k.duration_h
    n = len(k.t_h)
    note = f"{read_.note}; {n:,} jobs replayed"
    if int((~keep).sum()):
        note += f"; {int((~keep).sum()):,} filtered out"
    if dropped:
        note += f"; {dropped:,} arriving after the horizon left out"
    return Jobs(
        arrival_h=k.t_h,
        gpus=k.gpus.astype(np.int64),
        work_ref_gpu_h=work,
        memory_gb=np.full(n, tr.memory_gb),
        comm_share=np.full(n, tr.comm_share),
        job_class=np.full(n, class_index, dtype=INDEX),
        reference_gpu=np.full(n, reference_gpus.index(tr.source_gpu), dtype=INDEX),
        family=np.full(n, ALL_FAMILIES.index(tr.workload_family), dtype=INDEX),
        families=ALL_FAMILIES,
        class_names=class_names,
        reference_gpus=reference_gpus,
        names=k.ids,
        notes=(note,),
    )
