"""``budget.xlsx`` for finance (openpyxl): a summary sheet, then per option a monthly sheet (cash
and accounting by category), a quarters sheet and a fiscal-years sheet, each one Excel table with
its own frozen header; then prices and assumptions.

Totals are live formulas, not copies: each month's totals sum its category cells, each column's
total sums its months, quarters and fiscal years sum the monthly sheet's rows, and the summary's
totals point at the monthly sheets, so finance can change an input cell and check every total.
Months are real dates; partial quarters and fiscal years are marked. Cells hold numbers with the
formats finance expects: money (in the report's currency) with thousands separators and two
decimals, percentages.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import weakref
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from openpyxl import Workbook
from openpyxl.cell.cell import Cell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.table import Table as ExcelTable
from openpyxl.worksheet.table import TableStyleInfo
from openpyxl.worksheet.worksheet import Worksheet

from tco.reports import carbon, chargeback, tables
from tco.reports.formatting import is_money
from tco.reports.zip_stamp import reproducible
from tco.simulator.core.atomic import replacing
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.registry import UnitPrice

USD_FORMAT = "#,##0.00;[Red]-#,##0.00"
PCT_FORMAT = "0.0%"
HOURS_FORMAT = "#,##0.0"
HEADER_FILL = PatternFill("solid", fgColor="DDDDDD")
FIRST_ROW = 5  # a monthly sheet's first month (title, notes, a blank row, then the header)


# The cells each sheet holds a formula in, by intent. openpyxl makes any text that starts with
# "=" a formula; after the workbook is built every other such cell (a name or a source from the
# scenario, say "=HYPERLINK(...)") is made text again (formula injection, OWASP).
_FORMULAS: weakref.WeakKeyDictionary[Worksheet, set[str]] = weakref.WeakKeyDictionary()


def _formula(ws: Worksheet, row: int, column: int, text: str) -> Cell:
    """Write the formula ``text`` (our own) into a cell."""
    c = ws.cell(row=row, column=column, value=text)
    _FORMULAS.setdefault(ws, set()).add(c.coordinate)
    return c


def _no_other_formulas(wb: Workbook) -> None:
    for ws in wb.worksheets:
        ours = _FORMULAS.get(ws, set())
        for row in ws.iter_rows():
            for c in row:
                if c.data_type == "f" and c.coordinate not in ours:
                    c.data_type = "s"


def _format_for(column: str) -> str | None:
    if is_money(column):
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


def _month_date(month: str) -> dt.date:
    return dt.date(int(month[:4]), int(month[5:7]), 1)


@dataclass(frozen=True)
class _Input:
    """A price of the Inputs sheet: what it prices (``UnitPrice``), its cell and its value in
    the report's currency."""

    price: UnitPrice
    cell: str
    value: float


def _columns(category: str, code: str) -> tuple[str, str]:
    return (f"cash: {category} ({code})", f"accounting: {category} ({code})")


