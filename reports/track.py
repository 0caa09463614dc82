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

from tco.simulator.tracking.forecast import QUANTILES, Forecast
from tco.simulator.tracking.refit import PRIOR_MONTHS
from tco.simulator.tracking.variance import Tracked


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


def table(t: Tracked) -> Table:
    tab = Table(title="Plan against actuals", title_justify="left", box=None, padding=(0, 2, 0, 0))
    for col in ("month", "jobs", "GPU-h", "p95 wait h", "cash planned", "cash actual", "variance"):
        tab.add_column(col, justify="left" if col == "month" else "right", no_wrap=True)
    for m in t.months:
        tab.add_row(
            m.month,
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
    """Every month of the horizon: the recorded ones planned and actual, the rest planned and
    forecast (the median)."""
    out: list[dict[str, Any]] = []
    p = t.plan
    plan_cash = p.billed() + p.unbilled()
    for i, month in enumerate(p.months):
        planned = float(plan_cash[i])
        if i < t.recorded:
            m = t.months[i]
            out.append({"kind": "actual", **asdict(m), "variance_usd": round(m.variance_usd, 2)})
        else:
            cash = float(f.monthly_usd[i])
            out.append({
                "kind": "forecast", "month": month, "planned_jobs": float(p.jobs[i]),
                "planned_gpu_hours": float(p.gpu_hours[i]), "planned_cash_usd": planned,
                "actual_cash_usd": cash, "variance_usd": round(cash - planned, 2),
            })  # fmt: skip
    return out


def to_csv(t: Tracked, f: Forecast) -> str:
    data = rows(t, f)
    fields = list(dict.fromkeys(k for r in data for k in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for r in data:
        w.writerow({k: ("" if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()})
    return buf.getvalue()


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
        "left_out": {
            "jobs_before_start": t.usage.before,
            "jobs_after_horizon": t.usage.after,
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
        f"{u.before:,} jobs submitted before" if u.before else "",
        f"{u.after:,} jobs submitted after" if u.after else "",
        f"{rows:,} bill rows charged outside" if rows else "",
    ]
    return ", ".join(x for x in parts if x)


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
    lines = [f"# {t.plan.option}: plan against actuals", "", *headline(t, f), ""]
    lines += [
        "| month | jobs plan / actual | GPU-h plan / actual | p95 wait h plan / actual |"
        " cash planned | cash actual | variance |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for m in t.months:
        lines.append(
            f"| {m.month} | {m.planned_jobs:,.0f} / {m.actual_jobs:,.0f} |"
            f" {m.planned_gpu_hours:,.0f} / {m.actual_gpu_hours:,.0f} |"
            f" {_h(m.planned_p95_wait_h)} / {_h(m.actual_p95_wait_h)} |"
            f" {_usd(m.planned_cash_usd)} | {_usd(m.actual_cash_usd)} | {_usd(m.variance_usd)} |"
        )
    return "\n".join(lines) + "\n"


def to_html(t: Tracked, f: Forecast) -> str:
    """The month's check as a page built like the report: the forecast in sentences, then the
    months planned against actual."""
    import pandas as pd

    from tco.reports.document import Section, Table, render_page

    lines = headline(t, f)
    frame = pd.DataFrame(
        {
            "month": [m.month for m in t.months],
            "jobs, plan / actual": [
                f"{m.planned_jobs:,.0f} / {m.actual_jobs:,.0f}" for m in t.months
            ],
            "GPU-h, plan / actual": [
                f"{m.planned_gpu_hours:,.0f} / {m.actual_gpu_hours:,.0f}" for m in t.months
            ],
            "p95 wait h, plan / actual": [
                f"{_h(m.planned_p95_wait_h)} / {_h(m.actual_p95_wait_h)}" for m in t.months
            ],
            "cash planned": [_usd(m.planned_cash_usd) for m in t.months],
            "cash actual": [_usd(m.actual_cash_usd) for m in t.months],
            "variance": [_usd(m.variance_usd) for m in t.months],
        }
    )
    part = Section(
        "track",
        "Plan against actuals",
        headline=lines[0],
        tables=[Table("Each month recorded (USD)", frame, cards=True)],
    )
    rest = Section("basis", "What it rests on", text=lines[1:])
    return render_page(f"{t.plan.option}: plan against actuals", "tco track", "", [part, rest], {})
