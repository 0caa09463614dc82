"""The terminal summary: one table comparing the options, then the answer in plain sentences."""

from __future__ import annotations

import io
import math
from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from tco.simulator import sensitivity, what_if
from tco.simulator.advice import Resize, Verdict
from tco.simulator.kinds import registry
from tco.simulator.recommendation import recommend_without_resizes, verdict
from tco.simulator.result import OptionResult, Result
from tco.simulator.service_level import DEFAULT_P95_WAIT_HOURS


def usd(x: float) -> str:
    """'$1,234,567' (whole dollars), or 'n/a'."""
    return "n/a" if math.isnan(x) else f"${x:,.0f}"


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.0%}"


def _hours(x: float) -> str:
    return f"{x:,.1f}"


def reference_label(result: Result) -> str:
    """'V100 SXM2 32GB' when every job class uses the same reference GPU."""
    refs = result.jobs.reference_gpus
    return refs[0] if len(refs) == 1 else "reference"


def _cheapest_other(result: Result, o: OptionResult) -> OptionResult | None:
    """The cheapest other option that meets the service level (break-even against one that
    does not do the work would mislead)."""
    others = [x for x in result.options if x.name != o.name and verdict(result, x).meets]
    return min(others, key=lambda x: x.total_cash_usd) if others else None


def _break_even(result: Result, o: OptionResult) -> str:
    other = _cheapest_other(result, o)
    if other is None or not verdict(result, o).meets:
        return "-"
    m = o.break_even[other.name]
    return f"never vs {other.name}" if m is None else f"{result.months[m - 1]} vs {other.name}"


# The comparison's columns: header, cell, and the narrowest terminal that shows the column.
# 80 columns show option, total, utilisation, p95 wait, level and break-even; 100 add NPV;
# 150 show everything.
FULL_WIDTH, MEDIUM_WIDTH = 150, 100


def _columns(result: Result, width: int) -> list[tuple[str, Callable[[OptionResult], str], int]]:
    full = width >= FULL_WIDTH
    return [
        ("option", lambda o: o.name, 0),
        ("kind", lambda o: o.kind, FULL_WIDTH),
        ("total USD", lambda o: usd(o.total_cash_usd), 0),
        ("NPV USD", lambda o: usd(o.npv_usd), MEDIUM_WIDTH),
        (
            "USD/GPU-h",
            lambda o: (
                "n/a" if math.isnan(o.usd_per_ref_gpu_hour) else f"${o.usd_per_ref_gpu_hour:,.2f}"
            ),
            FULL_WIDTH,
        ),
        ("GPU util" if full else "util", lambda o: _pct(o.gpu_utilisation), 0),
        ("p95 wait h" if full else "p95 h", lambda o: _hours(o.waits.p95_h), 0),
        ("can't run", lambda o: f"{sum(o.cannot_run.values()):,}", FULL_WIDTH),
        ("level", lambda o: "meets" if verdict(result, o).meets else "misses", 0),
        (
            "break-even",
            lambda o: _break_even(result, o) if full else _break_even(result, o).split(" vs ")[0],
            0,
        ),
    ]


def table(result: Result, width: int = FULL_WIDTH) -> Table:
    """The comparison table, with the columns that fit ``width`` terminal columns."""
    ref = reference_label(result)
    t = Table(
        title=f"{result.scenario.name}: {result.scenario.horizon_months} months from "
        f"{result.scenario.start}, {len(result.jobs):,} jobs, seed {result.scenario.seed}"
    )
    t.caption = (
        f"Cash USD over the horizon; NPV at {result.scenario.discount_rate:.1%} a year; "
        f"USD per GPU-hour of work delivered, counted in {ref} GPU-hours; break-even: "
        "first month from which the option stays cheaper than the cheapest other that meets the"
        " service level (none for an option that misses it)."
    )
    if width < FULL_WIDTH:  # fewer columns: say what the short headers mean
        npv = (
            f"NPV at {result.scenario.discount_rate:.1%} a year; " if width >= MEDIUM_WIDTH else ""
        )
        t.caption = (
            f"Cash USD over the horizon; {npv}util: GPU-hours used / paid; p95 h: the 95th"
            " percentile wait in hours; break-even: first month from which the option stays"
            " cheaper than the cheapest other that meets the level. Wider terminals show more;"
            " every figure is in summary.json."
        )
    columns = [c for c in _columns(result, width) if width >= c[2]]
    for header, _, _ in columns:
        right = header not in ("option", "kind", "level", "break-even")
        t.add_column(header, justify="right" if right else "left", no_wrap=True)
    for o in result.options:
        t.add_row(*(cell(o) for _, cell, _ in columns))
    return t