def _monthly_sheet(
    ws: Worksheet,
    result: Result,
    o: OptionResult,
    inputs: list[_Input],
    tax_rate: tuple[str, float] | None = None,
) -> tuple[int, dict[str, str]]:
    """The option's months as an Excel table: real dates, values by category, and totals as
    live formulas (row totals across categories, a column total under each). ``inputs``: the
    Inputs cells holding prices its kind declares (``Kind.unit_prices``); each priced
    category's cells are then its quantity (a column of its own) x that cell. ``tax_rate``:
    the Inputs cell of the income tax rate and its value; each tax cell is then minus the
    deductions paid that month (a column of their own) x that cell. Returns the row of the
    column totals and each money column's letter."""
    frame = tables.monthly(result, o)
    code = result.scenario.money.code
    priced, taxes = _priced(frame, code, inputs, tax_rate)
    ws["A1"] = f"{o.name} ({o.kind}): {o.description}"
    ws["A1"].font = Font(bold=True, size=12)
    ws["A2"] = (
        f"Monthly, {code}. Totals are formulas over the category cells: change one, they follow."
    )
    first, last = FIRST_ROW, FIRST_ROW - 1 + len(frame)
    cols = list(frame.columns)
    letter = {c: get_column_letter(j) for j, c in enumerate(cols, start=1)}
    for j, col in enumerate(cols, start=1):
        c = ws.cell(row=4, column=j, value=str(col))
        c.font, c.fill = Font(bold=True), HEADER_FILL
        c.alignment = Alignment(wrap_text=True, vertical="top")
    groups = {
        f"cash total ({code})": [c for c in cols if c.startswith("cash: ")],
        f"accounting total ({code})": [c for c in cols if c.startswith("accounting: ")],
        f"tax total ({code})": [c for c in cols if c in taxes],
    }
    for i, values in enumerate(frame.itertuples(index=False)):
        r = first + i
        for j, (col, v) in enumerate(zip(cols, values, strict=True), start=1):
            if col == "month":
                c = ws.cell(row=r, column=j, value=_month_date(str(v)))
                c.number_format = "yyyy-mm"
                continue
            if groups.get(col):
                parts = groups[col]
                c = _formula(ws, r, j, f"=SUM({letter[parts[0]]}{r}:{letter[parts[-1]]}{r})")
                v = c.value
            elif col in priced:
                quantity, cell, sign = priced[col]
                v = _formula(ws, r, j, f"={sign}PRODUCT({letter[quantity]}{r},{cell})").value
            elif isinstance(v, float) and math.isnan(v):
                v = None
            elif hasattr(v, "item"):
                v = v.item()
            c = ws.cell(row=r, column=j, value=v)
            fmt = _format_for(str(col))
            if fmt:
                c.number_format = fmt
    total = last + 1
    ws.cell(row=total, column=1, value="total").font = Font(bold=True)
    money = {c: letter[c] for c in cols if is_money(str(c))}
    for col, x in money.items():
        c = _formula(ws, total, cols.index(col) + 1, f"=SUM({x}{first}:{x}{last})")
        c.number_format, c.font = USD_FORMAT, Font(bold=True)
    _table(ws, f"A4:{get_column_letter(len(cols))}{last}", "Monthly")
    ws.freeze_panes = "B5"
    _widths(ws, first=12)
    return total, money


def _priced(
    frame: pd.DataFrame, code: str, inputs: list[_Input], tax_rate: tuple[str, float] | None
) -> tuple[dict[str, tuple[str, str, str]], list[str]]:
    """The monthly columns that are formulas on an Inputs cell: column -> (its quantity column,
    added to ``frame``, the cell, the sign); and the tax columns."""
    priced: dict[str, tuple[str, str, str]] = {}
    for inp in inputs:
        cash, acc = _columns(inp.price.category, code)
        frame[inp.price.quantity] = frame[cash] / inp.value
        each = (inp.price.quantity, inp.cell, "")
        priced |= {cash: each, acc: each}
    taxes = [str(c) for c in frame.columns if str(c).startswith(("tax: ", "cash: tax_"))]
    if tax_rate is not None and tax_rate[1] > 0:
        for col in taxes:
            name = col.removeprefix("cash: ").removeprefix("tax: ").removeprefix("tax_")
            quantity = f"deductions paid: {name}"
            frame[quantity] = frame[col] / -tax_rate[1]
            priced[col] = (quantity, tax_rate[0], "-")
    return priced, taxes


def _periods_sheet(
    ws: Worksheet, result: Result, o: OptionResult, monthly: str, by: str, money: dict[str, str]
) -> None:
    """Quarters or fiscal years as sums over the monthly sheet's rows (live formulas), the
    months each covers, and partial periods marked."""
    sc = result.scenario
    key = tables.quarter if by == "quarter" else tables.fiscal_year
    labels = [key(m, sc.fiscal_year_start_month) for m in result.months]
    full = 3 if by == "quarter" else 12
    what = "Quarters" if by == "quarter" else "Fiscal years"
    ws["A1"] = (
        f"{o.name}: {what.lower()} (fiscal year starts in month {sc.fiscal_year_start_month})"
    )
    ws["A1"].font = Font(bold=True, size=12)
    ws["A2"] = f"Sums over the monthly sheet '{monthly}' (formulas), {sc.money.code}."
    header = ["period", "months", "partial", *money]
    for j, h in enumerate(header, start=1):
        c = ws.cell(row=4, column=j, value=h)
        c.font, c.fill = Font(bold=True), HEADER_FILL
        c.alignment = Alignment(wrap_text=True, vertical="top")
    r, i = 5, 0
    ref = "'" + monthly.replace("'", "''") + "'"
    while i < len(labels):
        j = i
        while j < len(labels) and labels[j] == labels[i]:
            j += 1
        ws.cell(row=r, column=1, value=labels[i])
        ws.cell(row=r, column=2, value=j - i)
        ws.cell(row=r, column=3, value=f"partial: {j - i} of {full} months" if j - i < full else "")
        for k, x in enumerate(money.values(), start=4):
            c = _formula(ws, r, k, f"=SUM({ref}!{x}{5 + i}:{x}{4 + j})")
            c.number_format = USD_FORMAT
        r, i = r + 1, j
    _table(ws, f"A4:{get_column_letter(len(header))}{r - 1}", what.replace(" ", ""))
    ws.freeze_panes = "B5"
    _widths(ws, first=14)


