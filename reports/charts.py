"""Charts of a result (matplotlib, non-interactive Agg backend), as PNG and SVG.

Each option keeps one colour across every chart (scenario order over the tab10 palette). Files are
deterministic: SVG ids use a fixed salt and no dates are embedded.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

from tco.reports import decision
from tco.reports.chart_dates import month_starts, month_ticks
from tco.simulator.advice import what_if
from tco.simulator.costs import ledger
from tco.simulator.engine import verdicts
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.kinds import registry

plt.rcParams.update(
    {
        "svg.hashsalt": "tco",
        "figure.dpi": 100,
        "savefig.dpi": 200,  # PNGs at print resolution: 9 in wide = 1,800 px
        "axes.grid": True,
        "grid.alpha": 0.3,
        "font.size": 9,
        "svg.fonttype": "none",  # SVG text stays text: selectable and searchable
    }
)
PALETTE = [matplotlib.colormaps["tab10"](i)[:3] for i in range(10)]


@dataclass(frozen=True)
class Chart:
    """A chart's file stem, title and figure."""

    name: str
    title: str
    figure: Figure


def colours(result: Result) -> dict[str, tuple[float, ...]]:
    """One colour per option, the same in every chart."""
    return {o.name: PALETTE[i % len(PALETTE)] for i, o in enumerate(result.options)}


def _legend_outside(ax: Axes, fontsize: float = 8, title: str | None = None) -> None:
    """The legend under the plot, where it hides no line and leaves the plot its width."""
    handles, labels = ax.get_legend_handles_labels()
    ax.figure.legend(
        handles, labels, loc="outside lower center", ncol=2, fontsize=fontsize, title=title
    )


def _blank() -> Line2D:
    return Line2D([], [], linestyle="", marker="", label=" ")


# The charts of the decision itself: the report shows them open, the others folded.
DECISION = ("cumulative_cost", "frontier", "monthly_cash")


def cumulative_cost(result: Result) -> Chart:
    """The decision's cumulative cash cost, on its own scale: the recommendation, its
    runner-up, the cheapest owned and rented options; break-evens of the recommendation."""
    chart = _cumulative(result, decision.options(result), for_decision=True)
    return Chart("cumulative_cost", "Cumulative cost of the options the decision is about", chart)


def cumulative_cost_all(result: Result) -> Chart:
    """Every option's cumulative cash cost (the decision's chart leaves the far ones out)."""
    chart = _cumulative(result, [o.name for o in result.options], for_decision=False)
    return Chart("cumulative_cost_all", "Cumulative cost of every option", chart)


def _cumulative(result: Result, names: list[str], for_decision: bool) -> Figure:
    """Cumulative cash of ``names``; with ``for_decision``, break-even points of owning against
    renting where one side is the recommendation (both meeting the service level)."""
    shown = [result.option(n) for n in names]
    fig, ax = plt.subplots(layout="constrained", figsize=(9, 5.5 + 0.13 * len(shown)))
    col = colours(result)
    x = month_starts(result)
    cur = result.scenario.money
    cum = {o.name: np.cumsum(o.ledger.cash_total()) * cur.per_usd for o in shown}
    rec = decision.chosen(result)
    for o in shown:
        label = f"{o.name} ({registry.get(o.kind).label})"  # plain words, not the code name
        if o.name == rec:
            label += ", recommended"
        width = 3.2 if o.name == rec else 2
        ax.plot(x, cum[o.name], label=label, color=col[o.name], linewidth=width)
    meets = {o.name: verdicts.meets(result, o.name) for o in result.options}
    points: list[tuple[str, str, int]] = []
    for o in shown if for_decision else ():
        if not registry.get(o.kind).buys_hardware or not meets[o.name]:
            continue  # no break-even for, or against, an option that misses the service level
        for other, m in o.break_even.items():
            if m is None or m <= 1 or registry.get(result.option(other).kind).buys_hardware:
                continue
            if meets[other] and other in cum and rec in (o.name, other):
                points.append((o.name, other, m))
    # Each break-even point is a numbered marker; the words go in the legend under the plot, so
    # labels of nearby points never collide with each other or with the axis.
    handles = []
    for i, (name, other, m) in enumerate(sorted(points, key=lambda p: (p[2], p[0], p[1])), 1):
        y = cum[name][m - 1]
        ax.scatter([x[m - 1]], [y], color=col[other], edgecolor="black", zorder=5, s=60)
        ax.annotate(
            str(i),
            (x[m - 1], y),
            textcoords="offset points",
            xytext=(0, 7),
            ha="center",
            fontsize=7,
            fontweight="bold",
            zorder=6,
        )
        handles.append(
            Line2D(
                [],
                [],
                marker="o",
                linestyle="",
                color=tuple(col[other][:3]),  # type: ignore[arg-type]
                markeredgecolor="black",
                label=f"{i}: {name} cheaper than {other} from {result.months[m - 1]}",
            )
        )
    what = "the options the decision is about" if for_decision else "every option"
    ax.set_title(f"{result.scenario.name}: cumulative cost (cash), {what}")
    ax.set_ylabel(f"cumulative cost ({cur.unit()})")
    ax.set_xlabel("month")
    ax.yaxis.set_major_formatter(FuncFormatter(cur.label))
    month_ticks(ax, result)
    # One legend, options in the left column and break-even points in the right.
    lines = ax.get_legend_handles_labels()[0]
    if handles:
        rows = max(len(lines), len(handles))
        lines += [_blank()] * (rows - len(lines))
        handles += [_blank()] * (rows - len(handles))
    fig.legend(handles=lines + handles, loc="outside lower center", ncol=2, fontsize=7.5)
    return fig


