"""Charts of a result (matplotlib, non-interactive Agg backend), as PNG and SVG.

Each option keeps one colour across every chart (scenario order over the tab10 palette). Files are
deterministic: SVG ids use a fixed salt and no dates are embedded.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from tco.reports.formatting import money
from tco.simulator import ledger, what_if
from tco.simulator.atomic import replacing
from tco.simulator.kinds import registry
from tco.simulator.recommendation import recommend_without_resizes, verdict
from tco.simulator.result import Result

plt.rcParams.update(
    {
        "svg.hashsalt": "tco",
        "figure.dpi": 100,
        "savefig.dpi": 200,  # PNGs at print resolution: 9 in wide = 1,800 px
        "axes.grid": True,
        "grid.alpha": 0.3,
        "font.size": 9,
    }
)
PALETTE = [matplotlib.colormaps["tab10"](i)[:3] for i in range(10)]


MONEY = FuncFormatter(money)


@dataclass(frozen=True)
class Chart:
    """A chart's file stem, title and figure."""

    name: str
    title: str
    figure: Figure


def colours(result: Result) -> dict[str, tuple[float, ...]]:
    """One colour per option, the same in every chart."""
    return {o.name: PALETTE[i % len(PALETTE)] for i, o in enumerate(result.options)}


def _x(result: Result) -> np.ndarray:
    return np.arange(1, len(result.months) + 1)