def _inputs_sheet(ws: Worksheet, result: Result) -> dict[str, list[_Input]]:
    """Inputs finance may change: the prices each option's kind declares its ledger multiplies
    (``Kind.unit_prices``: an owned cluster's electricity, staff and support contract), which
    its monthly cells of that category multiply. Returns option -> its inputs."""
    cur = result.scenario.money
    rows = []
    others = {o.name: o for o in result.scenario.options}
    for o in result.options:
        spec = result.scenario.option(o.name)
        kind = registry.of(spec)
        for p in kind.unit_prices(spec, others) if kind.can(Can.UNIT_PRICES) else ():
            if p.usd_per_unit and p.category in o.ledger.cash:
                rows.append((o, p))
    ws["A1"] = "Inputs: change a value and every cost, total and period it prices follows."
    ws["A1"].font = Font(bold=True, size=12)
    ws["A2"] = (
        "A priced category's monthly cells are the month's quantity (a column of its own) x this"
        " price; where running costs escalate, the escalation is folded into the quantity."
    )
    header = ("option", "value", "unit", "price of", "source")
    for j, h in enumerate(header, start=1):
        c = ws.cell(row=4, column=j, value=h)
        c.font, c.fill = Font(bold=True), HEADER_FILL
    out: dict[str, list[_Input]] = {}
    for r, (o, p) in enumerate(rows, start=5):
        value = float(p.usd_per_unit if p.share else cur.of(p.usd_per_unit))
        ws.cell(row=r, column=1, value=o.name)
        ws.cell(row=r, column=2, value=value).number_format = "0.0000"
        unit = p.unit if p.share else f"{cur.code}/{p.unit}"
        ws.cell(row=r, column=3, value=unit)
        ws.cell(row=r, column=4, value=p.label)
        quote = next((q for q in o.quotes if q.item == p.label), None)
        ws.cell(row=r, column=5, value=quote.detail if quote else "the scenario's option")
        out.setdefault(o.name, []).append(_Input(p, f"Inputs!$B${r}", value))
    _widths(ws, first=28, other=24)
    return out


def _discount_rate_cell(ws: Worksheet, result: Result) -> str:
    """The discount rate (a year) as an input below the prices: every NPV is a formula on it
    (monthly rate (1 + r)^(1/12) - 1, costs at the end of each month: ``costs.finance.npv``)."""
    r = ws.max_row + 2
    ws.cell(row=r, column=1, value="discount rate (a year)").font = Font(bold=True)
    ws.cell(row=r, column=2, value=result.scenario.discount_rate).number_format = "0.00%"
    ws.cell(row=r, column=3, value="a year")
    ws.cell(row=r, column=4, value="every NPV of the Summary sheet")
    ws.cell(row=r, column=5, value="the scenario's discount_rate")
    return f"Inputs!$B${r}"


def _tax_rate_cell(ws: Worksheet, result: Result) -> tuple[str, float] | None:
    """The income tax rate (federal and state in one) as an input below the discount rate:
    every tax cell is a formula on it (None: no tax: section)."""
    tax = result.scenario.tax
    if tax is None:
        return None
    r = ws.max_row + 1
    ws.cell(row=r, column=1, value="income tax rate (federal and state)").font = Font(bold=True)
    ws.cell(row=r, column=2, value=tax.combined_rate).number_format = "0.00%"
    ws.cell(row=r, column=3, value="of profit")
    ws.cell(row=r, column=4, value="every tax cell of the monthly sheets")
    ws.cell(
        row=r,
        column=5,
        value="the scenario's tax: rate + state_rate x (1 - rate); each month's deductions are"
        f" its tax's column 'deductions paid' (method {tax.method}, paid {tax.payments})",
    )
    return f"Inputs!$B${r}", tax.combined_rate


