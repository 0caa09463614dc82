"""Slurm accounting: ``sacct --parsable2`` (header optional) and Open XDMoD's headerless export.

Reading follows the Slurm rules in the package docstring (``tco.simulator.workload.traces``): steps
skipped, GPUs from AllocTRES, jobs not started or not ended skipped and counted, compressed
arrays expanded.
"""

from __future__ import annotations

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
from tco.simulator.workload.traces.source import open_text

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

    @property
    def index(self) -> dict[str, int]:
        return {f.lower(): i for i, f in enumerate(self.fields)}

    def split(self, line: str) -> list[str]:
        n = len(self.fields)
        parts = line.split("|", n - 1) if self.fields[-1].lower() == "jobname" else line.split("|")
        if self.fmt == "sacct" and len(parts) == n + 1 and parts[-1] == "":
            parts = parts[:-1]  # --parsable (trailing '|')
        return parts


def _layout(lines: list[str], fmt: str, path: Path, field_name: str) -> _Layout:
    fields, start = list(XDMOD_FIELDS), 0
    first = lines[0].split("|") if lines else []
    if fmt == "sacct" and first and first[0].strip().lower() in ("jobid", "jobidraw"):
        fields, start = [f.strip() for f in first], 1
    lower = {f.lower() for f in fields}
    missing = [n for n in ("JobID", "State", "AllocTRES", "Start") if n.lower() not in lower]
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


def _times(get: dict[str, str], utc_offset_hours: float) -> tuple[float, float]:
    """(submit, duration) in seconds of an ended job's line."""
    started = parse_time(get["start"], utc_offset_hours)
    if get["elapsed"]:
        duration = parse_elapsed(get["elapsed"])
    else:
        if get["end"] in ("", "Unknown"):
            raise ValueError("End is Unknown")
        duration = parse_time(get["end"], utc_offset_hours) - started
    submit_text = get["submit"]
    submit = (
        parse_time(submit_text, utc_offset_hours) if submit_text not in ("", "Unknown") else started
    )
    return submit, duration


def _line(
    parts: list[str],
    line_no: int,
    layout: _Layout,
    report: LoadReport,
    rows: RowCollector,
    utc_offset_hours: float,
    keep_empty: bool,
) -> None:
    """Add one data line's job(s) to ``rows``, or count why it is skipped or unreadable."""
    index = layout.index
    names = ("jobid", "state", "start", "end", "elapsed", "submit", "alloctres", "cluster")
    get = {
        k: parts[index[k]].strip() if k in index and index[k] < len(parts) else "" for k in names
    }
    if "." in get["jobid"]:
        report.skipped["job steps"] += 1
        return
    state = get["state"].upper().split(" ", 1)[0]  # 'CANCELLED by 102216'
    if state in NOT_ENDED_STATES or get["start"] in ("", "Unknown", "None"):
        report.skipped["not started or not ended (pending, running...)"] += 1
        return
    if state not in ENDED_STATES:
        report.bad(line_no, f"unknown state {get['state']!r}")
        return
    try:
        submit, duration = _times(get, utc_offset_hours)
        gpus, model = gpus_from_tres(get["alloctres"])
        check_values(gpus, duration)
        tasks = array_size(get["jobid"])
    except (ValueError, OverflowError) as exc:
        report.bad(line_no, str(exc))
        return
    if not replayable(report, gpus, duration, keep_empty):
        return
    rows.reserve(tasks)  # before expanding: 100_[1-100000000] must not fill memory
    for one in expand_array(get["jobid"]):
        rows.add(one, submit, duration, gpus, model, state, get["cluster"])


def read_sacct(
    path: Path,
    fmt: str = "sacct",
    utc_offset_hours: float = 0.0,
    field_name: str = "workload.trace",
    keep_empty: bool = False,
    max_rows: int | None = None,
) -> tuple[TraceJobs, LoadReport]:
    """``sacct --parsable2`` (header optional: without one, Open XDMoD's 26-field order).

    ``keep_empty`` keeps allocations without GPUs or of zero duration (to inspect a log); a
    replay leaves them out, counted. ``max_rows``: read only that many lines (a quick check).
    """
    lines = open_text(path, f"{field_name}.file").splitlines()
    report = LoadReport(str(path))
    layout = _layout(lines, fmt, path, field_name)
    rows = RowCollector(str(path), field_name)
    n_fields = len(layout.fields)
    for line_no, line in enumerate(lines[layout.first_line :], start=layout.first_line + 1):
        if not line.strip():
            continue
        if max_rows is not None and report.rows >= max_rows:
            break
        parts = layout.split(line)
        report.rows += 1
        if len(parts) != n_fields:
            report.bad(line_no, f"{len(parts)} fields, expected {n_fields}")
            continue
        _line(parts, line_no, layout, report, rows, utc_offset_hours, keep_empty)
    jobs = rows.done()
    report.jobs = len(jobs)
    return jobs, report
