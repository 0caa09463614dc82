"""The report directory: every file written, the spreadsheet equal to the ledger, the HTML
self-contained (tests/reports/test_html_report.py renders it in a real browser)."""

from __future__ import annotations

import json
import re
import struct
from datetime import datetime
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
    "cumulative_cost_all",
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
        month = ws.cell(row=5, column=1).value
        assert isinstance(month, datetime) and month.strftime("%Y-%m") == lab.months[0]
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


def _input(ws: Any, row: int) -> tuple[Any, Any]:
    """(option, what the price is of) of an Inputs row."""
    return ws.cell(row=row, column=1).value, ws.cell(row=row, column=4).value


def test_staff_and_support_are_inputs_their_cells_use(report: Path, lab: Result) -> None:
    """Finance changes the staff cost and the support share: the option's cash moves by the
    amounts computed by hand (each category is linear in its price)."""
    wb = load_workbook(report / "budget.xlsx")
    inputs, ws = wb["Inputs"], wb["own-8xA40"]
    own = lab.option("own-8xA40")
    rows = {_input(inputs, r)[1]: r for r in range(5, 30) if _input(inputs, r)[0] == "own-8xA40"}
    assert inputs.cell(rows["staff"], 2).value == 120000  # the scenario's usd_per_fte_year
    assert inputs.cell(rows["support contract"], 2).value == pytest.approx(0.10)
    header = [c.value for c in ws[4]]
    cash = header.index("cash total (USD)") + 1
    total = ws.max_row  # the column totals
    before = _cell_value(wb, ws, ws.cell(row=total, column=cash).value)
    assert before == pytest.approx(own.total_cash_usd)
    inputs.cell(rows["staff"], 2).value = 180000  # +50 %
    inputs.cell(rows["support contract"], 2).value = 0.20  # doubled
    after = _cell_value(wb, ws, ws.cell(row=total, column=cash).value)
    staff, support = (float(own.ledger.cash[c].sum()) for c in ("staff", "support"))
    assert after - before == pytest.approx(0.5 * staff + support)


def test_the_electricity_price_is_an_input_the_power_cells_use(report: Path, lab: Result) -> None:
    wb = load_workbook(report / "budget.xlsx")
    inputs = wb["Inputs"]
    (row,) = [r for r in range(5, 30) if _input(inputs, r) == ("own-8xA40", "electricity")]
    assert inputs.cell(row=row, column=2).value == pytest.approx(0.0826)  # EIA/Epoch default
    ws = wb["own-8xA40"]
    header = [c.value for c in ws[4]]
    power = header.index("cash: power (USD)") + 1
    cash = header.index("cash total (USD)") + 1
    formula = ws.cell(row=5 + 6, column=power).value
    assert isinstance(formula, str) and "Inputs!" in formula
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
    from tco.reports import chart_files, charts

    c = charts.waits(lab)
    labels = [t.get_text() for t in c.figure.legends[0].get_texts()]
    chart_files.close(c)
    shared = [x for x in labels if "the same waits" in x]
    # The cloud options start every job after the same delay: one line, every name in it; spot
    # waits for capacity too, so it has a line of its own.
    rented = [o for o in lab.options[2:] if o.kind != "spot"]
    assert len(shared) == 1 and all(o.name in shared[0] for o in rented)
    assert "fleet-spot" not in shared[0] and len(labels) == 4


def _npv_cell(wb: Any, ws: Any, value: str) -> float:
    """An NPV formula of the Summary sheet as Excel computes it: NPV(rate, cells) is the sum of
    cell_i / (1 + rate)^i, i = 1..n, the rate itself a formula on the Inputs sheet's cell."""
    m = re.fullmatch(r"=NPV\(\(1\+(.+?)\)\^\(1/12\)-1,(.+)\)", value)
    assert m, value
    annual = _cell_value(wb, ws, "=" + m.group(1))
    sheet, _, cells = m.group(2).rpartition("!")
    target = wb[sheet.strip("'").replace("''", "'")]
    cash = [_cell_value(wb, target, row[0].value) for row in target[cells]]
    r = (1 + annual) ** (1 / 12) - 1
    return float(sum(c / (1 + r) ** (i + 1) for i, c in enumerate(cash)))


def test_npv_is_a_live_formula_on_the_discount_rate_and_the_prices(
    report: Path, lab: Result
) -> None:
    """Finance doubles electricity and changes the discount rate: each NPV moves by the amount
    computed by hand (numpy-financial's NPV of the monthly cash, at the end of each month)."""
    import numpy_financial as npf

    wb = load_workbook(report / "budget.xlsx")
    summary_ws, inputs = wb["Summary"], wb["Inputs"]
    col = [c.value for c in summary_ws[4]].index("NPV of cash (USD)") + 1
    (rate_row,) = [
        r
        for r in range(1, inputs.max_row + 1)
        if inputs.cell(r, 1).value == "discount rate (a year)"
    ]
    own = lab.option("own-8xA40")
    i = [o.name for o in lab.options].index("own-8xA40")
    cell = summary_ws.cell(row=5 + i, column=col).value
    assert isinstance(cell, str) and cell.startswith("=NPV(")
    assert _npv_cell(wb, summary_ws, cell) == pytest.approx(own.npv_usd, abs=0.01)
    (power_row,) = [r for r in range(5, 30) if _input(inputs, r) == ("own-8xA40", "electricity")]
    rate = inputs.cell(row=power_row, column=2).value
    assert isinstance(rate, int | float)
    inputs.cell(row=power_row, column=2).value = rate * 2
    monthly = own.ledger.cash_total() + own.ledger.cash["power"]
    r = (1 + lab.scenario.discount_rate) ** (1 / 12) - 1
    want = npf.npv(r, [0.0, *monthly])
    assert _npv_cell(wb, summary_ws, cell) == pytest.approx(want, abs=0.01)
    inputs.cell(row=rate_row, column=2).value = 0.10
    r10 = 1.10 ** (1 / 12) - 1
    assert _npv_cell(wb, summary_ws, cell) == pytest.approx(npf.npv(r10, [0.0, *monthly]), abs=0.01)


