"""Turning report tables into text: money with thousands separators, fractions as percentages."""

from __future__ import annotations

import math

import pandas as pd


def money(v: float, _: object = None) -> str:
    """Whole dollars: "$20,000", and "−$20,000" below zero (a minus sign before the
    currency, as accountants write it, not "$-20,000"). Also a matplotlib tick formatter."""
    return f"−${-v:,.0f}" if v < 0 else f"${v:,.0f}"


def cell(column: str, value: object) -> str:
    """Format one value by what its column holds (the unit is in the column name)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float):
        if "(USD)" in column or "USD per" in column:
            return f"{value:,.2f}"
        if "utilisation" in column or "coverage" in column:
            return f"{value:.1%}"
        if "(h)" in column:
            return f"{value:,.1f}"
        return f"{value:,.6g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy with every cell formatted as text."""
    return pd.DataFrame({c: [cell(str(c), v) for v in frame[c].tolist()] for c in frame.columns})


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table; numbers right-aligned."""
    text = as_text(frame)
    cols = [str(c) for c in frame.columns]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    lines = [
        "| " + " | ".join(c.replace("|", "\\|") for c in cols) + " |",
        "| " + " | ".join("---:" if n else "---" for n in numeric) + " |",
    ]
    for row in text.itertuples(index=False):
        lines.append(
            "| " + " | ".join(str(v).replace("|", "\\|").replace("\n", " ") for v in row) + " |"
        )
    return "\n".join(lines)
