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
from tco.simulator.workload.traces.job_ends import EndRecords, JobEnd, read_job_ends
from tco.simulator.workload.traces.records import LoadReport, NotStarted, TraceJobs

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


def _split(line: str) -> tuple[str, str] | None:
    head = line.split(";", 3)
    if len(head) != 4:
        raise ValueError("not 'date time;type;job id;message' (a truncated line?)")
    _, kind, job_id, message = head
    return (job_id, message) if kind == "E" else None


def _end_record(payload: tuple[str, str]) -> JobEnd:
    """The job of an E record (submit, duration, GPUs, status and queue)."""
    job_id, message = payload
    values = {k: v.strip('"') for k, v in _PAIR.findall(message)}
    try:
        start = float(values.get("start", "0") or 0)
        if start <= 0:
            raise NotStarted
        submit = float(values.get("qtime") or values.get("ctime") or start)
        if "resources_used.walltime" in values:
            duration = parse_elapsed(values["resources_used.walltime"])
        else:
            duration = float(values["end"]) - start
        gpus = _gpus(values)
    except KeyError as exc:
        raise ValueError(f"no {exc.args[0]}= in the record") from None
    status = "COMPLETED" if values.get("Exit_status", "0") == "0" else "FAILED"
    return JobEnd(job_id, submit, duration, gpus, status, values.get("queue", ""))


PBS = EndRecords(
    _split,
    _end_record,
    other="records other than a job's end (E)",
    not_started="not started (no start time)",
)


def read_pbs(
    path: Path, field_name: str = "workload.trace", max_rows: int | None = None
) -> tuple[TraceJobs, LoadReport]:
    """Every job's E record of a PBS accounting log (see the module's rules)."""
    return read_job_ends(path, PBS, field_name, max_rows)
