"""Slurm accounting: ``sacct --parsable2`` as sites export it, and Open XDMoD's headerless export.

The header may list sacct's fields in any order, after leading blank or ``#`` lines; it is found
by its field names. A headerless file is read by the field list the user gives in sacct's own
syntax (``--sacct-format "State,JobID,..."``, ``sacct_format:``), else in Open XDMoD's 26-field
order when it has 26 fields; any other headerless file is refused, naming the layouts known.

Reading follows the Slurm rules in the package docstring (``tco.simulator.workload.traces``):
steps (``123.batch``, ``123.extern``, ``123.0``, ``123.interactive``) fold into their job; a job
known only by its steps is kept, from its steps' times and GPUs, and counted; GPUs from
AllocTRES; jobs not started or not ended skipped and counted; compressed arrays expanded.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tco.simulator.core.errors import ScenarioError
from tco.simulator.workload.traces.fields import (
    array_size,
    expand_array,
    gpus_from_tres,
    parse_elapsed,
    parse_time,
)
from tco.simulator.workload.traces.records import (
    LoadReport,
    RowCollector,
    TraceJobs,
    check_values,
    replayable,
)
from tco.simulator.workload.traces.source import lines

# Open XDMoD's headerless export order (docs/resource-manager-slurm.md); JobName is last so
# that a '|' inside a job name falls into it.
XDMOD_FIELDS = (
    "JobID JobIDRaw Cluster Partition QOS Account Group GID User UID Submit Eligible Start End"
    " Elapsed ExitCode State NNodes NCPUS ReqCPUS ReqMem ReqTRES AllocTRES Timelimit NodeList"
    " JobName"
).split()
ENDED_STATES = {
    "BOOT_FAIL",
    "CANCELLED",
    "COMPLETED",
    "DEADLINE",
    "FAILED",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "PREEMPTED",
    "TIMEOUT",
    "REVOKED",
}
NOT_ENDED_STATES = {"PENDING", "RUNNING", "REQUEUED", "RESIZING", "SUSPENDED"}


@dataclass(frozen=True)
class _Layout:
    """Which field is where: the header's names (or XDMoD's order) and where data lines start."""

    fields: list[str]
    first_line: int  # index of the first data line
    fmt: str

    @functools.cached_property
    def index(self) -> dict[str, int]:  # read for every line: built once
        return {f.lower(): i for i, f in enumerate(self.fields)}

    def job_id(self, line: str) -> str | None:
        """The line's JobID field, split no further than it (None: the line is too short)."""
        at = self.index["jobid"]
        parts = line.split("|", at + 1)
        return parts[at].strip() if len(parts) > at else None

    def split(self, line: str) -> list[str]:
        n = len(self.fields)
        parts = line.split("|", n - 1) if self.fields[-1].lower() == "jobname" else line.split("|")
        if self.fmt == "sacct" and len(parts) == n + 1 and parts[-1] == "":
            parts = parts[:-1]  # --parsable (trailing '|')
        elif self.fmt == "sacct" and len(parts) < n and self._unused_from(len(parts)):
            # --parsable2 writes no separator after its last field: some exports (the
            # hpc-cost-simulator's test files) end a line whose last fields are empty without
            # them. Taken as empty where tco reads none of them, so nothing is invented.
            parts = parts + [""] * (n - len(parts))
        return parts

    def _unused_from(self, i: int) -> bool:
        """Whether tco reads none of the fields from position ``i`` on."""
        return not any(f.lower() in _NAMES for f in self.fields[i:])


# sacct's field names (sacct --helpformat, Slurm 23.02), lower case: a line made of them is a
# header wherever it sits after leading blank or comment lines.
SACCT_FIELDS = frozenset(
    """account admincomment alloccpus allocnodes alloctres associd avecpu avecpufreq avediskread
    avediskwrite avepages averss avevmsize blockid cluster comment constraints consumedenergy
    consumedenergyraw container cputime cputimeraw dbindex derivedexitcode elapsed elapsedraw
    eligible end exitcode extra failednode flags gid group jobid jobidraw jobname layout licenses
    maxdiskread maxdiskreadnode maxdiskreadtask maxdiskwrite maxdiskwritenode maxdiskwritetask
    maxpages maxpagesnode maxpagestask maxrss maxrssnode maxrsstask maxvmsize maxvmsizenode
    maxvmsizetask mcslabel mincpu mincpunode mincputask ncpus nnodes nodelist ntasks partition
    planned plannedcpu plannedcpuraw priority qos qosraw reason reqcpufreq reqcpufreqgov
    reqcpufreqmax reqcpufreqmin reqcpus reqmem reqnodes reqtres reservation reservationid
    start state submit submitline suspended systemcomment systemcpu timelimit timelimitraw
    totalcpu tresusageinave tresusageinmax tresusageinmaxnode tresusageinmaxtask tresusageinmin
    tresusageinminnode tresusageinmintask tresusageintot tresusageoutave tresusageoutmax
    tresusageoutmaxnode tresusageoutmaxtask tresusageoutmin tresusageoutminnode
    tresusageoutmintask tresusageouttot uid user usercpu wckey wckeyid workdir""".split()
)
FIX = (
    "export with a header (sacct --parsable2 without --noheader), or give the field list it"
    ' was exported with: --sacct-format "JobID,State,Submit,Start,End,AllocTRES"'
    " (sacct_format: in a scenario's trace)"
)


