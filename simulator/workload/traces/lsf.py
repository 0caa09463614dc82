"""IBM Spectrum LSF's job log ``lsb.acct`` (``LSB_SHAREDIR/<cluster>/logdir/lsb.acct*``).

One record per line, fields separated by blanks, strings in double quotes (a quote inside one is
doubled). A job's end is its ``JOB_FINISH`` record, whose leading fields are, in order (IBM
Spectrum LSF 10.1 configuration reference, "lsb.acct"): the record type, the version, the event
time (when the job finished), jobId, userId, options, numProcessors, submitTime, beginTime,
termTime, startTime (its dispatch), userName, queue, resReq, dependCond, preExecCmd, fromHost,
cwd, inFile, outFile, errFile, jobFile, numAskedHosts and that many askedHosts, numExHosts and
that many execHosts, jStatus (32 EXIT, 64 DONE), hostFactor, jobName, command, ...

Read: submit ``submitTime``, duration ``event time - startTime`` (epoch seconds, UTC); a job
with ``startTime`` 0 never started and is counted. GPUs per host from the resource requirement (the
last one of the record that names GPUs: ``effectiveResReq`` where the record reaches it, else
``resReq``): ``num=N`` inside a ``gpu`` section (``-gpu "num=N"``), or
``rusage[ngpus_physical=N]`` / ``ngpus=N``; times the
distinct execution hosts (execHosts lists a host once per slot; ``4*hostA`` is one host). Other
record types (``JOB_RESIZE``, ``EVENT_ADRSV_FINISH``) are counted, not read as jobs.
"""

from __future__ import annotations

import re
from pathlib import Path

from tco.simulator.workload.traces.records import (
    LoadReport,
    NotStarted,
    RowCollector,
    TraceJobs,
    check_values,
    replayable,
)
from tco.simulator.workload.traces.source import open_text

_TOKEN = re.compile(r'"((?:[^"]|"")*)"|(\S+)')
_GPU = (
    re.compile(r"ngpus_physical\s*=\s*(\d+(?:\.\d+)?)"),
    re.compile(r"\bngpus\s*=\s*(\d+(?:\.\d+)?)"),
    re.compile(r"gpu[^\]]*?\bnum\s*=\s*(\d+)", re.IGNORECASE),
)
STATUS = {"32": "FAILED", "64": "COMPLETED"}


def tokens(line: str) -> list[str]:
    return [q.replace('""', '"') if b == "" else b for q, b in _TOKEN.findall(line)]


def gpus_per_host(requirement: str) -> int:
    for pattern in _GPU:
        m = pattern.search(requirement)
        if m:
            return int(float(m.group(1)))
    return 0


def _per_host(t: list[str], after_command: int) -> int:
    """GPUs per host: from the last resource requirement of the record that names GPUs (the
    ``effectiveResReq`` of LSF 10.1, when the record reaches it), else from ``resReq``."""
    for value in reversed(t[after_command:]):
        found = gpus_per_host(value)
        if found:
            return found
    return gpus_per_host(t[13])


def _finish(t: list[str]) -> tuple[str, float, float, int, str]:
    """(job id, submit, duration, GPUs, status) of a JOB_FINISH record's tokens."""
    event, job_id, submit, start = float(t[2]), t[3], float(t[7]), float(t[10])
    if start <= 0:
        raise NotStarted
    asked = int(t[22])
    n_exec = int(t[23 + asked])
    hosts = t[24 + asked : 24 + asked + n_exec]
    distinct = {h.split("*", 1)[-1] for h in hosts}
    status = STATUS.get(t[24 + asked + n_exec], "FAILED")
    per_host = _per_host(t, 24 + asked + n_exec + 4)
    return job_id, submit, event - start, per_host * max(1, len(distinct)), status


def read_lsf(
    path: Path, field_name: str = "workload.trace", max_rows: int | None = None
) -> tuple[TraceJobs, LoadReport]:
    """Every JOB_FINISH record of an lsb.acct file (see the module's rules)."""
    report = LoadReport(str(path))
    rows = RowCollector(str(path), field_name)
    for line_no, line in enumerate(open_text(path, f"{field_name}.file").splitlines(), start=1):
        if not line.strip():
            continue
        if max_rows is not None and report.rows >= max_rows:
            break
        report.rows += 1
        t = tokens(line)
        if t[0] != "JOB_FINISH":
            report.skipped["records other than a job's end (JOB_FINISH)"] += 1
            continue
        report.held += 1
        try:
            job_id, submit, duration, gpus, status = _finish(t)
            check_values(gpus, duration)
        except NotStarted:
            report.skipped["not started (startTime 0)"] += 1
            continue
        except (ValueError, IndexError, OverflowError) as exc:
            why = "the record ends early (truncated)" if isinstance(exc, IndexError) else exc
            report.bad(line_no, str(why))
            continue
        if not replayable(report, gpus, duration, keep_empty=False):
            continue
        rows.add(job_id, submit, duration, gpus, "", status, "")
    jobs = rows.done()
    report.jobs = len(jobs)
    return jobs, report