def test_the_decision_chart_is_about_the_decision(lab: Result) -> None:
    """The recommendation, its runner-up, the cheapest owned and the cheapest rented option, on
    their own scale: the far dearer options are in the chart of every option (issue 29)."""
    from tco.reports import decision
    from tco.simulator.kinds import registry

    shown = decision.options(lab)
    assert decision.chosen(lab) in shown and decision.runner_up(lab) in shown
    owned = [o for o in lab.options if registry.get(o.kind).buys_hardware]
    rented = [o for o in lab.options if not registry.get(o.kind).buys_hardware]
    assert min(owned, key=lambda o: o.total_cash_usd).name in shown
    assert min(rented, key=lambda o: o.total_cash_usd).name in shown
    assert "p4d-on-demand" not in shown and "bare-metal-8xA100" not in shown
    assert len(shown) <= 4


def test_jobs_csv_says_where_each_job_ran_and_what_it_cost(report: Path, lab: Result) -> None:
    """Per-job truth (issue 29): the instance type (with its provider) or server model each job
    ran on, its cost there, its interruptions and lost GPU-hours. A rented job's cost is its
    instance-hours at its type's list price, so an on-demand fleet's jobs add up to its compute
    bill (jobs still running at the horizon are billed only up to it); an owned option's
    cash is shared out by GPU-hours, to the cent."""
    import pandas as pd

    jobs = pd.read_csv(report / "jobs.csv")
    jobs["ran_on"] = jobs["ran_on"].fillna("")  # a job that did not run
    for col in ("ran_on", "cost_usd", "interruptions", "lost_gpu_h"):
        assert col in jobs.columns
    fleet = jobs[jobs["option"] == "fleet-on-demand"]
    assert set(fleet["ran_on"]) - {""} <= {
        "g5.xlarge",
        "g6.xlarge",
        "g6e.xlarge",
        "g5.12xlarge",
        "g6e.48xlarge",
        "p4d.24xlarge",
    }
    assert len(set(fleet["ran_on"]) - {""}) >= 2  # the fleet sizes jobs to types
    bill = float(lab.option("fleet-on-demand").ledger.cash["cloud_compute"].sum())
    assert fleet["cost_usd"].sum() == pytest.approx(bill, rel=0.02)
    multi = jobs[jobs["option"] == "multi-cloud-fleet"]
    assert any(str(v).startswith(("lambda:", "nebius:")) for v in multi["ran_on"])
    own = jobs[jobs["option"] == "own-8xA40"]
    assert set(own["ran_on"]) - {""} == {"8x A40 NVLink server"}
    assert own["cost_usd"].sum() == pytest.approx(lab.option("own-8xA40").total_cash_usd, abs=0.01)
    spot = jobs[jobs["option"] == "fleet-spot"]
    runs = lab.option("fleet-spot").runs
    assert runs.interruptions is not None
    assert spot["interruptions"].sum() == runs.interruptions.sum() > 0


def test_each_budget_says_where_its_jobs_ran(lab: Result) -> None:
    """The report's per-option breakdown follows from jobs.csv: one row per instance type (or
    server model) with its jobs and cost, the costs adding up to the jobs' own."""
    from tco.reports import tables

    for name in ("fleet-on-demand", "own-8xA40"):
        o = lab.option(name)
        frame = tables.places(lab, o)
        assert frame is not None and o.places is not None
        assert frame["jobs"].sum() == int((o.places.where >= 0).sum())
        assert frame["cost of the jobs (USD)"].sum() == pytest.approx(float(o.places.usd.sum()))
    fleet = tables.places(lab, lab.option("fleet-on-demand"))
    assert fleet is not None and len(fleet) >= 2  # the fleet sizes jobs to several types


def test_the_monthly_cash_legend_lies_within_the_figure(lab: Result) -> None:
    """Every category's name is readable whole: the legend under the panels fits the figure's
    width (0.24.0's four columns ran past both edges and were cut in the PNG)."""
    from tco.reports import chart_files, charts

    chart = charts.monthly_cash(lab)
    try:
        fig = chart.figure
        fig.canvas.draw()
        box = fig.legends[0].get_window_extent()
        width = fig.get_window_extent().width
        assert box.x0 >= 0 and box.x1 <= width, (box, width)
        assert box.height < 0.15 * fig.get_window_extent().height  # not one long column
    finally:
        chart_files.close(chart)
