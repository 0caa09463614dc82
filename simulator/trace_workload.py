"""A recorded trace as part of the job stream: filtered, aligned, scaled, repeated, grown, and
converted from measured run times to work on the trace's GPU.

Durations were measured on the source cluster, synchronisation included. Work is recovered as
duration x GPUs / (1 + sync on the source links), so that each option's speed model can apply
its own GPU speed, links and virtualization. Time zero of the trace (its first kept submit) is
hour 0 of the scenario.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tco.simulator.scenario import Scenario, Trace
from tco.simulator.speed import Hardware, run_hours
from tco.simulator.trace import TraceJobs, read
from tco.simulator.workload import HOURS_PER_AVERAGE_MONTH, Jobs


def load(tr: Trace, base_dir: Path) -> tuple[TraceJobs, str]:
    """Read the trace file; the note says what was read and skipped."""
    jobs, report = read(
        base_dir / tr.file, tr.format, tr.columns, tr.timestamps, tr.utc_offset_hours
    )
    return jobs, report.summary()


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


def source_factor(tr: Trace, gpus: np.ndarray) -> np.ndarray:
    """Run time on the source hardware per GPU-hour of work per GPU: (1 + sync)."""
    from tco.pricing import catalog

    g = catalog.gpu(tr.source_gpu)
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
        np.zeros(n),
        gpus,
        gpus.astype(np.float64),
        np.zeros(n),
        np.full(n, tr.comm_share),
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        ("t",),
        (g.name,),
    )
    return run_hours(unit, hw)


def trace_part(
    tr: Trace,
    scenario: Scenario,
    base_dir: Path,
    class_index: int,
    ref_index: int,
    horizon_h: float,
) -> tuple[tuple[np.ndarray, ...], np.ndarray, str]:
    """The trace's jobs as Jobs columns, their recorded ids, and a note for the report."""
    jobs, note = load(tr, base_dir)
    keep = _filter(tr, jobs)
    submit = jobs.submit_s[keep]
    t_h = (submit - (submit.min() if len(submit) else 0.0)) / 3600.0
    gpus = jobs.gpus[keep]
    duration_h = jobs.duration_s[keep] / 3600.0
    ids = np.asarray(jobs.job_id, dtype=object)[keep]
    if tr.start_day is not None or tr.end_day is not None:
        lo = (tr.start_day or 0.0) * 24.0
        hi = tr.end_day * 24.0 if tr.end_day is not None else np.inf
        win = (t_h >= lo) & (t_h < hi)
        t_h, gpus, duration_h, ids = t_h[win] - lo, gpus[win], duration_h[win], ids[win]
    t_h = t_h / tr.scale_arrivals
    if tr.repeat and len(t_h):
        gaps = np.diff(t_h)
        period = float(t_h.max() + (gaps.mean() if len(gaps) else 1.0))
        copies = int(np.ceil(horizon_h / period))
        t_h = np.concatenate([t_h + k * period for k in range(copies)])
        gpus = np.tile(gpus, copies)
        duration_h = np.tile(duration_h, copies)
        ids = np.concatenate(
            [
                ids if k == 0 else np.array([f"{x}#r{k + 1}" for x in ids], dtype=object)
                for k in range(copies)
            ]
        )
    if tr.growth_per_month != 0.0 and len(t_h):
        # Each job is kept floor(f) or floor(f)+1 times, f = (1+g)^(t/730 h): the expected
        # load grows (or shrinks) by g a month while job sizes keep their recorded mix.
        rng = np.random.default_rng([scenario.seed, 1_000_003])
        f = (1.0 + tr.growth_per_month) ** (t_h / HOURS_PER_AVERAGE_MONTH)
        times = np.floor(f).astype(np.int64) + (rng.random(len(f)) < f - np.floor(f))
        t_h, gpus, duration_h = (np.repeat(a, times) for a in (t_h, gpus, duration_h))
        base_ids = np.repeat(ids, times)
        copy_no = np.concatenate([np.arange(k) for k in times.tolist()]) if len(times) else times
        ids = np.array(
            [
                x if c == 0 else f"{x}#g{c + 1}"
                for x, c in zip(base_ids.tolist(), copy_no.tolist(), strict=True)
            ],
            dtype=object,
        )
    inside = t_h < horizon_h
    dropped = int((~inside).sum())
    t_h, gpus, duration_h, ids = t_h[inside], gpus[inside], duration_h[inside], ids[inside]
    work = duration_h * gpus / source_factor(tr, gpus) if len(gpus) else duration_h
    n = len(t_h)
    kept_note = f"{note}; {n:,} jobs replayed"
    if int((~keep).sum()):
        kept_note += f"; {int((~keep).sum()):,} filtered out"
    if dropped:
        kept_note += f"; {dropped:,} arriving after the horizon left out"
    part = (
        t_h,
        gpus.astype(np.int64),
        work,
        np.full(n, tr.memory_gb),
        np.full(n, tr.comm_share),
        np.full(n, class_index, dtype=np.int64),
        np.full(n, ref_index, dtype=np.int64),
    )
    return part, ids, kept_note
