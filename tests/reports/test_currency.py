"""A reporting currency: computed in USD, shown in the scenario's currency at one dated rate,
never mixed. XTS is ISO 4217's code for testing; a rate of 1,000 makes any figure left in USD
stand out by three orders of magnitude."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from tco.reports import tables, terminal
from tco.reports.build import write_report
from tco.simulator.core.errors import ScenarioError
from tco.simulator.costs.money import USD, Currency
from tco.simulator.run import prepare, simulate
from tests.conftest import make_scenario

RATE = {"per_usd": 1000.0, "as_of": "2026-11-27", "source": "a test rate"}


def _results() -> tuple[Any, Any]:
    usd = simulate(prepare(make_scenario()), advise=False)
    xts = simulate(prepare(make_scenario(currency="XTS", exchange_rate=RATE)), advise=False)
    return usd, xts


def test_money_text() -> None:
    assert USD.text(1234.4) == "$1,234" and USD.text(-5.0) == "−$5"
    eur = Currency("EUR", 0.5, "2026-11-27", "ECB")
    assert eur.text(1000.0) == "EUR 500" and eur.text(-10.0) == "−EUR 5"
    assert eur.cents(1.0) == "EUR 0.50"
    assert "0.5 EUR per USD as of 2026-11-27 (ECB)" in eur.note()


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"currency": "EUR"}, r"currency EUR needs exchange_rate: \{per_usd"),
        ({"exchange_rate": RATE}, "exchange_rate is for a currency other than USD"),
        ({"currency": "eur", "exchange_rate": RATE}, r"currency: must be an ISO 4217 code"),
        (
            {"currency": "EUR", "exchange_rate": {**RATE, "per_usd": -1.0}},
            r"exchange_rate\.per_usd",
        ),
        (
            {"currency": "EUR", "exchange_rate": {**RATE, "as_of": "soon"}},
            r"exchange_rate\.as_of: must be a date",
        ),
    ],
)
def test_currency_input_errors(over: dict[str, Any], match: str) -> None:
    with pytest.raises(ScenarioError, match=match):
        make_scenario(**over)


def test_tables_convert_every_money_column_once() -> None:
    usd, xts = _results()
    a, b = tables.comparison(usd), tables.comparison(xts)
    assert b["total cash (XTS)"].tolist() == pytest.approx((a["total cash (USD)"] * 1000).tolist())
    assert b["XTS per delivered GPU-hour"].tolist() == pytest.approx(
        (a["USD per delivered GPU-hour"] * 1000).tolist(), nan_ok=True
    )
    for o_usd, o_xts in zip(usd.options, xts.options, strict=True):
        m_usd, m_xts = tables.monthly(usd, o_usd), tables.monthly(xts, o_xts)
        assert not [c for c in m_xts.columns if "USD" in c]
        assert m_xts["cash total (XTS)"].sum() == pytest.approx(
            1000 * m_usd["cash total (USD)"].sum()
        )
        p = tables.periods(xts, o_xts, "year")
        assert p["cash total (XTS)"].sum() == pytest.approx(m_xts["cash total (XTS)"].sum())
        for _, frame in tables.kind_tables(xts, o_xts):
            assert not [c for c in frame.columns if "USD" in c]
    # The figures themselves are computed in USD: the runs are the same.
    assert [o.total_cash_usd for o in usd.options] == [o.total_cash_usd for o in xts.options]


def test_the_terminal_shows_the_currency_and_its_rate() -> None:
    _, xts = _results()
    text = terminal.render(xts)
    assert "total XTS" in text and "total USD" not in text
    assert "1000 XTS per USD as of 2026-11-27 (a test rate)" in text
    first = xts.options[0]
    assert f"XTS {first.total_cash_usd * 1000:,.0f}" in text
    table = text.split("Recommended")[0]
    assert "$" not in table


def test_the_report_files_in_the_currency(tmp_path: Path) -> None:
    _, xts = _results()
    write_report(xts, tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert "Money in XTS, converted from USD at 1000 XTS per USD as of 2026-11-27" in md
    budget = md.split("## Budget")[1].split("## Prices")[0]
    assert "(USD)" not in budget and "$" not in budget
    answer = md.split("## Comparison")[0]
    assert "$" not in answer.split("Money in XTS")[1].split("What it rests on")[0]
    wb = openpyxl.load_workbook(tmp_path / "budget.xlsx")
    header = [c.value for c in wb["Summary"][4]]
    assert "total cash (XTS)" in header and not [h for h in header if h and "USD" in str(h)]
    inputs = wb["Inputs"]
    assert (inputs["C5"].value, inputs["D5"].value) == ("XTS/kWh", "electricity")
    scenario_price = xts.scenario.options[0].power.usd_per_kwh
    assert inputs["B5"].value == pytest.approx(1000 * scenario_price)
    shares = [
        r for r in range(5, inputs.max_row + 1) if inputs.cell(r, 4).value == "support contract"
    ]
    for r in shares:  # a share of the server price has no currency to convert
        assert inputs.cell(r, 3).value == "share of the server price a year"
        share = inputs.cell(r, 2).value
        assert isinstance(share, int | float) and share < 1
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert doc["scenario"]["currency"] == "USD"  # summary.json stays in USD, with the rate
    assert doc["scenario"]["reporting_currency"] == {"code": "XTS", **RATE}
    html = (tmp_path / "report.html").read_text()
    assert re.search(r"Money in XTS, converted from USD at 1000 XTS per USD", html)