def _is_header(fields: list[str]) -> bool:
    names = [f.strip().lower() for f in fields if f.strip()]
    known = sum(n in SACCT_FIELDS for n in names)
    return bool(names) and ("jobid" in names or "jobidraw" in names) and known >= 0.8 * len(names)


def _xdmod_state(first: list[str]) -> bool:
    """Whether a 26-field line has a Slurm state where Open XDMoD's order puts it (else it is
    another export of 26 fields, which the XDMoD order would misread field by field)."""
    state = first[XDMOD_FIELDS.index("State")].strip().upper().split(" ", 1)[0]
    return state in ENDED_STATES or state in NOT_ENDED_STATES


def parse_sacct_format(text: str) -> list[str]:
    """sacct's ``--format`` syntax: comma-separated names, each maybe ``%width`` (ignored)."""
    return [f.split("%", 1)[0].strip() for f in text.split(",") if f.strip()]


def _layout(
    lines: list[str], fmt: str, path: Path, field_name: str, sacct_format: str | None
) -> _Layout:
    start = 0
    while start < len(lines) and (not lines[start].strip() or lines[start].lstrip()[:1] == "#"):
        start += 1  # leading blank and comment lines
    first = lines[start].split("|") if start < len(lines) else []
    if sacct_format is not None:
        fields = parse_sacct_format(sacct_format)
        unknown = [f for f in fields if f.lower() not in SACCT_FIELDS]
        if unknown:
            raise ScenarioError(
                str(path),
                f"{field_name}.sacct_format",
                f"unknown sacct field(s) {', '.join(map(repr, unknown))}: names as in"
                " sacct --helpformat, e.g. JobID,State,Submit,Start,End,Elapsed,AllocTRES",
            )
        if _is_header(first):
            start += 1  # the file has its header too: the header's names are the same fields
    elif fmt == "sacct" and _is_header(first):
        fields, start = [f.strip() for f in first], start + 1
    elif (len(first) == len(XDMOD_FIELDS) and _xdmod_state(first)) or (fmt == "xdmod" and first):
        fields = list(XDMOD_FIELDS)
    elif first:
        raise ScenarioError(
            str(path),
            field_name,
            f"a headerless sacct export of {len(first)} fields matches no layout tco knows"
            f" (a header naming sacct's fields, or Open XDMoD's {len(XDMOD_FIELDS)}-field"
            f" order); {FIX}",
        )
    else:
        fields = list(XDMOD_FIELDS)
    lower = {f.lower() for f in fields}
    # Without AllocTRES every job reads as without GPUs (counted so: tco workload stats can
    # still account for such a log; a replay of it has no job to replay).
    missing = [n for n in ("JobID", "State", "Start") if n.lower() not in lower]
    if "end" not in lower and "elapsed" not in lower:
        missing.append("End (or Elapsed)")
    if missing:
        raise ScenarioError(
            str(path),
            field_name,
            f"the sacct output lacks {', '.join(missing)} needed to replay it; it has "
            f"{', '.join(fields)}. To fix: export with sacct --parsable2 --format "
            "JobID,Cluster,Submit,Start,End,Elapsed,State,AllocTRES",
        )
    return _Layout(fields, start, fmt)


def _times(get: dict[str, str], utc_offset_hours: float) -> tuple[float, float, float]:
    """(submit, duration, wait) in seconds of an ended job's line (wait NaN without a Submit
    time: the start stands for it)."""
    started = parse_time(get["start"], utc_offset_hours)
    if get["elapsed"]:
        duration = parse_elapsed(get["elapsed"])
    else:
        if get["end"] in ("", "Unknown"):
            raise ValueError("End is Unknown")
        duration = parse_time(get["end"], utc_offset_hours) - started
    if get["submit"] in ("", "Unknown"):
        return started, duration, math.nan
    submit = parse_time(get["submit"], utc_offset_hours)
    return submit, duration, max(0.0, started - submit)


