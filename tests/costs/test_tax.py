"""Income tax on the ledgers against the tax law's own figures: IRS Publication 946's tables
(derived again from the method they print), the statute's §179 phase-out, a $1 M server's year
of bonus depreciation, and the present value of a MACRS tax shield computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tco.simulator.costs import tax_rules as rules
from tco.simulator.costs.finance import npv
from tco.simulator.costs.ledger import Asset, Ledger
from tco.simulator.costs.tax import TaxRules, asset_deductions, taxes


def _ledger(*assets: Asset, months: int = 72, **accounting: np.ndarray) -> Ledger:
    zero = np.zeros(months)
    return Ledger(
        cash={},
        accounting=dict(accounting),
        gpu_hours_paid=zero,
        gpu_hours_busy=zero,
        assets=tuple(assets),
    )


def _asset(placed: int, basis: float, sold: int | None = None, proceeds: float = 0.0) -> Asset:
    return Asset(placed, basis, sold, proceeds, "capex", "resale")


def _by_year(monthly: np.ndarray) -> list[float]:
    return [round(float(monthly[i : i + 12].sum()), 2) for i in range(0, len(monthly), 12)]


@pytest.mark.parametrize(
    ("first_year", "table"),
    [(0.5, rules.HALF_YEAR)]
    + [(1 - (3 * q - 1.5) / 12, rules.MID_QUARTER[q]) for q in (1, 2, 3, 4)],
)
def test_the_printed_tables_are_the_method_they_name(
    first_year: float, table: tuple[float, ...]
) -> None:
    # 200 % declining balance switching to straight line over 5 years, the first year's
    # fraction by the convention: Publication 946 prints it rounded to 0.01 %.
    derived = rules.declining_balance_shares(5, first_year)
    assert [round(100 * s, 2) for s in derived] == list(table)
    assert sum(table) == pytest.approx(100.0)


def test_a_million_dollar_server_under_bonus_saves_210k_of_tax_in_year_one() -> None:
    t = TaxRules(rate=0.21, method="bonus", start="2026-01")
    tax = taxes(_ledger(_asset(0, 1_000_000.0)), t, 72)
    saved = -sum(v[:12].sum() for v in tax.values())
    assert round(saved, 2) == 210_000.00
    assert rules.bonus_share("2026-01") == 1.0 and rules.bonus_share("2024-06") == 0.6


def test_macrs_deductions_are_table_a1_to_the_cent() -> None:
    t = TaxRules(rate=0.21, method="macrs", start="2026-01")
    dep, sale = asset_deductions([_asset(0, 1_000_000.0)], t, 72)
    assert _by_year(dep) == [200_000.0, 320_000.0, 192_000.0, 115_200.0, 115_200.0, 57_600.0]
    assert abs(sale.sum()) < 1e-6  # nothing left to deduct when it is kept to the end


def test_the_tax_shield_s_present_value_is_the_hand_computation() -> None:
    # Tax paid once a year, at the tax year's end: a deduction d_k in year k saves 0.21 d_k
    # then, worth 0.21 d_k / 1.08^k today at 8 % a year.
    t = TaxRules(rate=0.21, method="macrs", start="2026-01", payments="annual")
    tax = taxes(_ledger(_asset(0, 1_000_000.0)), t, 72)
    monthly = np.sum(list(tax.values()), axis=0)
    d = [200_000, 320_000, 192_000, 115_200, 115_200, 57_600]
    by_hand = sum(0.21 * dk / 1.08**k for k, dk in enumerate(d, start=1))
    assert -npv(0.08, monthly) == pytest.approx(by_hand, abs=0.01)
    assert round(by_hand, 2) == 170_378.42


def test_section_179_phases_out_dollar_for_dollar() -> None:
    # IRC §179(b)(2): the limit less the cost above the threshold. 2025: $2.5 M less
    # ($4.5 M - $4.0 M) = $2.0 M; 2026: $2.56 M less ($4.5 M - $4.09 M) = $2.15 M.
    assert rules.section_179_deduction(2025, 4_500_000) == 2_000_000
    assert rules.section_179_deduction(2026, 4_500_000) == 2_150_000
    assert rules.section_179_deduction(2025, 6_500_000) == 0
    assert rules.section_179_deduction(2025, 300_000) == 300_000
    t = TaxRules(rate=0.21, method="section_179", start="2025-03")
    dep, _ = asset_deductions([_asset(0, 4_500_000.0)], t, 72)
    # $2.0 M expensed; the other $2.5 M by Table A-1 (20 % the first year).
    assert round(float(dep[:10].sum()), 2) == 2_000_000 + 500_000


def test_most_property_in_the_last_quarter_takes_the_mid_quarter_convention() -> None:
    t = TaxRules(rate=0.21, method="macrs", start="2026-01")
    dep, _ = asset_deductions([_asset(10, 1_000_000.0)], t, 72)
    assert round(float(dep[:12].sum()), 2) == 50_000.0  # Table A-5: 5 % in the first year
    few = [_asset(1, 700_000.0), _asset(10, 300_000.0)]
    dep, _ = asset_deductions(few, t, 72)
    assert round(float(dep[:12].sum()), 2) == 200_000.0  # 30 % in Q4: half-year, 20 %


def test_a_sale_is_taxed_on_what_it_fetched_above_the_basis_left() -> None:
    t = TaxRules(rate=0.21, method="bonus", start="2026-01", payments="monthly")
    sold = _asset(0, 1_000_000.0, 35, 300_000.0)
    tax = taxes(_ledger(sold, months=36), t, 36)
    assert round(float(tax["tax_resale"][35]), 2) == 63_000.0  # all of it recaptured at 21 %
    # Under MACRS, sold in its third tax year: half of that year's 19.2 % (half-year
    # convention), so the basis left is 1 M x (1 - 0.2 - 0.32 - 0.096) = 384,000.
    m = TaxRules(rate=0.21, method="macrs", start="2026-01")
    dep, sale = asset_deductions([sold], m, 36)
    assert _by_year(dep) == [200_000.0, 320_000.0, 96_000.0]
    assert round(float(sale[35]), 2) == 384_000.0 - 300_000.0


def test_placed_and_sold_in_one_year_gets_no_depreciation() -> None:
    t = TaxRules(rate=0.21, method="bonus", start="2026-01")
    dep, sale = asset_deductions([_asset(1, 100_000.0, 8, 90_000.0)], t, 12)
    assert dep.sum() == 0 and round(float(sale[8]), 2) == 10_000.0


def test_tax_falls_in_the_month_it_is_paid() -> None:
    power = np.full(24, 1_000.0)
    q = taxes(_ledger(months=24, power=power), TaxRules(rate=0.2, method="bonus"), 24)
    assert list(np.nonzero(q["tax_power"])[0]) == [2, 5, 8, 11, 14, 17, 20, 23]
    assert q["tax_power"][2] == pytest.approx(-600.0)
    fiscal = TaxRules(rate=0.2, method="bonus", start="2027-01", fiscal_start=7, payments="annual")
    a = taxes(_ledger(months=24, power=power), fiscal, 24)["tax_power"]
    assert list(np.nonzero(a)[0]) == [5, 17, 23]  # June's year ends; the rest at the horizon


def test_a_state_that_does_not_follow_bonus_deducts_by_macrs() -> None:
    # 21 % federal with bonus, 10 % state by MACRS (state tax deductible federally: its rate
    # nets to 10 % x 0.79): year one saves 0.21 x 1 M + 0.079 x 200 k = $225,800.
    from tco.simulator.costs.tax import Tax

    tax = Tax(rate=0.21, state_rate=0.10, method="bonus", state_follows_bonus=False)
    t = tax.rules("2026-01", 1)
    owed = taxes(_ledger(_asset(0, 1_000_000.0)), t, 72)
    assert round(-float(owed["tax_capex"][:12].sum()), 2) == 225_800.0
    # Over the servers' life the state deducts all of it too: 1 M at the combined rate.
    assert -float(owed["tax_capex"].sum()) == pytest.approx(1_000_000 * tax.combined_rate)
    with pytest.raises(ValueError, match="state_follows_bonus"):
        Tax(method="macrs", state_rate=0.1, state_follows_bonus=False)
