"""``tco sweep``: the scenario over many futures drawn from its ``uncertain:`` block."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tco.cli_common import BadInput, check_engine, warn

if TYPE_CHECKING:
    from tco.simulator.costs.money import Currency
    from tco.simulator.sweep.replication import Replication

ENGINES = ("local", "dask")
NOTHING_UNCERTAIN = (
    "the scenario names no uncertain input to sweep over, and tco knows none for its options"
    " (or odds: without: leaves them out)"
)


@contextlib.contextmanager
def _bar(total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar over replications on stderr; silent off a terminal or when quiet."""
    from rich.console import Console

    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield lambda _done: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("replications", total=total)
        yield lambda done: bar.update(task, completed=done)


@click.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--replications", "-n", type=click.IntRange(1, 1_000_000), default=200, show_default=True
)
@click.option(
    "--workers",
    "-w",
    type=click.IntRange(1, 1024),
    default=1,
    show_default=True,
    help="Worker processes (local) or Dask workers of a LocalCluster.",
)
@click.option("--engine", type=click.Choice(ENGINES), default="local", show_default=True)
@click.option("--scheduler", help="Address of a running Dask scheduler (tcp://host:8786).")
@click.option("--seed", type=click.IntRange(min=0), help="Override the scenario's seed.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Folder for the files [default: tco-report/<scenario>/sweep/].",
)
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors and warnings.")
def sweep(
    scenario: Path,
    replications: int,
    workers: int,
    engine: str,
    scheduler: str | None,
    seed: int | None,
    out_dir: str | None,
    quiet: bool,
) -> None:
    """Replay SCENARIO over many futures drawn from its uncertain: block; write
    replications.csv, sweep.json and sweep.html. The same scenario and seed give the same files
    whatever the engine and the number of workers.

    \b
    Example:
      tco sweep scenarios/lab.yaml --replications 500 --workers 2
      tco sweep scenarios/lab.yaml -n 2000 --engine dask --scheduler tcp://10.0.0.5:8786
    """
    from tco.pricing.book import PriceBook
    from tco.reports.formats import folder_name
    from tco.reports.manifest import begin
    from tco.reports.sweep_files import write_sweep
    from tco.simulator.run import load_file, prepare
    from tco.simulator.sweep.known import inputs
    from tco.simulator.sweep.run import run_sweep

    check_engine(engine, scheduler)
    if out_dir is not None and not out_dir.strip():
        raise BadInput("--out: give a folder for the files (an empty path is not one)")
    book = PriceBook("snapshot")
    sc, digest = load_file(scenario, book)
    prepared = prepare(sc, book, str(scenario), digest)
    if not inputs(prepared):
        raise BadInput(f"{scenario}: uncertain: {NOTHING_UNCERTAIN}")
    target = Path(out_dir) if out_dir else Path("tco-report") / folder_name(sc.name) / "sweep"
    begin(target)  # a folder that cannot be written fails now, not after the work
    root = sc.seed if seed is None else seed
    with _bar(replications, quiet) as tick:
        reps = run_sweep(prepared, book, replications, root, workers, engine, scheduler, tick)
    written = write_sweep(prepared, reps, root, target)
    warn(book)
    if not quiet:
        _print(reps, target, written, sc.money)


def _print(reps: list[Replication], target: Path, written: list[Path], cur: Currency) -> None:
    from tco.simulator.sweep.summary import headline, spreads

    best, count = headline(reps)
    click.echo(
        f"{best} is the best choice (the cheapest that meets the service level) in {count:,} of"
        f" {len(reps):,} futures."
    )
    for s in spreads(reps):
        click.echo(
            f"{s.name}: cash P10-P90 {cur.text(s.cash_usd['p10'])} -"
            f" {cur.text(s.cash_usd['p90'])},"
            f" best in {s.probability_best:.0%} of futures (cheapest in"
            f" {s.probability_cheapest:.0%}), meets the service level in"
            f" {s.probability_meets_service_level:.0%}"
        )
    click.echo(f"Sweep in {target}/: {', '.join(p.name for p in written)}")
