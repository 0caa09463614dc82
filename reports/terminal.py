"""The terminal summary: the decision first (``lead``: what, for how much, the level, how sure,
the runner-up), then one table comparing the options by cost with the recommendation marked,
then the few sentences the decision needs; ``details`` adds every column and every sentence.

Width: the terminal's; into a pipe or a file, ``$COLUMNS``, else 100 columns."""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable

from rich import box
from rich.console import Console
from rich.table import Table

from tco.reports.answer import (
    break_even_cell,
    hours,
    level_cell,
    pct,
    reference_label,
    sentences,
    usd,
)
from tco.reports.decision import chosen
from tco.reports.how_sure import odds
from tco.reports.lead import key_sentences, lead, replaced_lines
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.engine.verdicts import by_cash
from tco.simulator.scenario.service_level import ServiceLevel

# The comparison's columns: header, cell, and the narrowest terminal that shows the column.
# 80 columns show option, total, utilisation, the p95 the level judges (delay, from arrival to
# finish; the wait where the level holds the wait only), level and break-even; 100 add NPV;
# 150 show everything.
FULL_WIDTH, MEDIUM_WIDTH = 150, 100
PIPE_WIDTH = 100  # into a pipe or a file without $COLUMNS
MARK = "*"  # the recommended row
BREAK_EVEN = (  # {level}: "service level" in the full caption, "level" in the narrower one
    "break-even: for an owned option, the first month from which it stays cheaper than the"
    " cheapest rented option that meets the {level}"
)


def _columns(result: Result, width: int) -> list[tuple[str, Callable[[OptionResult], str], int]]:
    full = width >= FULL_WIDTH
    cur = result.scenario.money
    level = result.scenario.service_level
    if level.judges_delay:
        judged = ("p95 delay h" if full else "delay h", lambda o: hours(o.metrics.delays.p95_h))
    else:
        judged = ("p95 wait h" if full else "wait h", lambda o: hours(o.waits.p95_h))
    return [
        ("option", lambda o: o.name, 0),
        ("kind", lambda o: o.kind, FULL_WIDTH),
        (f"total {cur.code}", lambda o: usd(o.total_cash_usd, cur), 0),
        (f"NPV {cur.code}", lambda o: usd(o.npv_usd, cur), MEDIUM_WIDTH),
        *_taxed_column(result),
        (
            f"{cur.code}/GPU-h",
            lambda o: (
                "n/a" if math.isnan(o.usd_per_ref_gpu_hour) else cur.cents(o.usd_per_ref_gpu_hour)
            ),
            FULL_WIDTH,
        ),
        ("util", lambda o: pct(o.gpu_utilisation), 0),
        (*judged, 0),
        ("can't run", lambda o: f"{sum(o.cannot_run.values()):,}", FULL_WIDTH),
        ("level", lambda o: level_cell(result, o.name), 0),
        ("streams met", lambda o: streams_met(result, o.name), FULL_WIDTH),
        (
            "break-even",
            lambda o: (
                break_even_cell(result, o) if full else break_even_cell(result, o).split(" vs ")[0]
            ),
            0,
        ),
    ]


def _taxed_column(result: Result) -> list[tuple[str, Callable[[OptionResult], str], int]]:
    """With a tax: section, the total on the other side of tax (after tax beside a decision
    before it, and the reverse), from 100 columns."""
    tax, cur = result.scenario.tax, result.scenario.money
    if tax is None:
        return []
    after = tax.decide_on != "after_tax"

    def cell(o: OptionResult) -> str:
        t = o.metrics.tax
        return "n/a" if t is None else usd(t.beside[0], cur)

    return [("after tax" if after else "before tax", cell, MEDIUM_WIDTH)]


def streams_met(result: Result, name: str) -> str:
    """Of the job streams an option was played on, how many it met the level in ('-' without
    futures)."""
    s = result.standings.get(name)
    if s is None or s.share is None or result.recommendation.odds is None:
        return "-"
    return f"{round(s.share * s.streams)}/{s.streams}"


