"""PBS Pro / OpenPBS accounting logs (``server_priv/accounting/YYYYMMDD``).

Each line is ``MM/DD/YYYY HH:MM:SS;type;job id;key=value ...`` (PBS Professional Reference Guide,
"Accounting Log"). A job's end is its ``E`` record: submit ``qtime`` (else ``ctime``), start
``start``, duration ``resources_used.walltime`` (else ``end - start``), all epoch seconds in UTC.
GPUs are ``Resource_List.ngpus``, else the sum over ``Resource_List.select`` chunks of
(chunks x ``ngpus``), e.g. ``2:ncpus=8:ngpus=4+1:ngpus=2`` is 10. Other records (Q queued,
S started, D deleted, A aborted, R rerun...) are counted, not read as jobs; an ``E`` record of a
job that never started (``start`` absent or 0) is counted as not started. Values in double quotes
may hold spaces.
"""

from __future__ import annotations

import re
from pathlib import Path

from tco.simulator.workload.traces.fields import parse_elapsed
from tco.simulator.workload.traces.records import (
    LoadReport,
    NotStarted,
    RowCollector,
    TraceJobs,
    check_values,
    replayable,
)
from tco.simulator.workload.traces.source import open_text

_PAIR = re.compile(r'([^\s=]+)=("[^"]*"|\S*)')


def _select_gpus(select: str) -> int:
    total = 0
    for chunk in select.split("+"):
        parts = chunk.split(":")
        count = int(parts[0]) if parts and parts[0].isdigit() else 1
        for p in parts:
            if p.startswith("ngpus="):
                total += count * int(p.removeprefix("ngpus="))
    return total


def _gpus(values: dict[str, str]) -> int:
    if "Resource_List.ngpus" in values:
        return int(values["Resource_List.ngpus"])
    return _select_gpus(values.get("Resource_List.select", ""))


def _end_record(values: dict[str, str]) -> tuple[float, float, int]:
    """(submit, duration, GPUs) of an E record; ValueError when unreadable."""
    start = float(values.get("start", "0") or 0)
    if start <= 0:
        raise NotStarted
    submit = float(values.get("qtime") or values.get("ctime") or start)
    if "resources_used.walltime" in values:
        duration = parse_elapsed(values["resources_used.walltime"])
    else:
        duration = float(values["end"]) - start
    return submit, duration, _gpus(values)


def read_pbs(
    path: Path, field_name: str = "workload.trace", max_rows: int | None = None
) -> tuple[TraceJobs, LoadReport]:
    """Every job's E record of a PBS accounting log (see the module's rules)."""
    report = LoadReport(str(path))
    rows = RowCollector(str(path), field_name)
    for line_no, line in enumerate(open_text(path, f"{field_name}.file").splitlines(), start=1):
        if not line.strip():
            continue
        if max_rows is not None and report.rows >= max_rows:
            break
        report.rows += 1
        head = line.split(";", 3)
        if len(head) != 4:
            report.bad(line_no, "not 'date time;type;job id;message' (a truncated line?)")
            continue
        _, kind, job_id, message = head
        if kind != "E":
            report.skipped["records other than a job's end (E)"] += 1
            continue
        report.held += 1
        values = {k: v.strip('"') for k, v in _PAIR.findall(message)}
        try:
            submit, duration, gpus = _end_record(values)
            check_values(gpus, duration)
        except NotStarted:
            report.skipped["not started (no start time)"] += 1
            continue
        except (ValueError, KeyError, OverflowError) as exc:
            report.bad(line_no, f"{type(exc).__name__}: {exc}")
            continue
        if not replayable(report, gpus, duration, keep_empty=False):
            continue
        status = "COMPLETED" if values.get("Exit_status", "0") == "0" else "FAILED"
        rows.add(job_id, submit, duration, gpus, "", status, values.get("queue", ""))
    jobs = rows.done()
    report.jobs = len(jobs)
    return jobs, report
