"""The whole job stream of a scenario: its job classes drawn from the seed, and its trace
replayed, merged into one :class:`~tco.simulator.workload.jobs.Jobs` sorted by arrival (ties: class
order)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tco.simulator.core.calendar import month_edges_h
from tco.simulator.workload.arrivals import draw, one_off
from tco.simulator.workload.calibration import ALL_FAMILIES, GpuSpeed, speed_of
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.replayed import ReadTrace, replay
from tco.simulator.workload.spec import SpeedOverrides, Workload


def generate(
    workload: Workload,
    seed: int,
    start: str,
    months: int,
    trace: ReadTrace | None = None,
    speed: SpeedOverrides | None = None,
) -> Jobs:
    """Draw the job stream from ``seed`` and replay ``trace`` (read beforehand when the
    workload names one); ``speed``: the scenario's overrides of reference GPUs' speeds."""
    classes = workload.job_classes
    tr = workload.trace
    if tr is not None and trace is None:
        raise ValueError("the workload replays a trace: read it first (replay.read_trace)")
    stated = [c.work.reference_gpu for c in classes] + [r.work.reference_gpu for r in workload.runs]
    refs = tuple(dict.fromkeys(stated + ([tr.source_gpu] if tr is not None else [])))
    names = tuple(workload.names) + (("trace",) if tr is not None else ())
    k = workload.model_hours_scale
    parts = [draw(c, i, seed, start, months, names, refs, k) for i, c in enumerate(classes)]
    parts += [
        one_off(r, len(classes) + i, start, months, names, refs, k)
        for i, r in enumerate(workload.runs)
    ]
    if tr is not None:
        assert trace is not None
        horizon_h = float(month_edges_h(start, months)[-1])
        parts.append(replay(tr, trace, seed, horizon_h, len(names) - 1, names, refs))
    overrides, source = (dict(speed.scores), speed.source) if speed else ({}, "")
    speeds = tuple(speed_of(r, overrides, source) for r in refs)
    jobs = _merge(parts, names, refs, with_names=tr is not None, speeds=speeds)
    teams = workload.class_teams
    return replace(jobs, class_teams=teams) if any(teams) else jobs


COLUMNS = (
    "arrival_h",
    "gpus",
    "work_ref_gpu_h",
    "memory_gb",
    "comm_share",
    "job_class",
    "reference_gpu",
    "family",
)


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The parts' column as one: a single part's as it is, without a copy."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _merge(
    parts: list[Jobs],
    names: tuple[str, ...],
    refs: tuple[str, ...],
    with_names: bool,
    speeds: tuple[GpuSpeed, ...],
) -> Jobs:
    # Written for memory (at 5 M jobs a column is 40 MB): one part's columns are used as they
    # are, the parts are let go once joined, and the columns are put in order one at a time.
    cols = {c: _joined([getattr(p, c) for p in parts]) for c in COLUMNS}
    stated = any(p.state_gb is not None for p in parts)
    if stated:  # a checkpoint's size where some part knows it (workload.jobs)
        cols["state_gb"] = _joined([p.checkpoint_gb for p in parts])
    ids = None
    if with_names:
        ids = _joined(
            [p.names if p.names is not None else np.full(len(p), "", dtype=object) for p in parts]
        )
    notes = tuple(n for p in parts for n in p.notes)
    parts.clear()  # the caller's list, drawn for this merge alone
    order = np.lexsort((cols["job_class"], cols["arrival_h"]))  # by arrival, then class
    if not bool((order[1:] > order[:-1]).all()):  # already in order: nothing to move
        for c in cols:
            cols[c] = cols[c][order]
        ids = None if ids is None else ids[order]
    del order
    return Jobs(
        **cols,
        class_names=names,
        reference_gpus=refs,
        names=ids,
        notes=notes,
        families=ALL_FAMILIES,
        reference_speeds=speeds,
        class_teams=(),
        class_priority=(),
        fair_terms=None,
    )
