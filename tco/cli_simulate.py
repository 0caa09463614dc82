"""``tco simulate``: the scenario on every option, the answer with its odds, and the report."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from tco.cli_common import (
    OFFLINE_OPTION,
    PRICES_OPTION,
    BadInput,
    check_engine,
    console,
    price_book,
    progress,
    warn,
)
from tco.reports.formats import DEFAULT_FORMATS, FORMATS, folder_name

F = TypeVar("F", bound=Callable[..., Any])


def odds_options(fn: F) -> F:
    """--odds, --workers, --engine and --scheduler: how many futures the odds draw, and where."""
    for option in reversed(
        [
            click.option(
                "--odds",
                "futures",
                type=click.IntRange(0, 100_000),
                help="Futures the answer's odds are drawn from (0: none) [default: the scenario's"
                " odds.futures, else $TCO_ODDS, else 100].",
            ),
            click.option(
                "--workers",
                "-w",
                type=click.IntRange(1, 1024),
                help="Processes (or Dask workers) for the odds [default: this process until the"
                " odds' plays have taken 3 s of CPU, then the CPUs, at most 8]."
                " The same seed gives the same bytes whatever the number.",
            ),
            click.option(
                "--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True
            ),
            click.option(
                "--scheduler", help="Address of a running Dask scheduler (tcp://host:8786)."
            ),
        ]
    ):
        fn = option(fn)
    return fn


SEARCH_OPTION = click.option(
    "--search",
    type=click.Choice(["portfolio", "given", "none"]),
    help="Override the scenario's search: portfolio (mixes of the options too), given (the"
    " options as listed; say what a mix would save), none (no search: the quickest run).",
)
CATALOG_OPTION = click.option(
    "--catalog",
    is_flag=True,
    help="Let the search propose options the scenario does not list: servers of the hardware"
    " catalog and every provider's shapes of every GPU, pruned by what cannot win (as"
    " candidates: {} in the scenario, whose own candidates: block wins).",
)
FORMAT_OPTION = click.option(
    "--format",
    "formats",
    default=",".join(DEFAULT_FORMATS),
    show_default=True,
    help=f"Comma-separated parts of the report to write: {', '.join(FORMATS)}.",
)


DETAILS_OPTION = click.option(
    "--details",
    is_flag=True,
    help="Print every column that fits and every sentence of the answer (by default: the"
    " decision, the comparison and what it rests on).",
)


@click.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Report directory [default: tco-report/<scenario name as a safe folder name>/].",
)
@click.option("--seed", type=click.IntRange(min=0), help="Override the scenario's seed.")
@click.option("--months", type=click.IntRange(1, 120), help="Override the horizon in months.")
@SEARCH_OPTION
@CATALOG_OPTION
@FORMAT_OPTION
@odds_options
@PRICES_OPTION
@OFFLINE_OPTION
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors and warnings.")
@DETAILS_OPTION
def simulate(
    scenario: Path,
    out_dir: str | None,
    seed: int | None,
    months: int | None,
    search: str | None,
    catalog: bool,
    formats: str,
    futures: int | None,
    workers: int | None,
    engine: str,
    scheduler: str | None,
    prices: str,
    offline: bool,
    quiet: bool,
    details: bool,
) -> None:
    """Simulate SCENARIO on every option; print the comparison and write the report.

    The report directory gets summary.json, monthly.csv, jobs.csv, charts/ (PNG and SVG),
    report.html (self-contained), report.md and budget.xlsx.

    \b
    Example:
      tco simulate scenarios/lab.yaml --out /tmp/lab --seed 7 --prices snapshot
      tco simulate scenarios/lab.yaml --format json,xlsx --quiet
      tco simulate scenarios/lab.yaml --catalog --details
    """
    chosen = _checked(out_dir, scheduler, engine, formats)
    from tco.reports.build import write_report
    from tco.reports.manifest import begin
    from tco.simulator.run import OddsRun, load_file, prepare, simulate

    with contextlib.ExitStack() as stack:
        book = stack.enter_context(price_book(prices, offline))
        sc, digest = load_file(scenario, book, seed, months, search, catalog)
        prepared = prepare(sc, book, str(scenario), digest)  # every price and plan, or why not
        target = Path(out_dir) if out_dir else Path("tco-report") / folder_name(sc.name)
        begin(target)  # a folder that cannot be written fails now, not after the simulation
        _say_ahead(prepared, quiet)
        tick = stack.enter_context(progress(quiet))
        odds = OddsRun(futures, workers, engine, scheduler, _told(tick))
        result = simulate(
            prepared, progress=lambda name: tick(f"simulating {name}"), book=book, odds=odds
        )
        tick("writing the report")
        written = write_report(result, target, chosen)
    warn(book)
    if not quiet:
        _print_answer(result, target, written, details)


# A run this long (about 100 s of CPU) says up front what it may play: a user waiting minutes
# knows why, and what to change.
SAY_AHEAD_JOB_PLAYS = 10_000_000


def _say_ahead(prepared: Any, quiet: bool) -> None:
    if quiet:
        return
    from tco.simulator.advice import ahead
    from tco.simulator.engine.allowance import MAX_RUN_JOB_PLAYS, minutes

    total, parts = ahead.most(prepared)
    if SAY_AHEAD_JOB_PLAYS <= total <= MAX_RUN_JOB_PLAYS.value():  # (past it: refused, said)
        click.echo(
            f"tco: this run may play up to {total:,} job-plays ({parts}): about"
            f" {minutes(total)} of CPU at most",
            err=True,
        )


def _print_answer(result: Any, target: Path, written: list[Path], details: bool) -> None:
    """The comparison, the answer and where the report is, on the terminal."""
    from tco.reports import terminal

    out = console()
    terminal.print_summary(result, out, details)
    names = sorted({p.relative_to(target).parts[0] for p in written})
    first = next((n for n in ("report.html", "report.md", "summary.json") if n in names), names[0])
    more = f" and {len(names) - 1} more: {', '.join(n for n in names if n != first)}"
    # One line where it fits (the files' names last, cut first); folded, never cut, below 40.
    line = f"Report: {target / first}{more}"
    width = out.width
    if len(line) > width and len(f"Report: {target / first}") + 20 <= width:
        line = f"Report: {target / first} (and {len(names) - 1} more files)"
    out.print(line, highlight=False, overflow="fold")


def _formats(text: str) -> tuple[str, ...]:
    chosen = tuple(f.strip() for f in text.split(",") if f.strip())
    bad = [f for f in chosen if f not in FORMATS]
    if bad or not chosen:
        raise BadInput(
            f"--format: unknown part(s) {', '.join(bad) or '(none)'}; valid: {', '.join(FORMATS)}"
        )
    return chosen


def _checked(
    out_dir: str | None, scheduler: str | None, engine: str, formats: str
) -> tuple[str, ...]:
    """The options that can be wrong before anything runs; the report's parts."""
    if out_dir is not None and not out_dir.strip():
        raise BadInput("--out: give a folder for the report (an empty path is not one)")
    check_engine(engine, scheduler)
    return _formats(formats)


def _told(tick: Callable[[str], None]) -> Callable[[int], None]:
    return lambda done: tick(f"deciding over the futures: {done:,} plays of a job stream")
