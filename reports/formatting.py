"""Turning report tables into text: money with thousands separators, fractions as percentages."""

from __future__ import annotations

import math
import re

import pandas as pd

from tco.simulator.costs.money import USD, Currency

# A money column names its currency: "total cash (USD)", "EUR per delivered GPU-hour".
_MONEY = re.compile(r"\((?!GPU)[A-Z]{3}\)|^(?!GPU)[A-Z]{3} per ")


def is_money(column: str) -> bool:
    return _MONEY.search(column) is not None


def in_currency(frame: pd.DataFrame, cur: Currency) -> pd.DataFrame:
    """A table built in USD with its money columns in ``cur``: values times the rate, the code in
    their names (the same table when ``cur`` is USD)."""
    if cur.is_usd:
        return frame
    money = [c for c in frame.columns if is_money(str(c)) and "USD" in str(c)]
    out = frame.copy()
    for c in money:
        out[c] = frame[c] * cur.per_usd
    return out.rename(columns={c: str(c).replace("USD", cur.code) for c in money})


def money(v: float, _: object = None) -> str:
    """Whole dollars: "$20,000", and "−$20,000" below zero, as every report writes USD
    (``Currency.label``); for ``tco compare``, whose summaries are in USD."""
    return USD.label(v)


def cell(column: str, value: object) -> str:
    """Format one value by what its column holds (the unit is in the column name)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float):
        if is_money(column):
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


# Text from a scenario (names, descriptions, sources) is shown as it is written: in Markdown, the
# characters that would make it HTML, a link, code or emphasis are escaped, and so is a mark that
# would make a line a heading, a quote or a list item.
_MD_INLINE = str.maketrans(
    {
        "\\": "\\\\",
        "`": "\\`",
        "*": "\\*",
        "[": "\\[",
        "]": "\\]",
        "<": "&lt;",
        "&": "&amp;",
        "\n": " ",
        "\r": " ",
    }
)
_MD_MARK = re.compile(r"^(\s*)([#>+=-])")
_MD_NUMBERED = re.compile(r"^(\s*\d+)([.)])")


def md_text(text: str) -> str:
    """Plain text as Markdown that shows the same text (see ``_MD_INLINE``)."""
    out = _MD_MARK.sub(r"\1\\\2", str(text).translate(_MD_INLINE))
    return _MD_NUMBERED.sub(r"\1\\\2", out)


def md_cell(text: str) -> str:
    """Plain text in a Markdown table cell: inline marks escaped, and ``|`` (no line starts
    inside a row, so "1." or "-3" stay as they are)."""
    return str(text).translate(_MD_INLINE).replace("|", "\\|")


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table; numbers right-aligned; text escaped (``md_cell``)."""
    text = as_text(frame)
    cols = [str(c) for c in frame.columns]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    lines = [
        "| " + " | ".join(md_cell(c) for c in cols) + " |",
        "| " + " | ".join("---:" if n else "---" for n in numeric) + " |",
    ]
    for row in text.itertuples(index=False):
        lines.append("| " + " | ".join(md_cell(v) for v in row) + " |")
    return "\n".join(lines)


# A text cell that a spreadsheet would read as a formula (CSV or formula injection, OWASP): such
# text gets a leading apostrophe, the convention spreadsheets show as text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def sheet_text(text: str) -> str:
    """``text`` as a CSV cell a spreadsheet shows as text, never evaluates."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def json_usd(x: float) -> float | None:
    """A money figure as summary.json holds it: cents, None for NaN (never -0.0)."""
    return None if math.isnan(x) else round(float(x), 2) + 0.0


def json_num(x: float) -> float | None:
    """Any other figure as summary.json holds it: four decimals, None for NaN."""
    return None if math.isnan(x) else round(float(x), 4) + 0.0