def monthly_cash(result: Result) -> Chart:
    """Monthly cash out, stacked by category, one panel per option (same y scale); one legend
    of the categories, in plain words, under the panels."""
    n = len(result.options)
    cols = min(2, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(
        rows,
        cols,
        layout="constrained",
        figsize=(9, 2.6 * rows + 0.6),
        squeeze=False,
        sharey=True,
        sharex=True,
    )
    x = month_starts(result)
    # Month edges: each month a step of its own width (stairs: one artist per category, not
    # one rectangle per month, which made this the slowest chart).
    last = np.datetime64(result.months[-1], "M") + 1
    edges = np.append(x, last.astype("datetime64[D]"))
    shown: dict[str, Artist] = {}
    cur = result.scenario.money
    for ax, o in zip(axes.flat, result.options, strict=False):
        pos = np.zeros(len(x))
        neg = np.zeros(len(x))
        for (label, colour), usd in _stacked(o.ledger.cash).items():
            if not np.any(usd):
                continue
            values = usd * cur.per_usd
            base = np.where(values >= 0, pos, neg)
            bars = ax.stairs(
                base + values, edges, baseline=base, fill=True, color=colour, linewidth=0
            )
            shown.setdefault(label, bars)
            pos += np.where(values >= 0, values, 0)
            neg += np.where(values < 0, values, 0)
        ax.set_title(f"{o.name}", color=colours(result)[o.name], fontweight="bold")
        ax.yaxis.set_major_formatter(FuncFormatter(cur.label))
        month_ticks(ax, result)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"cash out ({cur.unit()}; a month)")
    for i, ax in enumerate(list(axes.flat)[n:], start=n):
        ax.set_visible(False)
        axes.flat[i - cols].xaxis.set_tick_params(labelbottom=True)  # the panel above: dates
    # As many columns as the longest label lets fit the figure's width: four columns of labels
    # up to 70 characters long ran past both edges and were cut (0.24.0).
    cols_fit = LEGEND_CHARS // (max(map(len, shown), default=1) + 6)
    fig.legend(
        list(shown.values()),
        list(shown),
        loc="outside lower center",
        ncol=max(1, min(4, cols_fit)),
        fontsize=8,
    )
    fig.suptitle(f"{result.scenario.name}: monthly cash out by category")
    return Chart("monthly_cash", "Monthly cash out by category, per option", fig)


TAX_COLOUR = "#b8b8b8"
# Characters of legend text at 8 points one row of a 9-inch figure holds (about 4 points each,
# measured on the lab's legend: 70 characters and their patch took 46 % of its width).
LEGEND_CHARS = 155


def _stacked(cash: dict[str, np.ndarray]) -> dict[tuple[str, str], np.ndarray]:
    """An option's cash by what the chart stacks, (label, colour): each category as declared,
    the income tax on all of them as one (a decision after tax has a tax twin per category)."""
    out: dict[tuple[str, str], np.ndarray] = {}
    for cat, usd in cash.items():
        c = ledger.category(cat)
        key = ("income tax", TAX_COLOUR) if c.tax else (c.label, c.colour)
        out[key] = out[key] + usd if key in out else usd
    return out


