"""``tco track``'s output: the plan against actuals month by month and the re-forecast, as a
terminal table, a CSV, a JSON document and a Markdown page."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.table import Table

from tco.reports.formatting import md_cell, md_text, sheet_text
from tco.simulator.tracking.forecast import QUANTILES, Forecast
from tco.simulator.tracking.refit import PRIOR_MONTHS
from tco.simulator.tracking.variance import Month, Tracked


def _usd(x: float | None) -> str:
    if x is None:
        return "-"
    return f"-${-x:,.0f}" if x < 0 else f"${x:,.0f}"


def _h(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:,.1f}"


def headline(t: Tracked, f: Forecast) -> list[str]:
    """The answer first: where the budget lands, then what it rests on."""
    p = t.plan
    over = f.total_usd - f.budget_usd
    budget = "the plan's total" if f.budget_usd == p.total_usd else "the budget given"
    lines = [
        f"Forecast: {_usd(f.total_usd)} over the {len(p.months)} months of {p.option}"
        f" (10-90 %: {_usd(f.totals_usd[0])} to {_usd(f.totals_usd[2])}), {_usd(abs(over))}"
        f" {'over' if over > 0 else 'under'} {budget} ({_usd(f.budget_usd)}):"
        f" {f.over_budget:.0%} odds of landing over it.",
        f"Recorded: {t.recorded} of {len(p.months)} months ({p.months[0]} to"
        f" {p.months[t.recorded - 1]}); spent {_usd(t.actual_cash_to_date())} against"
        f" {_usd(t.planned_cash_to_date())} planned.",
        *_to_date(t),
        *t.notes,
        f"Work to come: x{f.rate[1]:.2f} the plan's (10-90 %: x{f.rate[0]:.2f} to"
        f" x{f.rate[2]:.2f}), {_growth(f)}; re-estimated from {t.recorded} months, the plan"
        f" weighing as {PRIOR_MONTHS:g} (an assumption).",
        f"The bill's price per GPU-hour: x{f.price_ratio:.2f} the plan's.",
    ]
    for w in f.waste:
        lines.append(
            f"Commitment {w.name} is under-used: {_usd(w.so_far_usd)} unused so far,"
            f" {_usd(w.per_month_usd)} a month; {_usd(w.to_end_usd)} more by the horizon's end"
            " at that rate."
        )
    if t.bill is None:
        lines.append("No bill given: the billed categories are taken as planned.")
    left_out = _left_out(t)
    if left_out:
        lines.append(
            f"Left out (outside the plan's months {p.months[0]} to {p.months[-1]}): {left_out}."
        )
    unbilled = sum(m.unbilled_usd for m in t.months)
    if unbilled:
        lines.append(
            f"Taken as planned (no record holds them): {_usd(unbilled)} of owned costs"
            " (servers, power, facility, staff, storage)."
        )
    if not t.usage.waits_known:
        lines.append("The usage log does not say when jobs started: no actual waits.")
    return lines


def _to_date(t: Tracked) -> list[str]:
    """The month the records end inside, said as such: shown, never read as a whole month."""
    m = t.tail
    if m is None:
        return []
    return [
        f"To date: {m.month}, {t.usage.to_date:.0%} of it recorded: {m.actual_jobs:,.0f} jobs"
        f" against {m.planned_jobs:,.0f} planned pro rata; a month to date is not held"
        " against the plan, it is forecast with the months to come."
    ]


def _shown(t: Tracked) -> list[tuple[str, Month]]:
    """The months each table shows: the whole ones, then the month to date, labelled."""
    out = [(m.month, m) for m in t.months]
    if t.tail is not None:
        out.append((f"{t.tail.month} (to date, {t.usage.to_date:.0%})", t.tail))
    return out


def table(t: Tracked) -> Table:
    tab = Table(title="Plan against actuals", title_justify="left", box=None, padding=(0, 2, 0, 0))
    for col in ("month", "jobs", "GPU-h", "p95 wait h", "cash planned", "cash actual", "variance"):
        tab.add_column(col, justify="left" if col == "month" else "right", no_wrap=True)
    for label, m in _shown(t):
        tab.add_row(
            label,
            f"{m.planned_jobs:,.0f} / {m.actual_jobs:,.0f}",
            f"{m.planned_gpu_hours:,.0f} / {m.actual_gpu_hours:,.0f}",
            f"{_h(m.planned_p95_wait_h)} / {_h(m.actual_p95_wait_h)}",
            _usd(m.planned_cash_usd),
            _usd(m.actual_cash_usd),
            _usd(m.variance_usd),
        )
    return tab


def print_track(t: Tracked, f: Forecast, console: Console) -> None:
    for line in headline(t, f):
        console.print(line, highlight=False, soft_wrap=False)
    console.print(table(t))
    console.print("jobs, GPU-h, waits: planned / actual; USD.", highlight=False)


def rows(t: Tracked, f: Forecast) -> list[dict[str, Any]]:
    """Every month of the horizon: the whole ones held planned against actual, the rest planned
    and forecast (at the median of the work to come, and at its P10 and P90: each a replay, so
    a month alone may cross; their totals do not); the month to date, forecast with what of it
    is recorded so far beside."""
    out: list[dict[str, Any]] = []
    p = t.plan
    plan_cash = p.billed() + p.unbilled()
    low, high = (
        (f.monthly_fan_usd[0], f.monthly_fan_usd[-1])
        if f.monthly_fan_usd
        else (f.monthly_usd, f.monthly_usd)
    )
    for i, month in enumerate(p.months):
        planned = float(plan_cash[i])
        if i < t.recorded:
            m = t.months[i]
            out.append({"kind": "actual", **asdict(m), "variance_usd": round(m.variance_usd, 2)})
            continue
        cash = float(f.monthly_usd[i])
        row = {
            "kind": "forecast",
            "month": month,
            "planned_jobs": float(p.jobs[i]),
            "planned_gpu_hours": float(p.gpu_hours[i]),
            "planned_cash_usd": planned,
            "actual_cash_usd": cash,
            "variance_usd": round(cash - planned, 2),
            "forecast_at_p10_work_usd": float(low[i]),
            "forecast_at_p90_work_usd": float(high[i]),
        }
        if t.tail is not None and i == t.recorded:
            row.update(
                {
                    "kind": "forecast, to date",
                    "to_date_share": round(t.usage.to_date, 4),
                    "to_date_jobs": t.tail.actual_jobs,
                    "to_date_gpu_hours": t.tail.actual_gpu_hours,
                    "to_date_planned_cash_usd": t.tail.planned_cash_usd,
                }
            )
        out.append(row)
    return out


def to_csv(t: Tracked, f: Forecast) -> str:
    data = rows(t, f)
    fields = list(dict.fromkeys(k for r in data for k in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for r in data:
        w.writerow({k: _csv_cell(v) for k, v in r.items()})
    return buf.getvalue()


def _csv_cell(v: Any) -> Any:
    """NaN as an empty cell; text a spreadsheet would read as a formula as text."""
    if isinstance(v, float) and math.isnan(v):
        return ""
    return sheet_text(v) if isinstance(v, str) else v


def to_json(t: Tracked, f: Forecast) -> str:
    doc = {
        "schema": "tco-track/1",
        "plan": {
            "folder": t.plan.folder,
            "option": t.plan.option,
            "total_usd": t.plan.total_usd,
            "tco_version": t.plan.tco_version,
        },
        "recorded_months": t.recorded,
        "to_date": None if t.tail is None else {"share": t.usage.to_date, **asdict(t.tail)},
        "notes": list(t.notes),
        "left_out": {
            "jobs_before_start": t.usage.before,
            "jobs_after_horizon": t.usage.after,
            "jobs_after_a_gap": t.usage.beyond_gap,
            "bill_rows_outside": t.bill.outside if t.bill is not None else 0,
        },
        "forecast": {
            "total_usd": f.total_usd,
            "quantiles": list(QUANTILES),
            "totals_usd": list(f.totals_usd),
            "budget_usd": f.budget_usd,
            "over_budget_probability": f.over_budget,
            "arrivals_to_come_vs_plan": list(f.rate),
            "growth_per_month_vs_plan": list(f.growth),
            "growth_prior_sd": f.growth_sd,
            "prior_months": PRIOR_MONTHS,
            "price_ratio": f.price_ratio,
            "unused_commitments": [asdict(w) for w in f.waste],
            "service_h": {
                k: {"plan": t.plan.service_h.get(k), "forecast": list(v)}
                for k, v in f.service_h.items()
            },
        },
        "months": rows(t, f),
    }
    return json.dumps(_clean(doc), indent=2, allow_nan=False) + "\n"


def _left_out(t: Tracked) -> str:
    """What the records hold outside the plan's months, in words ("" when nothing): counted
    nowhere, so said rather than lost."""
    u, b = t.usage, t.bill
    rows = b.outside if b is not None else 0
    parts = [
        f"{_count(u.before, 'job')} submitted before" if u.before else "",
        f"{_count(u.after, 'job')} submitted after" if u.after else "",
        f"{_count(rows, 'bill row')} charged outside" if rows else "",
    ]
    return ", ".join(x for x in parts if x)


def _count(n: int, thing: str) -> str:
    return f"{n:,} {thing}{'' if n == 1 else 's'}"


def _growth(f: Forecast) -> str:
    if f.growth_sd == 0:
        return "growing as planned (a trace keeps its own shape)"
    low, mid, high = (100 * g for g in f.growth)
    return (
        f"growing {mid:+.1f} %/month against the plan's growth (10-90 %: {low:+.1f} to"
        f" {high:+.1f}; prior ±{100 * f.growth_sd:g} %/month, an assumption)"
    )


def _clean(x: Any) -> Any:
    """NaN (no job in a month, no wait recorded) as null: JSON has no NaN."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def to_markdown(t: Tracked, f: Forecast) -> str:
    """The page in Markdown: every line of text escaped as report.md's are (``md_text``), so a
    name holding Markdown or HTML (an option's, a commitment's) shows as written."""
    lines = [f"# {md_text(t.plan.option)}: plan against actuals", ""]
    lines += [md_text(x) for x in headline(t, f)] + [""]
    lines += [
        "| month | jobs plan / actual | GPU-h plan / actual | p95 wait h plan / actual |"
        " cash planned | cash actual | variance |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, m in _shown(t):
        lines.append(
            f"| {md_cell(label)} | {m.planned_jobs:,.0f} / {m.actual_jobs:,.0f} |"
            f" {m.planned_gpu_hours:,.0f} / {m.actual_gpu_hours:,.0f} |"
            f" {_h(m.planned_p95_wait_h)} / {_h(m.actual_p95_wait_h)} |"
            f" {_usd(m.planned_cash_usd)} | {_usd(m.actual_cash_usd)} | {_usd(m.variance_usd)} |"
        )
    return "\n".join(lines) + "\n"


def to_html(t: Tracked, f: Forecast) -> str:
    """The month's check as a page built like the report: the forecast in sentences, the months
    planned against actual, and the chart of planned, actual and forecast cash."""
    import pandas as pd

    from tco.reports.document import Section, Table, render_page
    from tco.reports.track_chart import CHART_TITLE, chart_png

    lines = headline(t, f)
    shown = _shown(t)
    frame = pd.DataFrame(
        {
            "month": [label for label, _ in shown],
            "jobs, plan / actual": [
                f"{m.planned_jobs:,.0f} / {m.actual_jobs:,.0f}" for _, m in shown
            ],
            "GPU-h, plan / actual": [
                f"{m.planned_gpu_hours:,.0f} / {m.actual_gpu_hours:,.0f}" for _, m in shown
            ],
            "p95 wait h, plan / actual": [
                f"{_h(m.planned_p95_wait_h)} / {_h(m.actual_p95_wait_h)}" for _, m in shown
            ],
            "cash planned": [_usd(m.planned_cash_usd) for _, m in shown],
            "cash actual": [_usd(m.actual_cash_usd) for _, m in shown],
            "variance": [_usd(m.variance_usd) for _, m in shown],
        }
    )
    part = Section(
        "track",
        "Plan against actuals",
        headline=lines[0],
        tables=[Table("Each month recorded (USD)", frame, cards=True)],
    )
    chart = Section("chart", "Month by month", charts=["track"])
    rest = Section("basis", "What it rests on", text=lines[1:])
    return render_page(
        f"{t.plan.option}: plan against actuals",
        "tco track",
        "",
        [part, chart, rest],
        {"track": (CHART_TITLE, chart_png(t, f))},
    )
