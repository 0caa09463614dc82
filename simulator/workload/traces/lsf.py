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

from tco.simulator.workload.traces.job_ends import EndRecords, JobEnd, read_job_ends
from tco.simulator.workload.traces.records import LoadReport, NotStarted, TraceJobs

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


def _split(line: str) -> list[str] | None:
    t = tokens(line)
    return t if t[0] == "JOB_FINISH" else None


def _finish(t: list[str]) -> JobEnd:
    """The job of a JOB_FINISH record's tokens."""
    try:
        event, job_id, submit, start = float(t[2]), t[3], float(t[7]), float(t[10])
        if start <= 0:
            raise NotStarted
        asked = int(t[22])
        n_exec = int(t[23 + asked])
        hosts = t[24 + asked : 24 + asked + n_exec]
        status = STATUS.get(t[24 + asked + n_exec], "FAILED")
        per_host = _per_host(t, 24 + asked + n_exec + 4)
    except IndexError:
        raise ValueError("the record ends early (truncated)") from None
    distinct = {h.split("*", 1)[-1] for h in hosts}
    return JobEnd(job_id, submit, event - start, per_host * max(1, len(distinct)), status)


LSF = EndRecords(
    _split,
    _finish,
    other="records other than a job's end (JOB_FINISH)",
    not_started="not started (startTime 0)",
)


def read_lsf(
    path: Path, field_name: str = "workload.trace", max_rows: int | None = None
) -> tuple[TraceJobs, LoadReport]:
    """Every JOB_FINISH record of an lsb.acct file (see the module's rules)."""
    return read_job_ends(path, LSF, field_name, max_rows)
