"""The recommendation's cash month by month on each side of ``tco compare --monthly``: what a
budget owner books (``infracost diff`` shows monthly deltas too), with the change and its
running sum, so a change that moves money between years shows where it went.

The months of both runs are lined up by calendar month: a month one run does not cover shows
"-" there and counts as no cash on that side in the change (a horizon made longer adds its
months' cash; a start moved later removes the first months').
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tco.reports.formatting import md_cell, md_text, money
from tco.reports.summary_read import CompareError, basis, check_number
from tco.simulator.costs import ledger


def _side(
    doc: dict[str, Any], p: Path, before_tax: bool = False
) -> tuple[str | None, dict[str, float]]:
    """The recommended option's name and its cash by month ({} when nothing is recommended;
    ``before_tax``: without the tax categories a run decided after tax has in its cash),
    checked: a malformed summary is named by file and field (``CompareError``)."""
    name = doc["recommendation"]["option"]
    if name is None:
        return None, {}
    months = doc.get("months")
    if not isinstance(months, list) or not all(isinstance(m, str) for m in months):
        raise CompareError(f"{p}: months: expected a list of months (YYYY-MM)")
    i, option = next((i, o) for i, o in enumerate(doc["options"]) if o["name"] == name)
    where = f"options[{i}].monthly.cash_usd"
    by_category = (option.get("monthly") or {}).get("cash_usd")
    if not isinstance(by_category, dict):
        raise CompareError(f"{p}: {where}: expected an object of categories; not a summary.json")
    total = [0.0] * len(months)
    for category, cash in (ledger.before_tax(by_category) if before_tax else by_category).items():
        at = f"{where}.{category}"
        if not isinstance(cash, list) or len(cash) != len(months):
            raise CompareError(
                f"{p}: {at}: expected a list of {len(months)} numbers, one per month; not a"
                " summary.json this tco wrote"
            )
        for k, x in enumerate(cash):
            check_number(x, p, f"{at}[{k}]", "usd", required=True)
            total[k] += float(x)
    return name, dict(zip(months, (round(x, 2) for x in total), strict=True))


def monthly(
    old: dict[str, Any], new: dict[str, Any], old_path: Path, new_path: Path
) -> dict[str, Any]:
    """The recommendation's cash by calendar month on each side (whichever option it is
    there), the change and the change summed up to each month (USD)."""
    on = bool(basis(old, new))  # like for like: before tax on both when the runs differ
    old_name, a = _side(old, old_path, on)
    new_name, b = _side(new, new_path, on)
    rows, running = [], 0.0
    for month in sorted(a.keys() | b.keys()):
        x, y = a.get(month), b.get(month)
        change = (y or 0.0) - (x or 0.0)
        running += change
        rows.append(
            {
                "month": month,
                "old_usd": x,
                "new_usd": y,
                "change_usd": round(change, 2),
                "cumulative_change_usd": round(running, 2),
            }
        )
    return {"old_option": old_name, "new_option": new_name, "months": rows}


def _usd(x: float | None) -> str:
    return "-" if x is None else money(x)


def title(m: dict[str, Any]) -> str:
    old, new = m["old_option"] or "nothing", m["new_option"] or "nothing"
    named = old if old == new else f"{old} -> {new}"
    return f"The recommendation's cash by month ({named})"


def markdown(diff: dict[str, Any]) -> list[str]:
    """The monthly table as Markdown lines (none when compare was not asked for months)."""
    m = diff.get("monthly")
    if m is None:
        return []
    lines = [
        "",
        f"## {md_text(title(m))}",
        "",
        "| month | cash old | cash new | change | change so far |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in m["months"]:
        lines.append(
            f"| {md_cell(r['month'])} | {_usd(r['old_usd'])} | {_usd(r['new_usd'])}"
            f" | {_usd(r['change_usd'])} | {_usd(r['cumulative_change_usd'])} |"
        )
    return lines


def frame(diff: dict[str, Any]) -> Any:
    """The monthly table as a DataFrame for the page (None when not asked for)."""
    m = diff.get("monthly")
    if m is None:
        return None
    import pandas as pd

    rows = m["months"]
    return pd.DataFrame(
        {
            "month": [r["month"] for r in rows],
            "cash old (USD)": [_usd(r["old_usd"]) for r in rows],
            "cash new (USD)": [_usd(r["new_usd"]) for r in rows],
            "change (USD)": [_usd(r["change_usd"]) for r in rows],
            "change so far (USD)": [_usd(r["cumulative_change_usd"]) for r in rows],
        }
    )
