"""Recorded workloads: job traces (CSV), Slurm accounting (``sacct --parsable2``, Open XDMoD), LSF's
``lsb.acct`` and PBS Pro / OpenPBS accounting logs.

Reading follows the Slurm rules (docs/MODEL.md, "Traces"): job steps (``123.batch``) are
skipped, not added; GPUs are the ``gres/gpu`` count of AllocTRES (the untyped entry when both
typed and untyped appear, never their sum; the GPU model from the typed name); jobs that never
started or have not ended are skipped and counted, except PENDING and RUNNING jobs, kept as
demand unless the trace says ``unfinished: drop`` (a pending job for its time limit, a running
one for its time so far); ``CANCELLED by N`` is a cancelled job that ran;
compressed array records (``123_[1-3,5]``) become one job per index; ``Elapsed`` is
``[DD-[HH:]]MM:SS``; timestamps are UTC unless the user gives their offset. A line that cannot
be read is counted and reported with its number, never dropped silently and never fatal.

The package holds one module per concern: ``fields`` (Slurm field parsers), ``records`` (the jobs
read and the report of what was read and skipped), ``csv_trace``, ``sacct``, ``lsf`` and ``pbs``
(the formats), ``normalised`` (tco's own CSV), ``stats`` (what a trace holds). Reading a trace
is I/O at the edge: the rest of the simulator sees only :class:`TraceJobs`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from tco.simulator.core.errors import ScenarioError
from tco.simulator.workload.traces.csv_trace import DEFAULT_COLUMNS, CsvColumns, read_csv
from tco.simulator.workload.traces.fields import (
    expand_array,
    gpus_from_tres,
    parse_elapsed,
    parse_time,
)
from tco.simulator.workload.traces.lsf import read_lsf
from tco.simulator.workload.traces.normalised import write_normalised
from tco.simulator.workload.traces.pbs import read_pbs
from tco.simulator.workload.traces.records import LoadReport, TraceJobs
from tco.simulator.workload.traces.sacct import XDMOD_FIELDS, read_sacct
from tco.simulator.workload.traces.stats import TraceStats, stats

READERS = {"lsf": read_lsf, "pbs": read_pbs}  # accounting logs read whole, in UTC epoch seconds
TraceFormat = Literal["csv", "sacct", "xdmod", "lsf", "pbs"]  # every format ``read`` reads
FORMATS: tuple[str, ...] = get_args(TraceFormat)

__all__ = [
    "DEFAULT_COLUMNS",
    "XDMOD_FIELDS",
    "CsvColumns",
    "LoadReport",
    "TraceJobs",
    "TraceStats",
    "expand_array",
    "gpus_from_tres",
    "parse_elapsed",
    "parse_time",
    "read",
    "read_csv",
    "read_sacct",
    "stats",
    "write_normalised",
]


def read(
    path: Path,
    fmt: str,
    columns: CsvColumns = DEFAULT_COLUMNS,
    timestamps: bool = False,
    utc_offset_hours: float = 0.0,
    field_name: str = "workload.trace",
    max_rows: int | None = None,
    sacct_format: str | None = None,
    allow_empty: bool = False,
    keep_unfinished: bool = True,
) -> tuple[TraceJobs, LoadReport]:
    """Read a trace in ``fmt`` (csv, sacct, xdmod, lsf, pbs). A file from which no job can be
    read is an error in every format, unless ``allow_empty`` and it held jobs (``tco workload
    stats`` describes a log of CPU jobs; a replay of it stays an error). ``max_rows``: read
    only the first rows, to check a file quickly. ``keep_unfinished`` (sacct): jobs pending or
    running at the export are demand, kept and counted apart; else skipped, counted."""
    if not path.exists():
        raise ScenarioError(str(path), f"{field_name}.file", "no such file")
    if path.is_file() and _looks_like_a_scenario(path):
        raise ScenarioError(
            str(path),
            field_name,
            "this looks like a scenario, not a trace (it has the keys of one): run `tco"
            f" simulate {path}`, or give a job trace ({', '.join(FORMATS)})",
        )
    if fmt == "csv":
        jobs, report = read_csv(path, columns, timestamps, utc_offset_hours, field_name, max_rows)
    elif fmt in READERS:
        jobs, report = READERS[fmt](path, field_name, max_rows)
    else:
        jobs, report = read_sacct(
            path,
            fmt,
            utc_offset_hours,
            field_name,
            max_rows=max_rows,
            sacct_format=sacct_format,
            keep_unfinished=keep_unfinished,
        )
    empty = len(jobs) == 0 and (max_rows is None or report.rows == report.bad_count)
    if empty and not (allow_empty and report.held > 0):  # a file of no job at all: an error
        raise ScenarioError(str(path), field_name, f"no job to replay: {report.summary()}")
    return jobs, report


SCENARIO_KEYS = ("options:", "workload:", "horizon_months:")


def _looks_like_a_scenario(path: Path) -> bool:
    """A YAML file with a scenario's top-level keys (read from its first 64 KiB)."""
    with path.open("rb") as f:
        head = f.read(65536).decode("utf-8", errors="replace")
    keys = {line.split("#")[0].strip() for line in head.splitlines() if line[:1].isalpha()}
    return sum(any(k.startswith(key) for k in keys) for key in SCENARIO_KEYS) >= 2