def recommendation(result: Result) -> list[str]:
    """The answer first: the option that meets the service level for the least money, or why
    none does, and a resized cluster that would."""
    rec = result.recommendation or recommend_without_resizes(result)
    lvl = result.scenario.service_level
    level = (
        f"p95 wait at most {lvl.p95_wait_hours:g} h"
        + (" (the default, an assumption)" if lvl.p95_wait_hours == DEFAULT_P95_WAIT_HOURS else "")
        + f", at most {lvl.max_cannot_run_share:.0%} of the work unable to run"
    )
    if rec.option is not None:
        months = result.scenario.horizon_months
        out = [
            f"Recommended: {rec.option} at {usd(rec.cash_usd or 0.0)} cash over {months} months"
            f" (NPV {usd(rec.npv_usd or 0.0)}): {rec.reason} ({level})."
        ]
    else:
        out = [
            f"No option meets the service level ({level}). Closest: {rec.closest}. {rec.reason}."
        ]
    for o in result.options:
        if o.name in (rec.option, result.cheapest().name):
            out.extend(registry.get(o.kind).caveats(o.name, o.quotes))
    for z in rec.resizes:
        if z.servers is None:
            out.append(
                f"{z.option}: no cluster size up to 64x meets the level either (p95 wait"
                f" {z.p95_wait_h:,.1f} h at the largest tried: capacity is not what holds the"
                " work back; the wait for the servers' delivery may be)."
            )
            continue
        cheaper = rec.cash_usd is None or z.cash_usd < rec.cash_usd
        out.append(
            f"{'Cheaper and meeting the level: ' if cheaper else 'Meeting the level: '}"
            f"{z.option} with {_size(z)} at {usd(z.cash_usd)} (p95 wait"
            f" {z.p95_wait_h:,.1f} h, on the same jobs)."
        )
    return out


def _size(z: Resize) -> str:
    if z.knob == "servers":
        return f"{z.servers} servers"
    return f"{z.servers} more server{'s' if z.servers != 1 else ''} in every tranche"


def _cheapest(result: Result, verdicts: dict[str, Verdict]) -> list[str]:
    best = result.cheapest()
    ranked = sorted(result.options, key=lambda o: o.total_cash_usd)
    line = (
        f"Cheapest over {result.scenario.horizon_months} months: {best.name} at "
        f"{usd(best.total_cash_usd)} (cash, USD)"
    )
    if len(ranked) > 1:
        nxt = ranked[1]
        line += f", {usd(nxt.total_cash_usd - best.total_cash_usd)} less than {nxt.name}"
    if not verdicts[best.name].meets:
        line += f", but it misses the service level ({'; '.join(verdicts[best.name].reasons)})"
    return [line + "."]


def _break_evens(result: Result, verdicts: dict[str, Verdict]) -> list[str]:
    out: list[str] = []
    for o in result.options:
        if not registry.get(o.kind).buys_hardware or not verdicts[o.name].meets:
            continue  # a break-even of an option that does not do the work would mislead
        for other in result.options:
            # Nor against renting that does not do the work.
            if registry.get(other.kind).buys_hardware or not verdicts[other.name].meets:
                continue
            m = o.break_even[other.name]
            if m is None:
                out.append(
                    f"Buying ({o.name}) does not break even against {other.name} "
                    "within the horizon."
                )
            else:
                out.append(
                    f"Buying ({o.name}) breaks even against {other.name} in month {m} "
                    f"({result.months[m - 1]})."
                )
    return out


def _resale(result: Result) -> list[str]:
    """How much of an owner's standing rests on selling the servers at the horizon."""
    out = []
    for o in result.options:
        back = -float(o.ledger.cash["resale"].sum()) if "resale" in o.ledger.cash else 0.0
        if back <= 0:
            continue
        how = getattr(result.scenario.option(o.name), "resale_value", "book")
        text = f"{o.name} counts {usd(back)} back from selling its servers at the horizon ({how}"
        text += " value)"
        other = _cheapest_other(result, o)
        lead = None if other is None else other.total_cash_usd - o.total_cash_usd
        if other is not None and lead is not None and lead > 0:
            if back >= lead:
                text += f": without it, its lead of {usd(lead)} over {other.name} would be gone"
            else:
                text += f": {back / lead:.0%} of its lead of {usd(lead)} over {other.name}"
        else:
            text += f"; without it, it would cost {usd(o.total_cash_usd + back)}"
        out.append(text + ".")
    return out