def utilisation(result: Result) -> Chart:
    """GPU utilisation of owned clusters and Savings Plan commitment utilisation per month."""
    fig, ax = plt.subplots(layout="constrained", figsize=(9, 4))
    col = colours(result)
    x = month_starts(result)
    for o in result.options:
        if registry.get(o.kind).buys_hardware:
            ax.plot(
                x,
                o.ledger.gpu_utilisation * 100,
                color=col[o.name],
                linewidth=2,
                label=f"{o.name}: owned GPUs busy",
            )
        for s in ledger.series():
            if s.chart_label is None or s.name not in o.ledger.series:
                continue
            ax.plot(
                x,
                o.ledger.series[s.name] * 100,
                color=col[o.name],
                linewidth=2,
                linestyle="--",
                label=f"{o.name}: {s.chart_label}",
            )
    ax.set_ylim(0, 105)
    ax.set_ylabel("utilisation (%)")
    ax.set_xlabel("month")
    ax.set_title(f"{result.scenario.name}: owned GPU and Savings Plan commitment utilisation")
    month_ticks(ax, result)
    if ax.get_legend_handles_labels()[0]:
        _legend_outside(ax, fontsize=8)
    return Chart("utilisation", "Utilisation of owned GPUs and of Savings Plan commitments", fig)


def waits(result: Result) -> Chart:
    """Distribution of job waits per option (empirical CDF, hours, log scale)."""
    fig, ax = plt.subplots(layout="constrained", figsize=(9, 4))
    col = colours(result)
    # Options with the very same waits (cloud options without a queue, say) share one line
    # and one legend entry: drawn apart, all but the last would be hidden under it.
    lines: list[tuple[np.ndarray, list[OptionResult]]] = []
    for o in result.options:
        out = o.runs
        started = out.runnable & ~np.isnan(out.start_h)
        w = np.sort(out.start_h[started] - result.jobs.arrival_h[started])
        if len(w) == 0:
            continue
        same = next((group for waits, group in lines if np.array_equal(waits, w)), None)
        if same is None:
            lines.append((w, [o]))
        else:
            same.append(o)
    for w, group in lines:
        names = ", ".join(o.name for o in group)
        ax.step(
            np.maximum(w, 1 / 60),  # waits under a minute are drawn at one minute
            np.arange(1, len(w) + 1) / len(w) * 100,
            where="post",
            color=col[group[0].name],
            linewidth=2,
            label=f"{names} (p95 {group[0].waits.p95_h:,.1f} h"
            + ("; the same waits)" if len(group) > 1 else ")"),
        )
    ax.set_xscale("log")
    ax.set_xlabel("wait before start (hours, log scale; under 1 minute shown at 1 minute)")
    ax.set_ylabel("jobs that waited at most this long (%)")
    ax.set_title(f"{result.scenario.name}: distribution of job waits")
    _legend_outside(ax, fontsize=8)
    return Chart("waits", "Distribution of job waits per option", fig)


def cost_per_gpu_hour(result: Result) -> Chart:
    """Cost per delivered reference GPU-hour, per option."""
    fig, ax = plt.subplots(layout="constrained", figsize=(9, 3.5))
    col = colours(result)
    names = [o.name for o in result.options]
    cur = result.scenario.money
    values = [o.usd_per_ref_gpu_hour * cur.per_usd for o in result.options]
    bars = ax.barh(names, values, color=[col[n] for n in names])
    for b, o in zip(bars, result.options, strict=True):
        text = f" {cur.cents(o.usd_per_ref_gpu_hour)}"
        ax.text(b.get_width(), b.get_y() + b.get_height() / 2, text, va="center", fontsize=8)
    ref = result.jobs.reference_gpus[0] if len(result.jobs.reference_gpus) == 1 else "reference"
    ax.set_xlabel(f"{cur.unit()} per delivered {ref} GPU-hour")
    ax.invert_yaxis()
    ax.set_title(f"{result.scenario.name}: cost per delivered GPU-hour")
    return Chart("cost_per_gpu_hour", "Cost per delivered GPU-hour per option", fig)


def arrivals(result: Result) -> Chart:
    """Jobs arriving per day over the horizon (drawn from job classes or replayed from a trace)."""
    fig, ax = plt.subplots(layout="constrained", figsize=(9, 3.5))
    days = np.floor(result.jobs.arrival_h / 24.0).astype(np.int64)
    n_days = int(np.ceil(result.horizon_h / 24.0))
    dates = np.datetime64(f"{result.months[0]}-01") + np.arange(n_days)
    for c, name in enumerate(result.jobs.class_names):
        counts = np.bincount(days[result.jobs.job_class == c], minlength=n_days)
        ax.plot(
            dates,
            counts,
            linewidth=1,
            label=name,
            color=PALETTE[(c + 3) % len(PALETTE)],
        )
    ax.set_xlabel("day")
    ax.set_ylabel("jobs arriving per day")
    ax.set_title(f"{result.scenario.name}: arrivals per day ({len(result.jobs):,} jobs)")
    month_ticks(ax, result)
    _legend_outside(ax, fontsize=8, title="job class")
    return Chart("arrivals", "Jobs arriving per day, by job class or trace", fig)


