"""The report directory: every file written, the spreadsheet equal to the ledger, the HTML
self-contained (tests/test_html_report.py renders it in a real browser)."""

from __future__ import annotations

import json
import re
import struct
from html import unescape
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from openpyxl import load_workbook

from tco.reports import summary, tables
from tco.reports.build import write_report
from tco.simulator.engine.result import Result
from tco.simulator.run import run_file
from tests.conftest import ROOT

CHARTS = [
    "cumulative_cost",
    "monthly_cash",
    "utilisation",
    "waits",
    "cost_per_gpu_hour",
    "arrivals",
    "what_ifs",  # the tornado: present whenever the run was advised
]


@pytest.fixture(scope="module")
def lab() -> Result:
    return run_file(ROOT / "scenarios" / "lab.yaml")


@pytest.fixture(scope="module")
def report(lab: Result, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    write_report(lab, out)
    return out


def test_every_file_is_written(report: Path) -> None:
    for name in (
        "summary.json",
        "monthly.csv",
        "jobs.csv",
        "report.html",
        "report.md",
        "budget.xlsx",
    ):
        assert (report / name).stat().st_size > 0, name
    for chart in CHARTS:
        png = (report / "charts" / f"{chart}.png").read_bytes()
        width, _ = struct.unpack(">II", png[16:24])
        assert width >= 1800, (chart, width)  # print resolution: 200 dpi
        assert not (report / "charts" / f"{chart}.svg").exists()  # SVG only when asked


def test_svg_charts_when_asked(lab: Result, tmp_path: Path) -> None:
    written = write_report(lab, tmp_path, formats=("svg",))
    svgs = sorted(p.name for p in written if p.suffix == ".svg")
    assert svgs == sorted(f"{c}.svg" for c in CHARTS)


def test_summary_json_validates(report: Path) -> None:
    jsonschema.validate(json.loads((report / "summary.json").read_text()), summary.schema())


def _cell_value(wb: Any, ws: Any, value: Any) -> Any:
    """A cell as Excel computes it: numbers as they are, and the workbook's formulas (a sheet
    reference or SUM over ranges) evaluated from the cells they name."""
    if not (isinstance(value, str) and value.startswith("=")):
        return value
    formula = value[1:].replace("$", "")
    m = re.fullmatch(r"(SUM|PRODUCT)\((.*)\)", formula)
    refs = m.group(2).split(",") if m else [formula]
    numbers = []
    for ref in refs:
        sheet, _, cells = ref.rpartition("!")
        target = wb[sheet.strip("'").replace("''", "'")] if sheet else ws
        block = target[cells]
        rows = block if isinstance(block, tuple) else ((block,),)
        for row in rows:
            for c in row if isinstance(row, tuple) else (row,):
                numbers.append(_cell_value(wb, target, c.value) or 0.0)
    return float(np.prod(numbers)) if m and m.group(1) == "PRODUCT" else float(sum(numbers))


def test_spreadsheet_totals_are_live_formulas_equal_to_the_ledger(
    report: Path, lab: Result
) -> None:
    wb = load_workbook(report / "budget.xlsx")
    assert wb.sheetnames[0] == "Summary" and "Prices" in wb.sheetnames
    for o in lab.options:
        ws = wb[o.name]
        header = [c.value for c in ws[4]]
        cash_col = header.index("cash total (USD)") + 1
        acc_col = header.index("accounting total (USD)") + 1
        first = ws.cell(row=5, column=cash_col).value
        assert isinstance(first, str) and first.startswith("=SUM(")  # a formula, not a copy
        cash = [_cell_value(wb, ws, ws.cell(row=5 + i, column=cash_col).value) for i in range(36)]
        acc = [_cell_value(wb, ws, ws.cell(row=5 + i, column=acc_col).value) for i in range(36)]
        np.testing.assert_allclose(cash, o.ledger.cash_total(), rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(acc, o.ledger.accounting_total(), rtol=1e-12, atol=1e-9)
        assert ws.cell(row=5, column=cash_col).number_format.startswith("#,##0.00")
        assert ws.cell(row=5, column=1).value.strftime("%Y-%m") == lab.months[0]  # a real date
        assert ws.tables and ws.freeze_panes == "B5"
        # Quarters and fiscal years: sums over the monthly rows, partial ones marked.
        for suffix, n in ((" Q", 12), (" FY", 3)):
            p = wb[o.name[: 31 - len(suffix)] + suffix]
            head = [c.value for c in p[4]]
            col = head.index("cash total (USD)") + 1
            rows = range(5, 5 + n)
            got = sum(_cell_value(wb, p, p.cell(row=r, column=col).value) for r in rows)
            assert got == pytest.approx(o.ledger.cash_total().sum())
    summary_ws = wb["Summary"]
    header = [c.value for c in summary_ws[4]]
    col = header.index("total cash (USD)") + 1
    totals = [
        _cell_value(wb, summary_ws, summary_ws.cell(row=5 + i, column=col).value)
        for i in range(len(lab.options))
    ]
    np.testing.assert_allclose(totals, [o.total_cash_usd for o in lab.options])


def test_the_electricity_price_is_an_input_the_power_cells_use(report: Path, lab: Result) -> None:
    wb = load_workbook(report / "budget.xlsx")
    inputs = wb["Inputs"]
    (row,) = [r for r in range(5, 12) if inputs.cell(row=r, column=1).value == "own-8xA40"]
    assert inputs.cell(row=row, column=2).value == pytest.approx(0.0826)  # EIA/Epoch default
    ws = wb["own-8xA40"]
    header = [c.value for c in ws[4]]
    power = header.index("cash: power (USD)") + 1
    cash = header.index("cash total (USD)") + 1
    assert "Inputs!" in ws.cell(row=5 + 6, column=power).value
    own = lab.option("own-8xA40")
    before = _cell_value(wb, ws, ws.cell(row=11, column=cash).value)
    assert before == pytest.approx(own.ledger.cash_total()[6])
    inputs.cell(row=row, column=2).value = 2 * 0.0826  # finance doubles the price
    after = _cell_value(wb, ws, ws.cell(row=11, column=cash).value)
    assert after - before == pytest.approx(own.ledger.cash["power"][6])


def test_fiscal_year_totals_add_up(lab: Result) -> None:
    for o in lab.options:
        years = tables.periods(lab, o, "year")
        quarters = tables.periods(lab, o, "quarter")
        total = o.ledger.cash_total().sum()
        assert years["cash total (USD)"].sum() == pytest.approx(total)
        assert quarters["cash total (USD)"].sum() == pytest.approx(total)
    # A fiscal year starting in October: 2027-10 belongs to FY2028, 2027-09 to FY2027.
    assert tables.fiscal_year("2027-10", 10) == "FY2028"
    assert tables.fiscal_year("2027-09", 10) == "FY2027"
    assert tables.quarter("2027-12", 10) == "FY2028 Q1"
    assert tables.quarter("2027-12", 1) == "FY2027 Q4"


def test_html_is_self_contained(report: Path) -> None:
    html = (report / "report.html").read_text()
    assert html.count('<img src="data:image/png;base64,') == len(CHARTS)
    assert not re.search(r'(?:src|href)\s*=\s*"(?!data:|#)', html)  # only in-page links
    assert "http://" not in html and "https://" not in html and "url(" not in html
    for heading in (
        "The answer",
        "Comparison",
        "Break-even",
        "Budget: own-8xA40",
        "Depreciation schedule",
        "Prices and their sources",
        "What this model leaves out",
        "Assumptions",
        "Fiscal years",
    ):
        assert heading in html, heading


def test_markdown_links_its_charts(report: Path) -> None:
    md = (report / "report.md").read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(links) == len(CHARTS)
    for link in links:
        assert (report / link).exists()


def test_charts_are_deterministic(lab: Result, tmp_path: Path) -> None:
    write_report(lab, tmp_path / "a", ("charts",))
    write_report(lab, tmp_path / "b", ("charts",))
    for f in sorted((tmp_path / "a" / "charts").iterdir()):
        assert f.read_bytes() == (tmp_path / "b" / "charts" / f.name).read_bytes(), f.name


def test_chart_money_reads_as_accountants_write_it() -> None:
    from tco.reports.formatting import money  # tco compare's
    from tco.simulator.costs.money import USD  # the charts' axes and every report's sentences

    for write in (money, USD.label):
        assert write(-20_000) == "\u2212$20,000"  # a minus sign before the currency
        assert write(1_234.4) == "$1,234" and write(0) == "$0"


def test_what_the_model_leaves_out_is_said_once(report: Path) -> None:
    """docs/MODEL.md's "Left out" section and the reports list the same lines."""
    from tco.simulator.core.scope import LEFT_OUT

    model = (ROOT / "docs" / "MODEL.md").read_text()
    section = model[model.index("## Left out") :].split("\n## ")[0]
    assert [line[2:] for line in section.splitlines() if line.startswith("- ")] == list(LEFT_OUT)
    md = (report / "report.md").read_text()
    html = unescape((report / "report.html").read_text())
    for line in LEFT_OUT:
        assert f"- {line}" in md
        assert f"<li>{line}</li>" in html


def test_price_sources_and_dates_read_in_words(lab: Result) -> None:
    from tco.reports import provenance

    assert provenance.plain_detail(
        "GUESS from ratios; CONFLICT on FP32 - verify against X before use."
    ) == ("estimate from ratios; sources disagree on FP32 (to be checked against X).")
    dates = provenance.dates(lab)
    quotes = [q for o in lab.options for q in o.quotes]
    assert dates["figures"].sum() == len(quotes)  # every figure counted once
    snap = dates[dates["source"] == provenance.SOURCES["snapshot"]]
    assert snap["as of"].tolist() == [lab.price_provenance["snapshot_as_of"]]
    assert "GUESS" not in tables.prices(lab, plain=True)["detail"].str.cat()


def test_options_with_the_same_waits_share_one_line_in_the_waits_chart(lab: Result) -> None:
    from tco.reports import charts

    c = charts.waits(lab)
    labels = [t.get_text() for t in c.figure.legends[0].get_texts()]
    charts.close(c)
    shared = [x for x in labels if "the same waits" in x]
    # The cloud options start every job after the same delay: one line, every name in it; spot
    # waits for capacity too, so it has a line of its own.
    rented = [o for o in lab.options[2:] if o.kind != "spot"]
    assert len(shared) == 1 and all(o.name in shared[0] for o in rented)
    assert "fleet-spot" not in shared[0] and len(labels) == 4