def _line(
    parts: list[str],
    line_no: int,
    layout: _Layout,
    report: LoadReport,
    rows: RowCollector,
    utc_offset_hours: float,
    keep_empty: bool,
    keep_unfinished: bool = True,
) -> None:
    """Add one data line's job(s) to ``rows``, or count why it is skipped or unreadable."""
    index = layout.index
    get = {
        k: parts[index[k]].strip() if k in index and index[k] < len(parts) else "" for k in _NAMES
    }
    state = get["state"].upper().split(" ", 1)[0]  # 'CANCELLED by 102216'
    unfinished = keep_unfinished and state in UNFINISHED
    if not unfinished and (state in NOT_ENDED_STATES or get["start"] in ("", "Unknown", "None")):
        report.held += 1
        report.skipped["not started or not ended (pending, running...)"] += 1
        return
    if not unfinished and state not in ENDED_STATES:
        report.bad(line_no, f"unknown state {get['state']!r}")
        return
    try:
        got = (
            _unfinished(get, state, utc_offset_hours)
            if unfinished
            else _ended(get, utc_offset_hours)
        )
        if isinstance(got, str):  # an unfinished job of unknown length: counted apart
            report.held += 1
            report.skipped[got] += 1
            return
        submit, duration, (gpus, model), wait = got
        check_values(gpus, duration)
        tasks = array_size(get["jobid"])
    except (ValueError, OverflowError) as exc:
        report.bad(line_no, str(exc))  # unreadable: not a job the file is known to hold
        return
    report.held += 1
    if not replayable(report, gpus, duration, keep_empty):
        return
    rows.reserve(tasks)  # before expanding: 100_[1-100000000] must not fill memory
    for one in expand_array(get["jobid"]):
        rows.add(one, submit, duration, gpus, model, state, get["cluster"], wait)
    if unfinished:
        report.kept_unfinished(UNFINISHED[state], tasks, tasks * gpus * duration / 3600.0)


_NAMES = (
    "jobid",
    "state",
    "start",
    "end",
    "elapsed",
    "submit",
    "alloctres",
    "reqtres",
    "timelimit",
    "cluster",
)
# Jobs the export caught unfinished, kept by default as the demand they are: a pending job from
# its submit time for as long as its time limit (what it asked for: the one length Slurm knows),
# a running one for as long as it had run at the export (a lower bound).
UNFINISHED = {"PENDING": "pending", "RUNNING": "running"}
NO_LIMIT = ("", "UNLIMITED", "PARTITION_LIMIT", "INVALID", "NONE")
# submit (s), duration (s), (GPUs, GPU model), wait before the start (s; NaN: not known)
Job = tuple[float, float, tuple[int, str], float]


def _ended(get: dict[str, str], utc_offset_hours: float) -> Job:
    submit, duration, wait = _times(get, utc_offset_hours)
    return submit, duration, gpus_from_tres(get["alloctres"]), wait


def _unfinished(get: dict[str, str], state: str, utc_offset_hours: float) -> Job | str:
    """A PENDING or RUNNING job as demand (``UNFINISHED``), or why its length is unknown."""
    if state == "PENDING":
        if get["submit"] in ("", "Unknown", "None"):
            raise ValueError("a pending job without a Submit time")
        submit = parse_time(get["submit"], utc_offset_hours)
        if get["timelimit"].upper() in NO_LIMIT:
            return "pending without a time limit (their length is unknown)"
        duration = parse_elapsed(get["timelimit"])
        return submit, duration, gpus_from_tres(get["alloctres"] or get["reqtres"]), math.nan
    if not get["elapsed"]:
        return "running, without Elapsed in the export (length unknown)"
    started = parse_time(get["start"], utc_offset_hours)
    s = get["submit"]
    submit = parse_time(s, utc_offset_hours) if s not in ("", "Unknown") else started
    # Its wait is not counted: an unfinished job is demand, not a record of the queue.
    return submit, parse_elapsed(get["elapsed"]), gpus_from_tres(get["alloctres"]), math.nan