def what_ifs(result: Result) -> Chart:
    """Tornado of the inputs beyond prices: the recommended option's cash under each change,
    against today's recommendation; a bar marked with an option's name changes the answer."""
    cur = result.scenario.money
    base = result.recommendation.cash_usd or 0.0
    moved = [
        (0.0 if w.recommended_cash_usd is None else cur.of(w.recommended_cash_usd - base), w)
        for w in result.what_ifs
    ]
    moved.sort(key=lambda dw: -abs(dw[0]))  # stable: ties keep the what-ifs' order
    deltas, ws = [d for d, _ in moved], [w for _, w in moved]
    fig, ax = plt.subplots(layout="constrained", figsize=(9, 0.4 * len(ws) + 1.5))
    col = colours(result)
    labels = [what_if.describe(w.input, w.change) for w in ws]
    bars = ax.barh(
        labels,
        deltas,
        color=[col.get(w.recommended or "", (0.5, 0.5, 0.5)) for w in ws],
        hatch=["//" if w.flips else "" for w in ws],
    )
    for b, w, v in zip(bars, ws, deltas, strict=True):
        note = f" → {w.recommended or 'none meets the level'}" if w.flips else ""
        ax.text(
            b.get_x() + b.get_width(),
            b.get_y() + b.get_height() / 2,
            f" {'+' if v >= 0 else ''}{cur.label(v)}{note} ",
            va="center",
            ha="left" if v >= 0 else "right",
            fontsize=8,
        )
    ax.axvline(0, color="black", linewidth=0.8)
    ax.xaxis.set_major_formatter(FuncFormatter(cur.label))
    ax.margins(x=0.45)  # room for the labels at the bars' ends
    ax.set_xlabel(f"change in the recommended option's cash, {cur.unit()} (today {cur.text(base)})")
    ax.invert_yaxis()
    ax.set_title(f"{result.scenario.name}: what the recommendation depends on beyond prices")
    return Chart("what_ifs", "What the recommendation depends on beyond prices", fig)


def frontier(result: Result) -> Chart | None:
    """Mean cash over the futures against the share of job streams meeting the level: what each
    confidence buys (``recommendation.odds.frontier``), the scenario's marked."""
    odds = result.recommendation.odds
    points = [] if odds is None else [f for f in odds.frontier if f.cash_mean_usd is not None]
    if odds is None or len(points) < 2:
        return None
    cur = result.scenario.money
    fig, ax = plt.subplots(figsize=(9, 3.6), layout="constrained")
    x = [100 * f.confidence for f in points]
    y = [cur.of(f.cash_mean_usd or 0.0) for f in points]
    ax.step(x, y, where="post", color=PALETTE[0])
    ax.scatter(x, y, color=PALETTE[0], zorder=3)
    shown = ""
    for i, (f, xi, yi) in enumerate(zip(points, x, y, strict=True)):
        if f.words == shown:
            continue  # the same choice as the point before: one label for the run of them
        shown = f.words
        short = f.words.split(" (", 1)[1].rstrip(")") if " (" in f.words else f.words
        ax.annotate(
            short,
            (xi, yi),
            textcoords="offset points",
            xytext=(4, 8 if i % 2 else -14),
            fontsize=7,
        )
    ax.axvline(100 * odds.confidence, color="0.4", linestyle="--", linewidth=1)
    ax.set_xlabel("share of job streams in which the level must be met (%)")
    ax.set_ylabel(f"mean cash over the futures ({cur.code})")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.margins(x=0.08, y=0.25)
    ax.set_title(f"{result.scenario.name}: cost against the chance of meeting the level")
    return Chart("frontier", "Cost against the chance of meeting the level", fig)


def all_charts(result: Result) -> list[Chart]:
    """Every chart of the report, in reading order."""
    front = frontier(result)
    return [
        cumulative_cost(result),
        *([front] if front is not None else []),
        monthly_cash(result),
        cumulative_cost_all(result),
        utilisation(result),
        waits(result),
        cost_per_gpu_hour(result),
        arrivals(result),
        *([what_ifs(result)] if result.what_ifs else []),
    ]