def _table(ws: Worksheet, ref: str, kind: str) -> None:
    """An Excel table over ``ref`` (header row first), named after the sheet."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", f"{kind}_{ws.title}")[:250]
    if not name[0].isalpha():
        name = "T" + name
    t = ExcelTable(displayName=name, ref=ref)
    t.tableStyleInfo = TableStyleInfo(name="TableStyleLight9", showRowStripes=True)
    ws.add_table(t)


def _back_sheets(wb: Workbook, result: Result, used: set[str]) -> None:
    """The sheets after the options': carbon (when the options have a footprint), every price
    and every assumption."""
    co2 = carbon.table(result)
    if not co2.empty:
        c = wb.create_sheet(sheet_name("Carbon", used))
        row = _write_frame(c, co2, 1, "tCO2e per option")
        _write_frame(c, carbon.sources(result), row + 1, "Where the figures come from")
        _widths(c, first=28, other=22)
    found = chargeback.billed(result)
    if found is not None:
        o, b = found
        t = wb.create_sheet(sheet_name("Chargeback", used))
        t["A1"] = chargeback.words(result, o, b)
        row = _write_frame(t, chargeback.table(result, o, b), 3, "By team")
        _write_frame(t, chargeback.monthly(result, b), row + 1, "Month by month")
        _widths(t, first=14, other=18)
    p = wb.create_sheet("Prices")
    _write_frame(p, tables.prices(result), 1)
    _widths(p, other=22)
    a = wb.create_sheet("Assumptions")
    _write_frame(a, tables.assumptions(result), 1)
    _widths(a, first=60, other=40)


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
        f"{sc.money.note()} Prices: {result.price_provenance.get('price_mode')}; bundled"
        f" snapshot as of {result.price_provenance.get('snapshot_as_of')}. tco {result.version}."
        " Totals are formulas over each option's monthly sheet."
    )
    summary = tables.summary(result)
    _write_frame(ws, summary, 4)
    _widths(ws)
    used = {"summary", "inputs", "prices", "assumptions"}
    inputs_ws = wb.create_sheet("Inputs")
    inputs = _inputs_sheet(inputs_ws, result)
    rate = _discount_rate_cell(inputs_ws, result)
    tax_rate = _tax_rate_cell(inputs_ws, result)
    code = sc.money.code
    cash_col = list(summary.columns).index(f"total cash ({code})") + 1
    acc_col = list(summary.columns).index(f"total accounting ({code})") + 1
    npv_col = next((j for j, c in enumerate(summary.columns, 1) if str(c).startswith("NPV")), 0)
    taxed = f"total income tax ({code})"
    tax_col = list(summary.columns).index(taxed) + 1 if taxed in summary.columns else 0
    for i, o in enumerate(result.options):
        name = sheet_name(o.name, used)
        sheet = wb.create_sheet(name)
        total_row, money = _monthly_sheet(sheet, result, o, inputs.get(o.name, []), tax_rate)
        ref = "'" + name.replace("'", "''") + "'"
        totals = [(cash_col, f"cash total ({code})"), (acc_col, f"accounting total ({code})")]
        if tax_col and f"tax total ({code})" in money:
            totals.append((tax_col, f"tax total ({code})"))
        for col, key in totals:
            _formula(ws, 5 + i, col, f"={ref}!{money[key]}{total_row}")
        if npv_col:  # the monthly cash discounted at the Inputs' rate, as finance.npv does
            cash = money[f"cash total ({code})"]
            _formula(
                ws,
                5 + i,
                npv_col,
                f"=NPV((1+{rate})^(1/12)-1,{ref}!{cash}{FIRST_ROW}:{cash}{total_row - 1})",
            )
        for by, suffix in (("quarter", " Q"), ("year", " FY")):
            sheet = wb.create_sheet(sheet_name(name[: 31 - len(suffix)] + suffix, used))
            _periods_sheet(sheet, result, o, name, by, money)
        extra = tables.kind_tables(result, o)
        if extra:
            k = wb.create_sheet(sheet_name(name[:28] + " +", used))
            row = 1
            for title, frame in extra:
                row = _write_frame(k, frame, row, title)
            _widths(k, first=14)
    _back_sheets(wb, result, used)
    _no_other_formulas(wb)
    wb.calculation.fullCalcOnLoad = True  # no cached results: the reader computes the formulas
    with replacing(path) as tmp:
        wb.save(tmp)
        reproducible(tmp)
    return path
