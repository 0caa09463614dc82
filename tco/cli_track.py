"""``tco track``: a plan against what the cluster ran and the clouds billed, and where the budget
will land."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tco.cli_common import (
    OFFLINE_OPTION,
    PRICES_OPTION,
    BadInput,
    console,
    options,
    price_book,
    warn,
)

if TYPE_CHECKING:
    from tco.reports.gate import Gate


_INPUT_OPTIONS = [
    click.option(
        "--usage",
        "usage_log",
        type=click.Path(dir_okay=False, path_type=Path),
        required=True,
        help="What the cluster ran: a log `tco workload` reads.",
    ),
    click.option(
        "--usage-format",
        type=click.Choice(["sacct", "csv", "xdmod", "lsf", "pbs"]),
        default="sacct",
        show_default=True,
        help="How the usage log is written.",
    ),
    click.option(
        "--sacct-format",
        default=None,
        metavar="FIELDS",
        help="The field list of a headerless sacct export.",
    ),
    click.option(
        "--utc-offset",
        type=click.FloatRange(-14, 14),
        default=0.0,
        show_default=True,
        help="Offset (hours) of timestamps written without one.",
    ),
    click.option(
        "--bill",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="What the clouds billed: a FOCUS export (CSV, versions 1.0-1.2).",
    ),
]


# What to hold the plan to, and what to do with the forecast.
_PLAN_OPTIONS = [
    click.option(
        "--option", default=None, help="The plan's option to track [default: its recommendation]."
    ),
    click.option(
        "--scenario",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="The plan's scenario file [default: the one its summary names].",
    ),
    click.option(
        "--through",
        metavar="YYYY-MM",
        default=None,
        help="The last whole month the logs and the bill cover [default: as they end: a"
        " month they end inside is read to date].",
    ),
    click.option(
        "--budget",
        type=click.FloatRange(min=0, min_open=True, max=1e15),
        default=None,
        callback=lambda _c, _p, v: _finite(v),
        help="USD over the horizon [default: the plan's total].",
    ),
    click.option(
        "--fail-if",
        "fail_if",
        multiple=True,
        metavar="CONDITION",
        help="Exit 1 when the forecast crosses a line: 'forecast.cash > +5%' (of the"
        " budget), 'forecast.cash > 20000' (USD above it), 'forecast.p95_delay > 24'"
        " (hours over the plan's; p95_wait too) or 'CLASS.p95_delay > +50%'.",
    ),
    click.option(
        "--out",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Write track.csv, track.json, track.md and track.html here.",
    ),
]


@click.command()
@click.argument("plan", type=click.Path(file_okay=False, path_type=Path))
@options(_INPUT_OPTIONS)
@options(_PLAN_OPTIONS)
@PRICES_OPTION
@OFFLINE_OPTION
def track(
    plan: Path,
    usage_log: Path,
    usage_format: str,
    sacct_format: str | None,
    utc_offset: float,
    bill: Path | None,
    option: str | None,
    scenario: Path | None,
    through: str | None,
    budget: float | None,
    fail_if: tuple[str, ...],
    out: Path | None,
    prices: str,
    offline: bool,
) -> None:
    """Hold the plan in PLAN (a report folder of `tco simulate`) against the usage a cluster
    recorded and the bill the clouds sent, month by month, and forecast the rest of the horizon
    with the odds of landing over the budget.

    \b
    Example:
      tco track tco-report/research-lab --usage sacct.txt --bill focus.csv
      tco track plan/ --usage sacct.txt --fail-if 'forecast.cash > +5%'
    """
    from tco.reports import track as show
    from tco.simulator.tracking.follow import follow

    gates = _gates(fail_if)
    with price_book(prices, offline) as book:
        tracked, fc = follow(
            plan,
            usage_log,
            usage_format,
            bill,
            option,
            scenario,
            budget,
            book,
            sacct_format,
            utc_offset,
            through,
        )
        warn(book)
    failed = _failed(gates, tracked, fc)  # a gate naming no class of the plan: before any file
    show.print_track(tracked, fc, console())
    if out is not None:
        _write(out, tracked, fc)
    for f in failed:
        click.echo(f"tco: {f}", err=True)
    if failed:
        raise SystemExit(1)


def _gates(fail_if: tuple[str, ...]) -> list[Gate]:
    from tco.reports import track_gate

    try:
        return track_gate.parsed(fail_if)
    except track_gate.GateError as exc:
        raise BadInput(str(exc)) from None


def _failed(gates: list[Gate], tracked: Any, fc: Any) -> list[str]:
    from tco.reports import track_gate

    try:
        return track_gate.failed(gates, tracked.plan, fc)
    except track_gate.GateError as exc:
        raise BadInput(str(exc)) from None


def _finite(v: float | None) -> float | None:
    """A budget of NaN passes click's range check (every comparison with NaN is false)."""
    if v is not None and v != v:
        raise click.BadParameter("nan: give a finite amount of USD, e.g. 1200000")
    return v


def _write(out: Path, tracked: Any, fc: Any) -> None:
    """The files written as ``tco simulate`` writes a report: each to a temporary name renamed
    into place (a full disk leaves no half file and names the one it stopped at), then a
    manifest listing them (a run stopped before it leaves none: ``reports.manifest``)."""
    from tco.reports import manifest
    from tco.reports import track as show
    from tco.simulator.core.atomic import write_text

    texts = {
        "track.csv": show.to_csv(tracked, fc),
        "track.json": show.to_json(tracked, fc),
        "track.md": show.to_markdown(tracked, fc),
        "track.html": show.to_html(tracked, fc),
    }
    with manifest.writing(out):
        files = [write_text(out / name, text) for name, text in texts.items()]
        manifest.finish(out, "tco-track-files/1", {"plan": tracked.plan.folder}, files)
    click.echo(f"Written: {out}/{', '.join(texts)}, manifest.json")
