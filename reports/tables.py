"""The report's tables as pandas DataFrames, shared by the HTML, Markdown and spreadsheet outputs.

Money columns are USD; names say so. Nothing here formats or writes files.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from tco.simulator import defaults, ledger
from tco.simulator.kinds import registry
from tco.simulator.result import OptionResult, Result


def summary(result: Result) -> pd.DataFrame:
    """One row per option: totals, NPV, cost per GPU-hour, utilisation, waits, jobs, the service
    level and break-even (``Result.comparison_frame``)."""
    return result.comparison_frame()


def monthly(result: Result, o: OptionResult) -> pd.DataFrame:
    """Month by month for one option: cash and accounting by category, totals, usage."""
    data: dict[str, Any] = {"month": list(result.months)}
    for cat, v in o.ledger.cash.items():
        data[f"cash: {cat} (USD)"] = v
    data["cash total (USD)"] = o.ledger.cash_total()
    for cat, v in o.ledger.accounting.items():
        data[f"accounting: {cat} (USD)"] = v
    data["accounting total (USD)"] = o.ledger.accounting_total()
    data["GPU utilisation"] = o.ledger.gpu_utilisation
    for s in ledger.series():
        if s.name in o.ledger.series:
            data[s.label] = o.ledger.series[s.name]
    return pd.DataFrame(data)


def fiscal_year(month: str, start_month: int) -> str:
    """'FY2028' for a month, fiscal years named by the calendar year in which they end."""
    y, m = int(month[:4]), int(month[5:])
    return f"FY{y + (1 if start_month > 1 and m >= start_month else 0)}"


def quarter(month: str, start_month: int) -> str:
    """'FY2028 Q1' for a month, quarters counted from the fiscal-year start."""
    m = int(month[5:])
    q = ((m - start_month) % 12) // 3 + 1
    return f"{fiscal_year(month, start_month)} Q{q}"


def periods(result: Result, o: OptionResult, by: str) -> pd.DataFrame:
    """Cash and accounting totals per quarter or fiscal year (``by``: 'quarter' or 'year')."""
    start = result.scenario.fiscal_year_start_month
    m = monthly(result, o)
    key = [quarter(x, start) if by == "quarter" else fiscal_year(x, start) for x in m["month"]]
    money = [c for c in m.columns if c.endswith("(USD)")]
    out = m[money].groupby(pd.Series(key, name="period"), sort=False).sum()
    return out.reset_index()


def kind_tables(result: Result, o: OptionResult) -> list[tuple[str, pd.DataFrame]]:
    """The tables the option's kind adds to its section (e.g. a depreciation schedule)."""
    return registry.get(o.kind).report_tables(result.months, o.ledger)


def prices(result: Result) -> pd.DataFrame:
    """Every price and cost figure used, with unit, source and date."""
    rows = []
    for o in result.options:
        for q in o.quotes:
            rows.append(
                {
                    "option": o.name,
                    "item": q.item,
                    "value": q.value,
                    "unit": q.unit,
                    "source": q.source,
                    "as of": q.as_of,
                    "detail": q.detail,
                }
            )
    return pd.DataFrame(rows)


def _flatten(prefix: str, value: Any, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list) and value and isinstance(value[0], dict):
        for i, v in enumerate(value):
            _flatten(f"{prefix}[{i}]", v, out)
    elif value is not None:
        out.append((prefix, str(value)))


def assumptions(result: Result) -> pd.DataFrame:
    """Every scenario input (defaults filled in), then the model defaults with their sources."""
    rows: list[tuple[str, str]] = []
    _flatten("", result.scenario.model_dump(mode="json"), rows)
    frame = pd.DataFrame(rows, columns=["input", "value"])
    frame["source"] = "scenario file (or its documented default)"
    d = pd.DataFrame(
        [(f"default: {k}", f"{v:g}", src) for k, (v, src) in defaults.SOURCES.items()],
        columns=["input", "value", "source"],
    )
    return pd.concat([frame, d], ignore_index=True)