def _step_job(steps: list[list[str]], layout: _Layout) -> list[str]:
    """A job known only by its steps, as one line: its id, the earliest submit and start, the
    latest end (or the longest elapsed), the most GPUs, and its state (COMPLETED if any step
    completed, else the first step's)."""
    index = layout.index
    out = list(steps[0])

    def col(name: str) -> list[str]:
        i = index.get(name)
        return [] if i is None else [p[i].strip() for p in steps if p[i].strip()]

    def put(name: str, value: str) -> None:
        if name in index:
            out[index[name]] = value

    put("jobid", out[index["jobid"]].split(".", 1)[0])
    for name, pick in (("submit", min), ("start", min), ("end", max)):
        known = [v for v in col(name) if v not in ("Unknown", "None")]
        put(name, pick(known) if known else "")  # ISO times sort as text
    elapsed = col("elapsed")
    put("elapsed", max(elapsed, key=parse_elapsed) if elapsed and "end" not in index else "")
    tres = col("alloctres")
    put("alloctres", max(tres, key=lambda t: gpus_from_tres(t)[0]) if tres else "")
    states = [v.upper().split(" ", 1)[0] for v in col("state")]
    put("state", "COMPLETED" if "COMPLETED" in states else (states[0] if states else ""))
    return out


def read_sacct(
    path: Path,
    fmt: str = "sacct",
    utc_offset_hours: float = 0.0,
    field_name: str = "workload.trace",
    keep_empty: bool = False,
    max_rows: int | None = None,
    sacct_format: str | None = None,
    keep_unfinished: bool = True,
) -> tuple[TraceJobs, LoadReport]:
    """``sacct --parsable2`` (see the module's rules for the header and the steps).

    ``keep_empty`` keeps allocations without GPUs or of zero duration (to inspect a log); a
    replay leaves them out, counted. ``max_rows``: read only that many lines (a quick check).
    ``keep_unfinished``: PENDING and RUNNING jobs are demand (``UNFINISHED``), else skipped.
    Memory holds the jobs, never the text.
    """
    field = f"{field_name}.file"
    layout = _layout(_head(path, field), fmt, path, field_name, sacct_format)
    report = LoadReport(str(path))
    rows = RowCollector(str(path), field_name)

    def add(parts: list[str], line_no: int) -> None:
        _line(parts, line_no, layout, report, rows, utc_offset_hours, keep_empty, keep_unfinished)

    orphans, first_line = _jobs_and_orphans(path, field, layout, report, max_rows, add)
    for parent, steps in orphans.items():
        report.from_steps += 1
        report.steps_folded += len(steps)
        add(_step_job(steps, layout), first_line[parent])
    if "alloctres" not in layout.index and report.skipped["without GPUs"]:
        n = report.skipped.pop("without GPUs")
        report.skipped["without GPUs known (the export has no AllocTRES: add it to --format)"] = n
    jobs = rows.done()
    report.jobs = len(jobs)
    return jobs, report


def _jobs_and_orphans(
    path: Path,
    field: str,
    layout: _Layout,
    report: LoadReport,
    max_rows: int | None,
    add: Callable[[list[str], int], None],
) -> tuple[dict[str, list[list[str]]], dict[str, int]]:
    """Each job line to ``add``; the steps of jobs without a line of their own, by job, with
    the line of each job's first step. The file is read twice, line by line: the jobs with a
    line of their own (a step of one of them folds into it), then the lines."""
    n_fields = len(layout.fields)
    at = layout.index["jobid"]

    def body() -> Iterator[tuple[int, str]]:
        for line_no, line in enumerate(lines(path, field), start=1):
            if line_no > layout.first_line and line.strip() and line.lstrip()[:1] != "#":
                yield line_no, line

    jobs_seen = {
        job
        for _, line in body()
        for job in (layout.job_id(line),)
        if job is not None and "." not in job
    }
    orphans: dict[str, list[list[str]]] = {}
    first_line: dict[str, int] = {}
    for line_no, line in body():
        if max_rows is not None and report.rows >= max_rows:
            break
        parts = layout.split(line)
        report.rows += 1
        if len(parts) != n_fields:
            report.bad(line_no, f"{len(parts)} fields, expected {n_fields} (a truncated line?)")
            continue
        job = parts[at].strip()
        if "." not in job:
            add(parts, line_no)
            continue
        parent = job.split(".", 1)[0]
        if parent in jobs_seen:
            report.steps_folded += 1
        else:
            orphans.setdefault(parent, []).append(parts)
            first_line.setdefault(parent, line_no)
    return orphans, first_line


def _head(path: Path, field: str) -> list[str]:
    """The file's leading blank and comment lines and its first other line (the header, or
    the first record): what the layout is read from."""
    out = []
    for line in lines(path, field):
        out.append(line)
        if line.strip() and line.lstrip()[:1] != "#":
            break
    return out
