"""``tco workload``: import and describe recorded workloads."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from tco.cli_common import console

if TYPE_CHECKING:
    from tco.simulator.workload.traces import LoadReport, TraceJobs


@click.group()
def workload() -> None:
    """Import and describe recorded workloads (job traces, Slurm sacct, Open XDMoD logs).

    \b
    Example:
      tco workload stats scenarios/traces/itp_elasticflow_2021.csv.gz
    """


TRACE_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "sacct", "xdmod", "lsf", "pbs"]),
    default="csv",
    show_default=True,
    help="How FILE is written: a CSV trace, sacct --parsable2, Open XDMoD's sacct export,"
    " LSF's lsb.acct, a PBS Pro / OpenPBS accounting log.",
)
SACCT_FORMAT = click.option(
    "--sacct-format",
    default=None,
    metavar="FIELDS",
    help="The field list a headerless sacct export was written with, as given to sacct"
    ' --format (e.g. "JobID,State,Submit,Start,End,AllocTRES").',
)
UTC_OFFSET = click.option(
    "--utc-offset",
    type=click.FloatRange(-14, 14),
    default=0.0,
    show_default=True,
    help="Offset (hours) of timestamps written without one.",
)


def _read_trace(
    file: Path, fmt: str, utc_offset: float, sacct_format: str | None, allow_empty: bool = False
) -> tuple[TraceJobs, LoadReport]:
    from tco.simulator.workload.traces import read as read_trace

    jobs, report = read_trace(
        file,
        fmt,
        utc_offset_hours=utc_offset,
        field_name="trace",
        sacct_format=sacct_format,
        allow_empty=allow_empty,
    )
    click.echo(report.summary(), err=True)
    return jobs, report


@workload.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@TRACE_FORMAT
@SACCT_FORMAT
@UTC_OFFSET
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Normalised CSV to write.",
)
def workload_import(
    file: Path, fmt: str, sacct_format: str | None, utc_offset: float, output: Path
) -> None:
    """Read FILE and write tco's normalised CSV (seconds from the first submit).

    \b
    Example:
      tco workload import sacct.txt --format sacct -o workload.csv
    """
    from tco.simulator.workload.traces import write_normalised

    jobs, _ = _read_trace(file, fmt, utc_offset, sacct_format)
    write_normalised(jobs, output)
    click.echo(f"wrote {output}: {len(jobs):,} jobs, {jobs.gpu_hours():,.1f} GPU-hours")


@workload.command("stats")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@TRACE_FORMAT
@SACCT_FORMAT
@UTC_OFFSET
def workload_stats(file: Path, fmt: str, sacct_format: str | None, utc_offset: float) -> None:
    """Print jobs, span, GPU-hours, GPUs per job, durations and arrivals per day of FILE.

    \b
    Example:
      tco workload stats scenarios/traces/itp_elasticflow_2021.csv.gz
    """
    from rich.table import Table

    from tco.simulator.workload.traces import stats as trace_stats

    jobs, report = _read_trace(file, fmt, utc_offset, sacct_format, allow_empty=True)
    st = trace_stats(jobs)
    out = console()
    if st.jobs == 0:
        out.print(
            f"{report.with_gpus:,} of {report.held:,} jobs asked for GPUs: nothing to replay on"
            " GPU options",
            highlight=False,
        )
        return
    out.print(
        f"{st.jobs:,} jobs over {st.span_days:.1f} days, {st.gpu_hours:,.1f} GPU-hours;"
        f" durations p50 {st.duration_p50_h:.2f} h, p90 {st.duration_p90_h:.2f} h,"
        f" p99 {st.duration_p99_h:.2f} h, max {st.duration_max_h:.2f} h; arrivals per day:"
        f" mean {st.arrivals_per_day_mean:,.1f}, max {st.arrivals_per_day_max:,}",
        highlight=False,
    )
    table = Table(title="GPUs per job")
    for col in ("GPUs", "jobs", "share of jobs", "GPU-hours", "share of GPU-hours"):
        table.add_column(col, justify="right")
    for k, n in st.jobs_by_gpus.items():
        h = st.gpu_hours_by_gpus[k]
        table.add_row(
            str(k), f"{n:,}", f"{n / st.jobs:.1%}", f"{h:,.1f}", f"{h / st.gpu_hours:.1%}"
        )
    out.print(table)