def _volumes(result: Result, verdicts: dict[str, Verdict]) -> list[str]:
    out: list[str] = []
    ref = reference_label(result)
    for v in result.break_even_volumes:
        if not verdicts[v.rented].meets:
            continue  # not against renting that does not do the work
        if v.scale is None:
            out.append(f"Owning ({v.owned}) against {v.rented}: {v.note}.")
        else:
            out.append(
                f"Owning ({v.owned}) costs the same as {v.rented} at"
                f" {v.utilisation or 0.0:.0%} utilisation ({v.gpu_hours_per_month or 0.0:,.0f}"
                f" {ref} GPU-hours of work a month, {v.scale:.2f}x this scenario's); above it,"
                " owning is cheaper."
            )
    return out


def sentences(result: Result) -> list[str]:
    """The answer in words: the recommendation, the cheapest option (and whether it meets the
    service level), when buying breaks even, what is left out."""
    verdicts = {o.name: verdict(result, o) for o in result.options}
    out = recommendation(result)
    out += _cheapest(result, verdicts)
    out += _break_evens(result, verdicts)
    out += _volumes(result, verdicts)
    out += _resale(result)
    for o in result.options:
        if o.waits.censored or o.cannot_run:
            parts = []
            if o.cannot_run:
                parts.append(", ".join(f"{n:,} cannot run ({r})" for r, n in o.cannot_run.items()))
            if o.waits.censored:
                parts.append(f"{o.waits.censored:,} still queued at the horizon")
            out.append(f"{o.name}: " + "; ".join(parts) + ".")
    for o in result.options:
        # A job smaller than an instance pays for the whole instance: say so when it dominates.
        if not registry.get(o.kind).buys_hardware and o.gpu_utilisation < 0.5:
            out.append(
                f"{o.name}: jobs use {o.gpu_utilisation:.0%} of the GPU-hours paid for (each job"
                " rents whole instances); a fleet of instance types sized to the jobs"
                " (instance_types) or shared instances (shared_instances) would cost less."
            )
    out.extend(_sensitivity(result))
    out.extend(_what_ifs(result))
    out.extend(f"Trace: {note}." for note in result.jobs.notes)
    sources = sorted(
        {
            f"{q.source} as of {q.as_of}"
            for o in result.options
            for q in o.quotes
            if q.unit == "USD/h"
        }
    )
    if sources:
        out.append(
            f"Cloud prices: {'; '.join(sources)}. Every price and its source is in summary.json."
        )
    return out


def _sensitivity(result: Result) -> list[str]:
    """The input group the answer depends on most, and whether ±20 % changes the answer."""
    top = sensitivity.most_sensitive(result)
    if top is None:
        return []
    best = result.cheapest().name
    flips = sorted(
        {
            f"{s.group} {s.change:+.0%} ({s.cheapest} would be cheapest)"
            for s in sensitivity.swings(result)
            if s.cheapest != best
        }
    )
    runner, group, moved = top
    line = (
        f"The lead of {best} over {runner} depends most on {group}: ±{sensitivity.CHANGE:.0%}"
        f" there moves it by {usd(moved)}."
    )
    if flips:
        line += " These changes alone would change the answer: " + "; ".join(flips) + "."
    else:
        line += (
            f" No ±{sensitivity.CHANGE:.0%} change in cloud prices, server prices,"
            " electricity, facility or staff alone changes which option is cheapest."
        )
    return [line]


def _what_ifs(result: Result) -> list[str]:
    """Which inputs beyond prices change the recommendation, and how far each must move."""
    if not result.what_ifs:
        return []
    tried = sorted({w.input for w in result.what_ifs})
    if not result.flip_points:
        return [
            "Beyond prices: no single change in " + ", ".join(tried) + " changes the"
            " recommendation (what_ifs in summary.json)."
        ]
    turns = [
        f"{what_if.describe(f.input, f.change)} ({f.to or 'no option meets the level'})"
        for f in result.flip_points
    ]
    return [
        "Beyond prices, the recommendation turns at: " + "; ".join(turns) + " (flip_points in"
        " summary.json)."
    ]


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
    console.print(table(result, console.width))
    for s in sentences(result):
        console.print(s, highlight=False, soft_wrap=False)
