"""``budget.xlsx`` for finance (openpyxl): a summary sheet, then per option a monthly sheet with
cash and accounting views by category, quarterly and fiscal-year totals; prices and assumptions.

Cells hold numbers (not text) with number formats finance expects: USD with thousands separators
and two decimals, percentages with one decimal. Headers name the unit.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import zipfile
from pathlib import Path

import pandas as pd
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from tco.reports import tables
from tco.simulator.atomic import replacing
from tco.simulator.result import Result

ZIP_EPOCH = dt.datetime(1980, 1, 1, tzinfo=dt.UTC)
USD_FORMAT = "#,##0.00;[Red]-#,##0.00"
PCT_FORMAT = "0.0%"
HOURS_FORMAT = "#,##0.0"
HEADER_FILL = PatternFill("solid", fgColor="DDDDDD")


def _format_for(column: str) -> str | None:
    if "(USD)" in column or "USD per" in column:
        return USD_FORMAT
    if "utilisation" in column or "coverage" in column:
        return PCT_FORMAT
    if "(h)" in column:
        return HOURS_FORMAT
    return None


def _write_frame(ws: Worksheet, frame: pd.DataFrame, row: int, title: str | None = None) -> int:
    """Write a table at ``row``; return the next free row."""
    if title:
        ws.cell(row=row, column=1, value=title).font = Font(bold=True, size=12)
        row += 1
    for j, col in enumerate(frame.columns, start=1):
        c = ws.cell(row=row, column=j, value=str(col))
        c.font = Font(bold=True)
        c.fill = HEADER_FILL
        c.alignment = Alignment(wrap_text=True, vertical="top")
    for values in frame.itertuples(index=False):
        row += 1
        for j, (col, v) in enumerate(zip(frame.columns, values, strict=True), start=1):
            if isinstance(v, float) and math.isnan(v):
                v = None
            elif hasattr(v, "item"):
                v = v.item()  # numpy scalar -> Python
            c = ws.cell(row=row, column=j, value=v)
            fmt = _format_for(str(col))
            if fmt and isinstance(v, int | float):
                c.number_format = fmt
    return row + 2


def _widths(ws: Worksheet, first: int = 28, other: int = 16) -> None:
    for j in range(1, ws.max_column + 1):
        ws.column_dimensions[get_column_letter(j)].width = first if j == 1 else other


def sheet_name(name: str, used: set[str]) -> str:
    """A valid, unique Excel sheet name (31 characters, no []:*?/\\)."""
    base = re.sub(r"[\[\]:*?/\\]", "-", name)[:31] or "option"
    out, n = base, 2
    while out.lower() in used:
        suffix = f" ({n})"
        out, n = base[: 31 - len(suffix)] + suffix, n + 1
    used.add(out.lower())
    return out


def write(result: Result, path: Path) -> Path:
    """Write the workbook atomically."""
    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Summary"
    sc = result.scenario
    ws["A1"] = f"{sc.name}: {sc.horizon_months} months from {sc.start}, seed {sc.seed}"
    ws["A1"].font = Font(bold=True, size=14)
    ws["A2"] = (
        f"All money in USD. Prices: {result.price_provenance.get('price_mode')}; bundled"
        f" snapshot as of {result.price_provenance.get('snapshot_as_of')}. tco {result.version}."
    )
    _write_frame(ws, tables.summary(result), 4)
    _widths(ws)
    used = {"summary", "prices", "assumptions"}
    for o in result.options:
        s = wb.create_sheet(sheet_name(o.name, used))
        s["A1"] = f"{o.name} ({o.kind}): {o.description}"
        s["A1"].font = Font(bold=True, size=12)
        row = _write_frame(s, tables.monthly(result, o), 3, "Monthly (USD)")
        s.freeze_panes = "B5"
        row = _write_frame(
            s,
            tables.periods(result, o, "quarter"),
            row,
            f"Quarters (fiscal year starts in month {sc.fiscal_year_start_month})",
        )
        row = _write_frame(s, tables.periods(result, o, "year"), row, "Fiscal years")
        for title, frame in tables.kind_tables(result, o):
            row = _write_frame(s, frame, row, title)
        _widths(s, first=14)
    p = wb.create_sheet("Prices")
    _write_frame(p, tables.prices(result), 1)
    _widths(p, other=22)
    a = wb.create_sheet("Assumptions")
    _write_frame(a, tables.assumptions(result), 1)
    _widths(a, first=60, other=40)
    with replacing(path) as tmp:
        wb.save(tmp)
        _reproducible(tmp)
    return path


def _stamp() -> tuple[int, int, int, int, int, int]:
    """The date written into the workbook: SOURCE_DATE_EPOCH (the reproducible-builds
    convention) when set, else 1980-01-01 00:00 UTC, the earliest a zip entry can carry."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch.isdigit() else ZIP_EPOCH
    return max(when, ZIP_EPOCH).timetuple()[:6]


def _reproducible(path: Path) -> None:
    """Rewrite the saved workbook without the clock: openpyxl stamps the document's created and
    modified times and every zip entry with the time of saving, so two identical runs would
    differ. Same entries, same order, same compression."""
    stamp = _stamp()
    iso = dt.datetime(*stamp).strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    with zipfile.ZipFile(path) as z:
        entries = [(info, z.read(info.filename)) for info in z.infolist()]
    with zipfile.ZipFile(path, "w") as out:
        for info, data in entries:
            if info.filename == "docProps/core.xml":
                data = re.sub(
                    rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)",
                    rb"\g<1>" + iso + rb"\g<2>",
                    data,
                )
            entry = zipfile.ZipInfo(info.filename, date_time=stamp)
            entry.compress_type = info.compress_type
            entry.external_attr = info.external_attr
            out.writestr(entry, data)
