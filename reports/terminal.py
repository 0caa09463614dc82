"""The terminal summary: the answer and how sure it is first, then one table comparing the
options, then the rest of the answer in plain sentences."""

from __future__ import annotations

import io
import math
from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from tco.reports.answer import (
    break_even_cell,
    headline,
    hours,
    pct,
    reference_label,
    sentences,
    usd,
)
from tco.reports.how_sure import odds
from tco.simulator.engine.result import OptionResult, Result

# The comparison's columns: header, cell, and the narrowest terminal that shows the column.
# 80 columns show option, total, utilisation, p95 wait, level and break-even; 100 add NPV;
# 150 show everything.
FULL_WIDTH, MEDIUM_WIDTH = 150, 100


def _columns(result: Result, width: int) -> list[tuple[str, Callable[[OptionResult], str], int]]:
    full = width >= FULL_WIDTH
    cur = result.scenario.money
    return [
        ("option", lambda o: o.name, 0),
        ("kind", lambda o: o.kind, FULL_WIDTH),
        (f"total {cur.code}", lambda o: usd(o.total_cash_usd, cur), 0),
        (f"NPV {cur.code}", lambda o: usd(o.npv_usd, cur), MEDIUM_WIDTH),
        (
            f"{cur.code}/GPU-h",
            lambda o: (
                "n/a" if math.isnan(o.usd_per_ref_gpu_hour) else cur.cents(o.usd_per_ref_gpu_hour)
            ),
            FULL_WIDTH,
        ),
        ("GPU util" if full else "util", lambda o: pct(o.gpu_utilisation), 0),
        ("p95 wait h" if full else "p95 h", lambda o: hours(o.waits.p95_h), 0),
        ("can't run", lambda o: f"{sum(o.cannot_run.values()):,}", FULL_WIDTH),
        ("level", lambda o: "meets" if result.verdicts[o.name].meets else "misses", 0),
        (
            "break-even",
            lambda o: (
                break_even_cell(result, o) if full else break_even_cell(result, o).split(" vs ")[0]
            ),
            0,
        ),
    ]


def table(result: Result, width: int = FULL_WIDTH) -> Table:
    """The comparison table, with the columns that fit ``width`` terminal columns."""
    ref = reference_label(result)
    cur = result.scenario.money
    t = Table(
        title=f"{result.scenario.name}: {result.scenario.horizon_months} months from "
        f"{result.scenario.start}, {len(result.jobs):,} jobs, seed {result.scenario.seed}"
    )
    t.caption = (
        f"Cash {cur.code} over the horizon; NPV at {result.scenario.discount_rate:.1%} a year; "
        f"{cur.code} per GPU-hour of work delivered, counted in {ref} GPU-hours; break-even: "
        "first month from which the option stays cheaper than the cheapest other that meets the"
        " service level (none for an option that misses it)."
    )
    if width < FULL_WIDTH:  # fewer columns: say what the short headers mean
        npv = (
            f"NPV at {result.scenario.discount_rate:.1%} a year; " if width >= MEDIUM_WIDTH else ""
        )
        t.caption = (
            f"Cash {cur.code} over the horizon; {npv}util: GPU-hours used / paid; p95 h: the 95th"
            " percentile wait in hours; break-even: first month from which the option stays"
            " cheaper than the cheapest other that meets the level. Wider terminals show more;"
            " every figure is in summary.json."
        )
    if not cur.is_usd:
        t.caption = f"{cur.note()} {t.caption}"
    columns = [c for c in _columns(result, width) if width >= c[2]]
    for header, _, _ in columns:
        right = header not in ("option", "kind", "level", "break-even")
        t.add_column(header, justify="right" if right else "left", no_wrap=True)
    for o in result.options:
        t.add_row(*(cell(o) for _, cell, _ in columns))
    return t


def render(result: Result, width: int = 160) -> str:
    """The whole summary as plain text (no colour), e.g. for a golden test or a log."""
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False)
    print_summary(result, console)
    return buf.getvalue()


def print_summary(result: Result, console: Console | None = None) -> None:
    """Print the summary to a console (the terminal by default)."""
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=160)  # a log file or a pipe: do not wrap at 80 columns
    first = [headline(result), *odds(result)]
    for s in first:
        console.print(s, highlight=False, soft_wrap=False)
    console.print(table(result, console.width))
    for s in sentences(result):
        if s != first[0]:
            console.print(s, highlight=False, soft_wrap=False)
