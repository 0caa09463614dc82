"""Cash after income tax on whole runs: a rented option's tax is the rate times its rent; an
owned option's deductions add up to its cash (bought, run and sold within the horizon), so
over the horizon every option keeps (1 - rate) of its cash; a decision after tax puts the tax
in the cash every figure reads, and a price scaled scales its tax alike."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tco.simulator.costs.ledger import category, scaled
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import prepare
from tco.simulator.run import simulate
from tests.conftest import cli, make_scenario, one_line_error

OPTIONS: list[dict[str, Any]] = [
    {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1},
    {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
]


def _result(**tax: Any) -> Result:
    sc = make_scenario(tax=tax, options=OPTIONS, horizon_months=24, discount_rate=0.08)
    return simulate(prepare(sc), advise=False)


def test_every_option_keeps_one_minus_the_rate_of_its_cash() -> None:
    r = _result(rate=0.21, state_rate=0.05)
    rate = 0.21 + 0.05 * (1 - 0.21)
    for o in r.options:
        t = o.metrics.tax
        assert t is not None and not t.after_tax
        assert t.before_usd == pytest.approx(o.total_cash_usd)
        # Rent and running costs are deducted as paid, the servers' cost less their sale
        # by the depreciation and the sale: all within the horizon.
        assert t.after_usd == pytest.approx((1 - rate) * t.before_usd, abs=0.01)
    own = r.option("own")
    assert own.ledger.assets and own.ledger.tax["tax_capex"].sum() < 0
    assert own.ledger.tax["tax_resale"].sum() > 0  # bonus left no basis: the sale is taxed
    assert not any(category(k).tax for k in own.ledger.cash)  # decided before tax


def test_bonus_brings_the_tax_back_sooner_than_macrs() -> None:
    bonus, macrs = _result(method="bonus"), _result(method="macrs")
    b, m = (x.option("own").metrics.tax for x in (bonus, macrs))
    assert b is not None and m is not None
    assert b.after_usd == pytest.approx(m.after_usd, abs=0.01)  # the same deductions in all
    assert b.npv_after_usd < m.npv_after_usd  # sooner, so worth more at 8 %
    od_b, od_m = (x.option("od").metrics.tax for x in (bonus, macrs))
    assert od_b == od_m  # renting deducts its rent alike under either


def test_a_decision_after_tax_reads_cash_after_tax_everywhere() -> None:
    r = _result(decide_on="after_tax")
    own = r.option("own")
    t = own.metrics.tax
    assert t is not None and t.after_tax
    assert own.total_cash_usd == pytest.approx(t.after_usd)
    assert any(category(k).tax for k in own.ledger.cash)
    chosen = r.option(r.recommendation.option or "").metrics.tax
    assert chosen is not None and r.recommendation.cash_usd == pytest.approx(chosen.after_usd)


def test_a_price_moved_moves_its_tax_alike() -> None:
    r = _result(decide_on="after_tax", payments="monthly")
    od = r.option("od").ledger
    pre = {k: v for k, v in od.cash.items() if not category(k).tax}
    factors = {"cloud prices": 1.3}
    assert scaled(od.cash, factors).sum() == pytest.approx(0.79 * scaled(pre, factors).sum())
    assert np.allclose(scaled(od.cash, factors), 0.79 * scaled(pre, factors))


@pytest.mark.parametrize(
    ("tax", "needle"),
    [
        ("{method: macrs, bonus_share: 0.5}", "bonus_share"),
        ("{rate: 0.9}", "tax.rate"),
        ("{method: depreciate}", "tax.method"),
        ("{decide_on: npv}", "tax.decide_on"),
    ],
)
def test_a_tax_section_out_of_range_is_one_line(
    tax: str, needle: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.conftest import ROOT

    text = (ROOT / "scenarios" / "lab.yaml").read_text() + f"\ntax: {tax}\n"
    path = tmp_path / "lab.yaml"
    path.write_text(text)
    code, err = cli(["validate", str(path)], capsys)
    one_line_error(code, err, "lab.yaml", needle)


def test_servers_the_site_owns_are_taxed_where_they_are_sold() -> None:
    # Two A40 servers bought in 2024-01 at $50,000 each: 60 % bonus then (IRC §168(k) as TCJA
    # phased it down), the other $40,000 by MACRS, half-year: 20 % in 2024, 32 % in 2025,
    # 19.2 % in 2026, and in 2027, the year they are sold, half of its 11.52 % (Publication
    # 946: the half-year convention in the year of a sale): $9,216 of basis left. An option
    # that sells them at the start owes 21 % of what they fetch above it.
    existing = {"servers": 2, "bought": "2024-01", "price_usd": 50_000, "source": "test"}
    options = [{**OPTIONS[0], "existing": existing}, OPTIONS[1]]
    sc = make_scenario(tax={"method": "bonus", "payments": "monthly"}, options=options)
    r = simulate(prepare(sc), advise=False)
    od = r.option("od").ledger
    fetched = -float(od.cash["existing_sold"].sum())
    assert fetched > 0
    assert od.tax["tax_existing_sold"][0] == pytest.approx(0.21 * (fetched - 9_216.0))
    assert od.tax["tax_capex"][0] == pytest.approx(-0.21 * 40_000 * 0.1152 / 2)
    own = r.option("own")
    assert own.ledger.assets[0].placed_month == -36  # its own, kept: the same basis left