def _month_ticks(ax: Axes, result: Result) -> None:
    n = len(result.months)
    step = max(1, n // 12)
    ticks = list(range(1, n + 1, step))
    ax.set_xticks(ticks)
    ax.set_xticklabels([result.months[t - 1] for t in ticks], rotation=45, ha="right")


def cumulative_cost(result: Result) -> Chart:
    """Cumulative cash cost per option, with break-even points of owned options marked."""
    fig, ax = plt.subplots(figsize=(9, 5))
    col = colours(result)
    x = _x(result)
    cum = {o.name: np.cumsum(o.ledger.cash_total()) for o in result.options}
    for o in result.options:
        label = f"{o.name} ({registry.get(o.kind).label})"  # plain words, not the code name
        ax.plot(x, cum[o.name], label=label, color=col[o.name], linewidth=2)
    marks = 0
    meets = {o.name: verdict(result, o).meets for o in result.options}
    for o in result.options:
        if not registry.get(o.kind).buys_hardware or not meets[o.name]:
            continue  # no break-even for, or against, an option that misses the service level
        for other, m in o.break_even.items():
            if m is None or m <= 1 or registry.get(result.option(other).kind).buys_hardware:
                continue
            if not meets[other]:
                continue
            y = cum[o.name][m - 1]
            ax.scatter([m], [y], color=col[other], edgecolor="black", zorder=5, s=50)
            # Labels are stacked below the line so that nearby break-even points stay readable.
            ax.annotate(
                f"{o.name} breaks even vs {other}: {result.months[m - 1]}",
                (m, y),
                textcoords="offset points",
                xytext=(12, -16 - 11 * marks),
                fontsize=7,
                color=col[other],
                arrowprops={"arrowstyle": "-", "color": "0.6"},
            )
            marks += 1
    ax.set_title(f"{result.scenario.name}: cumulative cost (cash)")
    ax.set_ylabel("cumulative cost (USD)")
    ax.set_xlabel("month")
    ax.yaxis.set_major_formatter(MONEY)
    _month_ticks(ax, result)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return Chart("cumulative_cost", "Cumulative cost per option, break-even points marked", fig)


def monthly_cash(result: Result) -> Chart:
    """Monthly cash out, stacked by category, one panel per option (same y scale)."""
    n = len(result.options)
    cols = min(2, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(9, 3.2 * rows), squeeze=False, sharey=True)
    x = _x(result)
    for ax, o in zip(axes.flat, result.options, strict=False):
        pos = np.zeros(len(x))
        neg = np.zeros(len(x))
        for cat, values in o.ledger.cash.items():
            if not np.any(values):
                continue
            base = np.where(values >= 0, pos, neg)
            ax.bar(x, values, bottom=base, label=cat, color=ledger.category(cat).colour, width=0.85)
            pos += np.where(values >= 0, values, 0)
            neg += np.where(values < 0, values, 0)
        ax.set_title(f"{o.name}", color=colours(result)[o.name], fontweight="bold")
        ax.set_ylabel("cash out (USD/month)")
        ax.yaxis.set_major_formatter(MONEY)
        _month_ticks(ax, result)
        ax.legend(fontsize=7, loc="upper right")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle(f"{result.scenario.name}: monthly cash out by category")
    fig.tight_layout()
    return Chart("monthly_cash", "Monthly cash out by category, per option", fig)


def utilisation(result: Result) -> Chart:
    """GPU utilisation of owned clusters and Savings Plan commitment utilisation per month."""
    fig, ax = plt.subplots(figsize=(9, 4))
    col = colours(result)
    x = _x(result)
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
    _month_ticks(ax, result)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return Chart("utilisation", "Utilisation of owned GPUs and of Savings Plan commitments", fig)


def waits(result: Result) -> Chart:
    """Distribution of job waits per option (empirical CDF, hours, log scale)."""
    fig, ax = plt.subplots(figsize=(9, 4))
    col = colours(result)
    for o in result.options:
        out = o.runs
        started = out.runnable & ~np.isnan(out.start_h)
        w = np.sort(out.start_h[started] - result.jobs.arrival_h[started])
        if len(w) == 0:
            continue
        shown = np.maximum(w, 1 / 60)  # waits under a minute are drawn at one minute
        ax.step(
            shown,
            np.arange(1, len(w) + 1) / len(w) * 100,
            where="post",
            color=col[o.name],
            linewidth=2,
            label=f"{o.name} (p95 {o.waits.p95_h:,.1f} h)",
        )
    ax.set_xscale("log")
    ax.set_xlabel("wait before start (hours, log scale; under 1 minute shown at 1 minute)")
    ax.set_ylabel("jobs that waited at most this long (%)")
    ax.set_title(f"{result.scenario.name}: distribution of job waits")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return Chart("waits", "Distribution of job waits per option", fig)


def cost_per_gpu_hour(result: Result) -> Chart:
    """Cost per delivered reference GPU-hour, per option."""
    fig, ax = plt.subplots(figsize=(9, 3.5))
    col = colours(result)
    names = [o.name for o in result.options]
    values = [o.usd_per_ref_gpu_hour for o in result.options]
    bars = ax.barh(names, values, color=[col[n] for n in names])
    for b, v in zip(bars, values, strict=True):
        ax.text(
            b.get_width(), b.get_y() + b.get_height() / 2, f" ${v:,.2f}", va="center", fontsize=8
        )
    ref = result.jobs.reference_gpus[0] if len(result.jobs.reference_gpus) == 1 else "reference"
    ax.set_xlabel(f"USD per delivered {ref} GPU-hour")
    ax.invert_yaxis()
    ax.set_title(f"{result.scenario.name}: cost per delivered GPU-hour")
    fig.tight_layout()
    return Chart("cost_per_gpu_hour", "Cost per delivered GPU-hour per option", fig)


def arrivals(result: Result) -> Chart:
    """Jobs arriving per day over the horizon (drawn from job classes or replayed from a trace)."""
    fig, ax = plt.subplots(figsize=(9, 3.5))
    days = np.floor(result.jobs.arrival_h / 24.0).astype(np.int64)
    n_days = int(np.ceil(result.horizon_h / 24.0))
    for c, name in enumerate(result.jobs.class_names):
        counts = np.bincount(days[result.jobs.job_class == c], minlength=n_days)
        ax.plot(
            np.arange(n_days) + 1,
            counts,
            linewidth=1,
            label=name,
            color=PALETTE[(c + 3) % len(PALETTE)],
        )
    ax.set_xlabel("day of the horizon")
    ax.set_ylabel("jobs arriving per day")
    ax.set_title(f"{result.scenario.name}: arrivals per day ({len(result.jobs):,} jobs)")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return Chart("arrivals", "Jobs arriving per day, by job class or trace", fig)


def what_ifs(result: Result) -> Chart:
    """Tornado of the inputs beyond prices: the recommended option's cash under each change,
    against today's recommendation; a bar marked with an option's name changes the answer."""
    base = recommend_without_resizes(result).cash_usd or 0.0
    moved = [
        (0.0 if w.recommended_cash_usd is None else w.recommended_cash_usd - base, w)
        for w in result.what_ifs
    ]
    moved.sort(key=lambda dw: -abs(dw[0]))  # stable: ties keep the what-ifs' order
    deltas, ws = [d for d, _ in moved], [w for _, w in moved]
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(ws) + 1.5))
    col = colours(result)
    labels = [what_if.describe(w.input, w.change) for w in ws]
    bars = ax.barh(
        labels,
        deltas,
        color=[col.get(w.recommended or "", (0.5, 0.5, 0.5)) for w in ws],
        hatch=["//" if w.flips else "" for w in ws],
    )
    for b, w, v in zip(bars, ws, deltas, strict=True):
        note = f" -> {w.recommended or 'none meets the level'}" if w.flips else ""
        ax.text(
            b.get_x() + b.get_width(),
            b.get_y() + b.get_height() / 2,
            f" {'+' if v >= 0 else '-'}${abs(v):,.0f}{note} ",
            va="center",
            ha="left" if v >= 0 else "right",
            fontsize=8,
        )
    ax.axvline(0, color="black", linewidth=0.8)
    ax.xaxis.set_major_formatter(MONEY)
    ax.margins(x=0.45)  # room for the labels at the bars' ends
    ax.set_xlabel(f"change in the recommended option's cash, USD (today ${base:,.0f})")
    ax.invert_yaxis()
    ax.set_title(f"{result.scenario.name}: what the recommendation depends on beyond prices")
    fig.tight_layout()
    return Chart("what_ifs", "What the recommendation depends on beyond prices", fig)


def all_charts(result: Result) -> list[Chart]:
    """Every chart of the report, in reading order."""
    return [
        cumulative_cost(result),
        monthly_cash(result),
        utilisation(result),
        waits(result),
        cost_per_gpu_hour(result),
        arrivals(result),
        *([what_ifs(result)] if result.what_ifs else []),
    ]


def png_bytes(chart: Chart) -> bytes:
    """The chart as PNG bytes (the same bytes ``save`` writes)."""
    buf = io.BytesIO()
    chart.figure.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def close(chart: Chart) -> None:
    """Free the chart's figure."""
    plt.close(chart.figure)


def save(chart: Chart, out_dir: Path, png: bytes, svg: bool = False) -> list[Path]:
    """Write a chart as PNG (already rendered) and, when asked, SVG."""
    out_dir.mkdir(parents=True, exist_ok=True)
    png_path = out_dir / f"{chart.name}.png"
    with replacing(png_path) as tmp:
        tmp.write_bytes(png)
    if not svg:
        return [png_path]
    svg_path = out_dir / f"{chart.name}.svg"
    with replacing(svg_path) as tmp:
        chart.figure.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
    return [png_path, svg_path]