def table(result: Result, width: int = FULL_WIDTH, details: bool = True) -> Table:
    """The comparison table sorted by cash, the recommended row marked, with the columns that
    fit ``width`` terminal columns (without ``details``: the columns of 80, whatever the
    width, and a short caption)."""
    ref = reference_label(result)
    cur = result.scenario.money
    what = (
        f"{result.scenario.name}: {result.scenario.horizon_months} months from "
        f"{result.scenario.start}, {len(result.jobs):,} jobs, seed {result.scenario.seed}"
    )
    mark = f"{MARK} the recommendation; sorted by cash. "
    if not details:  # compact: no frame, and the legend below it at the console's width
        t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        width = min(width, MEDIUM_WIDTH - 1)
    elif width >= FULL_WIDTH:
        t = Table(title=what)
        t.caption = (
            f"{mark}Cash {cur.code} over the horizon; NPV at"
            f" {result.scenario.discount_rate:.1%} a year; {cur.code} per GPU-hour of work"
            f" delivered, counted in {ref} GPU-hours;"
            f" {BREAK_EVEN.format(level='service level')} (none for an option that misses it)."
        )
    else:  # fewer columns: say what the short headers mean
        t = Table(title=what)
        npv = (
            f"NPV at {result.scenario.discount_rate:.1%} a year; " if width >= MEDIUM_WIDTH else ""
        )
        t.caption = (
            f"{mark}Cash {cur.code} over the horizon; {npv}util: GPU-hours used / paid;"
            f" {_judged_words(result.scenario.service_level)};"
            f" {BREAK_EVEN.format(level='level')}. Wider"
            " terminals show more; every figure is in summary.json."
        )
    if not cur.is_usd and t.caption:
        t.caption = f"{cur.note()} {t.caption}"
    columns = [c for c in _columns(result, width) if width >= c[2]]
    if not details:
        columns = [c for c in columns if c[0] != "break-even"]
    rows = shown(result, details)
    named = chosen(result)
    cells = [[cell(o) for _, cell, _ in columns] for o in rows]
    for o, row in zip(rows, cells, strict=True):
        row[0] = f"{MARK} {row[0]}" if o.name == named else f"  {row[0]}"
    # No figure and no name is ever cut (a name is what a user pastes): each column is at least
    # as wide as its widest cell; the words of the level and break-even wrap.
    for k, (header, _, _) in enumerate(columns):
        right = header not in ("option", "kind", "level", "streams met", "break-even")
        words = header in ("level", "break-even")
        widest = max(
            (len(x) for r in cells for x in (r[k].split() if words else [r[k]])), default=0
        )
        t.add_column(
            header, justify="right" if right else "left", min_width=widest, no_wrap=not words
        )
    for row in cells:
        t.add_row(*row)
    return t


def _judged_words(level: ServiceLevel) -> str:
    if level.judges_delay:
        return "delay h: p95, as judged"
    return "wait h: p95, as judged"


# The compact table's most rows: the first screen (40 lines at 80 columns) holds the decision;
# a catalog search or a long list adds rows that --details still shows.
COMPACT_ROWS = 8


def shown(result: Result, details: bool = True) -> list[OptionResult]:
    """The options the table shows, by cash: every one, or (compact) the cheapest
    ``COMPACT_ROWS``, the recommended one always among them."""
    ranked = by_cash(result.options, lambda x: x.total_cash_usd)
    if details or len(ranked) <= COMPACT_ROWS:
        return ranked
    named = chosen(result)
    top = ranked[:COMPACT_ROWS]
    if named is not None and all(o.name != named for o in top):
        top = [*ranked[: COMPACT_ROWS - 1], result.option(named)]
    return top


def legend(result: Result) -> str:
    """What the compact table's marks and short headers mean, and where the rest is."""
    sc, cur = result.scenario, result.scenario.money
    text = (
        f"{MARK} recommended. {cur.code} from {sc.start}, {len(result.jobs):,} jobs, seed"
        f" {sc.seed}; util: GPU-hours used/paid; {_judged_words(sc.service_level)}"
        + ("; level: over the futures" if result.recommendation.odds is not None else "")
        + ". More: --details"
        + (
            f" (and {left} more options)."
            if (left := len(result.options) - len(shown(result, False)))
            else "."
        )
    )
    return text if cur.is_usd else f"{cur.note()} {text}"


def render(result: Result, width: int = 160, details: bool = True) -> str:
    """The whole summary as plain text (no colour), e.g. for a golden test or a log."""
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False)
    print_summary(result, console, details)
    return buf.getvalue()


def terminal_console() -> Console:
    """A console of the terminal's width; into a pipe or a file, ``$COLUMNS`` columns, else
    100 (a log is read in an editor, not wrapped at 80)."""
    console = Console()
    if console.is_terminal:
        return console
    columns = os.environ.get("COLUMNS", "")
    return Console(width=int(columns) if columns.isdigit() and int(columns) > 0 else PIPE_WIDTH)


def print_summary(result: Result, console: Console | None = None, details: bool = False) -> None:
    """Print the summary to a console (the terminal by default): the decision, the table and
    the sentences it needs; ``details``: every column that fits and every sentence."""
    if console is None:
        console = terminal_console()
    first = [*lead(result), *(replaced_lines(result) + odds(result)[1:] if details else [])]
    for s in first:
        console.print(s, highlight=False, soft_wrap=False)
    console.print(table(result, console.width, details))
    if not details:
        console.print(legend(result), highlight=False, soft_wrap=False)
    rest = sentences(result)[1:] + odds(result)[:1] if details else key_sentences(result)
    for s in rest:
        console.print(s, highlight=False, soft_wrap=False)
