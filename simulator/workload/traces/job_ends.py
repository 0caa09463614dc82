"""Accounting logs of one record per line, a job's end among records of other kinds (LSF's
``lsb.acct``, PBS's accounting log): the reading loop they share. Each format says how a line
splits (a job's end, another record, or no record at all) and how a job's end reads; the loop
counts every line in the report as the other readers do."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tco.simulator.workload.traces.records import (
    LoadReport,
    NotStarted,
    RowCollector,
    TraceJobs,
    check_values,
    replayable,
)
from tco.simulator.workload.traces.source import lines


@dataclass(frozen=True)
class JobEnd:
    job_id: str
    submit_s: float
    duration_s: float
    gpus: int
    status: str
    cluster: str = ""


@dataclass(frozen=True)
class EndRecords:
    """A format: ``split`` gives a line's job-end payload, or None for a record of another kind
    (ValueError: the line is no record); ``read`` gives the payload's job (NotStarted for a job
    that never ran; ValueError when unreadable); the words the report counts them by."""

    split: Callable[[str], Any]
    read: Callable[[Any], JobEnd]
    other: str  # e.g. "records other than a job's end (E)"
    not_started: str


def read_job_ends(
    path: Path, fmt: EndRecords, field_name: str, max_rows: int | None
) -> tuple[TraceJobs, LoadReport]:
    """Every job's end in ``path``, in the format ``fmt``, with the report of what was read."""
    report = LoadReport(str(path))
    rows = RowCollector(str(path), field_name)
    for line_no, line in enumerate(lines(path, f"{field_name}.file"), start=1):
        if not line.strip():
            continue
        if max_rows is not None and report.rows >= max_rows:
            break
        report.rows += 1
        try:
            payload = fmt.split(line)
        except ValueError as exc:
            report.bad(line_no, str(exc))
            continue
        if payload is None:
            report.skipped[fmt.other] += 1
            continue
        try:
            end = fmt.read(payload)
            if not math.isfinite(end.submit_s):  # 'nan' parses as a float
                raise ValueError("submit time is not a finite number")
            check_values(end.gpus, end.duration_s)
        except NotStarted:
            report.held += 1
            report.skipped[fmt.not_started] += 1
            continue
        except (ValueError, OverflowError) as exc:
            report.bad(line_no, str(exc))  # unreadable: not counted as a job the file holds
            continue
        report.held += 1
        if not replayable(report, end.gpus, end.duration_s, keep_empty=False):
            continue
        rows.add(end.job_id, end.submit_s, end.duration_s, end.gpus, "", end.status, end.cluster)
    jobs = rows.done()
    report.jobs = len(jobs)
    return jobs, report
