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
    price_book,
    warn,
)

if TYPE_CHECKING:
    from tco.reports.gate import Gate


@click.command()
@click.argument("plan", type=click.Path(file_okay=False, path_type=Path))
@click.option("--usage", "usage_log", type=click.Path(dir_okay=False, path_type=Path),
              required=True, help="What the cluster ran: a log `tco workload` reads.")  # fmt: skip
@click.option("--usage-format", type=click.Choice(["sacct", "csv", "xdmod", "lsf", "pbs"]),
              default="sacct", show_default=True, help="How the usage log is written.")  # fmt: skip
@click.option("--sacct-format", default=None, metavar="FIELDS",
              help="The field list of a headerless sacct export.")  # fmt: skip
@click.option("--utc-offset", type=click.FloatRange(-14, 14), default=0.0, show_default=True,
              help="Offset (hours) of timestamps written without one.")  # fmt: skip
@click.option("--bill", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="What the clouds billed: a FOCUS export (CSV, versions 1.0-1.2).")  # fmt: skip
@click.option("--option", default=None, help="The plan's option to track [default: its"
              " recommendation].")  # fmt: skip
@click.option("--scenario", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The plan's scenario file [default: the one its summary names].")  # fmt: skip
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=None,
              help="USD over the horizon [default: the plan's total].")  # fmt: skip
@click.option("--fail-if", "fail_if", multiple=True, metavar="CONDITION",
              help="Exit 1 when the forecast crosses a line: 'forecast.cash > +5%' (of the"
              " budget) or 'forecast.cash > 20000' (USD above it).")  # fmt: skip
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write track.csv, track.json, track.md and track.html here.")  # fmt: skip
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
            plan, usage_log, usage_format, bill, option, scenario, budget, book, sacct_format,
            utc_offset,
        )  # fmt: skip
        warn(book)
    show.print_track(tracked, fc, console())
    if out is not None:
        _write(out, tracked, fc)
    over = fc.total_usd - fc.budget_usd
    share = over / fc.budget_usd if fc.budget_usd > 0 else None
    failed = [g.text for g in gates if (m := g.moved(over, share)) is not None and g.crosses(m)]
    for f in failed:
        click.echo(f"tco: --fail-if {f}: forecast {fc.total_usd:,.0f} USD against a budget of"
                   f" {fc.budget_usd:,.0f} USD", err=True)  # fmt: skip
    if failed:
        raise SystemExit(1)


def _gates(fail_if: tuple[str, ...]) -> list[Gate]:
    from tco.reports import gate

    try:
        gates = [gate.parse(g) for g in fail_if]
    except gate.GateError as exc:
        raise BadInput(str(exc)) from None
    for g in gates:
        if g.scope != "forecast" or g.measure != "cash":
            raise BadInput(f"--fail-if {g.text!r}: tco track knows forecast.cash > or < AMOUNT")
    return gates


def _write(out: Path, tracked: Any, fc: Any) -> None:
    from tco.reports import track as show

    out.mkdir(parents=True, exist_ok=True)
    (out / "track.csv").write_text(show.to_csv(tracked, fc), encoding="utf-8")
    (out / "track.json").write_text(show.to_json(tracked, fc), encoding="utf-8")
    (out / "track.md").write_text(show.to_markdown(tracked, fc), encoding="utf-8")
    (out / "track.html").write_text(show.to_html(tracked, fc), encoding="utf-8")
    click.echo(f"Written: {out}/track.csv, track.json, track.md, track.html")
