"""The ``tco`` command: thin over the library. Each command parses, calls one function, renders.

Domain errors (a bad scenario, an unknown or unavailable price) become one line on stderr and
exit code 2 at one boundary (:func:`main`); ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from tco.pricing import report as price_report
from tco.pricing import snapshot
from tco.pricing.book import MODES, Mode, PriceBook
from tco.pricing.errors import PricingError
from tco.reports import terminal
from tco.reports.build import FORMATS, write_report
from tco.simulator.errors import ScenarioError
from tco.simulator.run import run_file, version
from tco.simulator.scenario import load_scenario
from tco.simulator.traces import TraceJobs, write_normalised
from tco.simulator.traces import read as read_trace
from tco.simulator.traces import stats as trace_stats

EXIT_BAD_INPUT = 2


class BadInput(click.ClickException):
    """A user-fixable problem: one line, exit code 2."""

    exit_code = EXIT_BAD_INPUT

    def show(self, file: object = None) -> None:
        click.echo(f"tco: error: {self.message}", err=True)


def _warn(book: PriceBook) -> None:
    for w in book.warnings:
        click.echo(f"tco: warning: {w}", err=True)


@contextlib.contextmanager
def price_book(mode: str, offline: bool) -> Iterator[PriceBook]:
    """The price book the options ask for; ``offline`` serves AWS calls from moto + replay."""
    if offline:
        if mode not in ("auto", "live"):
            raise BadInput(
                f"--offline runs the live code path offline; it cannot be combined "
                f"with --prices {mode}"
            )
        from tco.pricing.offline import offline_session

        with offline_session() as session:
            yield PriceBook("live", session=session, offline=True)
        return
    yield PriceBook(mode)  # type: ignore[arg-type]


PRICES_OPTION = click.option(
    "--prices",
    "prices",
    type=click.Choice(MODES),
    default="auto",
    show_default=True,
    help="Where prices come from: live AWS if credentials are present (auto), always live, the "
    "cache of earlier live answers, or the bundled snapshot.",
)
OFFLINE_OPTION = click.option(
    "--offline",
    is_flag=True,
    help="Run the live AWS code path with no network: EC2 from moto, prices replayed from the "
    "bundled snapshot.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version(), prog_name="tco")
@click.option("--debug", is_flag=True, help="Show the full traceback of errors.")
def cli(debug: bool) -> None:
    """Buy or rent GPUs for deep-learning training: simulate a scenario on every option.

    \b
    Example:
      tco simulate scenarios/lab.yaml
    """


@cli.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Report directory [default: tco-report/<scenario name>/].",
)
@click.option("--seed", type=click.IntRange(min=0), help="Override the scenario's seed.")
@click.option("--months", type=click.IntRange(1, 120), help="Override the horizon in months.")
@click.option(
    "--format",
    "formats",
    default=",".join(FORMATS),
    show_default=True,
    help=f"Comma-separated parts of the report to write: {', '.join(FORMATS)}.",
)
@PRICES_OPTION
@OFFLINE_OPTION
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors and warnings.")
def simulate(
    scenario: Path,
    out_dir: Path | None,
    seed: int | None,
    months: int | None,
    formats: str,
    prices: str,
    offline: bool,
    quiet: bool,
) -> None:
    """Simulate SCENARIO on every option; print the comparison and write the report.

    The report directory gets summary.json, monthly.csv, jobs.csv, charts/ (PNG and SVG),
    report.html (self-contained), report.md and budget.xlsx.

    \b
    Example:
      tco simulate scenarios/lab.yaml --out /tmp/lab --seed 7 --prices snapshot
      tco simulate scenarios/lab.yaml --format json,xlsx --quiet
    """
    chosen = tuple(f.strip() for f in formats.split(",") if f.strip())
    bad = [f for f in chosen if f not in FORMATS]
    if bad or not chosen:
        raise BadInput(
            f"--format: unknown part(s) {', '.join(bad) or '(none)'}; valid: {', '.join(FORMATS)}"
        )
    with contextlib.ExitStack() as stack:
        book = stack.enter_context(price_book(prices, offline))
        tick = stack.enter_context(_progress(quiet))
        result = run_file(
            scenario,
            book=book,
            seed=seed,
            months=months,
            progress=lambda name: tick(f"simulating {name}"),
        )
        tick("writing the report")
        target = out_dir or Path("tco-report") / result.scenario.name
        written = write_report(result, target, chosen)
    _warn(book)
    if not quiet:
        terminal.print_summary(result)
        names = sorted({p.relative_to(target).parts[0] for p in written})
        click.echo(f"Report in {target}/: {', '.join(names)}")


@contextlib.contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[str], None]]:
    """A spinner on stderr naming the option being simulated; silent off a terminal or quiet."""
    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield lambda _name: None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("starting", total=None)
        yield lambda what: bar.update(task, description=what)


@cli.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path), default="scenario.yaml")
@click.option(
    "--template",
    type=click.Choice(["lab", "personal", "industrial"]),
    default="lab",
    show_default=True,
    help="Which shipped scenario to start from.",
)
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
def init(path: Path, template: str, force: bool) -> None:
    """Write a commented starter scenario to PATH (default: scenario.yaml).

    \b
    Example:
      tco init --template personal my-workstation.yaml
    """
    from importlib import resources

    if path.exists() and not force:
        raise BadInput(f"{path} exists; choose another path or pass --force")
    text = resources.files("tco").joinpath("templates", f"{template}.yaml").read_text("utf-8")
    path.write_text(text, encoding="utf-8")
    click.echo(f"wrote {path} (from the {template} template); edit it, then: tco simulate {path}")


@cli.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
def validate(scenario: Path) -> None:
    """Check SCENARIO and say what it describes, or what is wrong.

    Instance types are checked against the bundled price snapshot.

    \b
    Example:
      tco validate scenarios/lab.yaml
    """
    sc = load_scenario(scenario)
    click.echo(
        f"{scenario}: valid. {sc.name}: {sc.horizon_months} months from {sc.start}, "
        f"{len(sc.workload.job_classes)} job class(es), options: "
        + ", ".join(f"{o.name} ({o.kind})" for o in sc.options)
    )


@cli.group()
def prices() -> None:
    """Show, refresh and snapshot AWS prices.

    \b
    Example:
      tco prices show p4d.24xlarge --region us-east-1
    """


@prices.command("show")
@click.argument("instance_type")
@click.option("--region", default="us-east-1", show_default=True)
@PRICES_OPTION
@OFFLINE_OPTION
def prices_show(instance_type: str, region: str, prices: str, offline: bool) -> None:
    """Print what tco would use for INSTANCE_TYPE, and where each figure comes from.

    \b
    Example:
      tco prices show p4d.24xlarge --region us-east-1
      tco prices show p5.48xlarge --prices live
    """
    with price_book(prices, offline) as book:
        rows = price_report.price_rows(book, instance_type, region)
    _warn(book)
    table = Table(title=f"{instance_type} in {region}")
    for col in ("what", "value", "source"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*row)
    _console().print(table)


@prices.command("refresh")
@click.argument("instance_types", nargs=-1)
@click.option("--region", "regions", multiple=True, default=["us-east-1"], show_default=True)
@OFFLINE_OPTION
def prices_refresh(
    instance_types: tuple[str, ...], regions: tuple[str, ...], offline: bool
) -> None:
    """Fetch live prices now and store them in the cache (all snapshot types if none given).

    \b
    Example:
      tco prices refresh p4d.24xlarge p5.48xlarge --region us-east-1 --region us-west-2
    """
    with price_book("live", offline) as book, _progress(quiet=False) as tick:
        for region in regions:
            for t in instance_types or snapshot.instance_types(region):
                tick(f"fetching {t} in {region}")
                e = book.entry(t, region)
                click.echo(f"{t} in {region}: {e.source}, as of {e.as_of}")
    _warn(book)


@prices.command("snapshot")
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where to write the new snapshot JSON.",
)
@click.option(
    "--region", "regions", multiple=True, default=["us-east-1", "us-west-2"], show_default=True
)
@OFFLINE_OPTION
def prices_snapshot(out: Path, regions: tuple[str, ...], offline: bool) -> None:
    """Regenerate the price snapshot from live AWS calls for the bundled instance types.

    Copy the file over pricing/data/aws_snapshot.json to ship it.

    \b
    Example:
      tco prices snapshot --out /tmp/aws_snapshot.json
    """
    with price_book("live", offline) as book:
        types = sorted({t for r in regions for t in snapshot.instance_types(r)})
        doc = price_report.build_snapshot(book, list(regions), types)
    out.write_text(price_report.snapshot_json(doc), encoding="utf-8")
    _warn(book)
    click.echo(
        f"wrote {out}: {sum(len(v) for v in doc['regions'].values())} entries, as of {doc['as_of']}"
    )


@cli.group()
def workload() -> None:
    """Import and describe recorded workloads (job traces, Slurm sacct, Open XDMoD logs).

    \b
    Example:
      tco workload stats scenarios/traces/itp_elasticflow_2021.csv.gz
    """


TRACE_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "sacct", "xdmod"]),
    default="csv",
    show_default=True,
    help="How FILE is written.",
)
UTC_OFFSET = click.option(
    "--utc-offset",
    type=click.FloatRange(-14, 14),
    default=0.0,
    show_default=True,
    help="Offset (hours) of timestamps written without one.",
)


def _read_trace(file: Path, fmt: str, utc_offset: float) -> TraceJobs:
    jobs, report = read_trace(file, fmt, utc_offset_hours=utc_offset, field_name="trace")
    click.echo(report.summary(), err=True)
    return jobs


@workload.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@TRACE_FORMAT
@UTC_OFFSET
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Normalised CSV to write.",
)
def workload_import(file: Path, fmt: str, utc_offset: float, output: Path) -> None:
    """Read FILE and write tco's normalised CSV (seconds from the first submit).

    \b
    Example:
      tco workload import sacct.txt --format sacct -o workload.csv
    """
    jobs = _read_trace(file, fmt, utc_offset)
    write_normalised(jobs, output)
    click.echo(f"wrote {output}: {len(jobs):,} jobs, {jobs.gpu_hours():,.1f} GPU-hours")


@workload.command("stats")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@TRACE_FORMAT
@UTC_OFFSET
def workload_stats(file: Path, fmt: str, utc_offset: float) -> None:
    """Print jobs, span, GPU-hours, GPUs per job, durations and arrivals per day of FILE.

    \b
    Example:
      tco workload stats scenarios/traces/itp_elasticflow_2021.csv.gz
    """
    jobs = _read_trace(file, fmt, utc_offset)
    st = trace_stats(jobs)
    console = _console()
    if st.jobs == 0:
        console.print("no jobs")
        return
    console.print(
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
    console.print(table)


@cli.command()
@click.argument(
    "kind", type=click.Choice(["gpus", "servers", "interconnects", "instances"]), default="servers"
)
def catalog(kind: str) -> None:
    """List the hardware catalog: GPU models, servers to buy, interconnects, or AWS instances.

    \b
    Example:
      tco catalog servers
      tco catalog gpus
    """
    header, rows = price_report.catalog_rows(kind)
    table = Table(title=f"tco catalog: {kind}")
    for col in header:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*row)
    _console().print(table)


def _console() -> Console:
    console = Console()
    return console if console.is_terminal else Console(width=160)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning domain errors into one line and exit code 2."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    try:
        cli.main(args=args, prog_name="tco", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except (ScenarioError, PricingError) as exc:
        if debug:
            raise
        BadInput(str(exc)).show()
        sys.exit(EXIT_BAD_INPUT)


__all__ = ["Mode", "cli", "main"]
