"""Money: depreciation tables, NPV against numpy-financial, Savings Plan hours, break-even."""

from __future__ import annotations

import numpy as np
import numpy_financial as npf
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tco.simulator.costs import finance
from tco.simulator.kinds.rented.billing import billed_hours, savings_plan_hours


@pytest.mark.parametrize("method", ["straight_line", "declining_balance", "sum_of_years_digits"])
@given(cost=st.floats(1.0, 1e7), salvage_frac=st.floats(0.0, 0.9), months=st.integers(1, 120))
def test_depreciation_sums_to_cost_minus_salvage(
    method: str, cost: float, salvage_frac: float, months: int
) -> None:
    salvage = cost * salvage_frac
    dep = finance.depreciation(method, cost, salvage, months, 2.0)
    assert len(dep) == months
    assert dep.sum() == pytest.approx(cost - salvage, rel=1e-9, abs=1e-6)
    assert (dep >= -1e-9).all()


def test_straight_line_table() -> None:
    # $76,660 server, 43 % salvage, 24 months: (76,660 - 32,963.80) / 24 = 1,820.675 per month.
    dep = finance.straight_line(76_660.0, 32_963.8, 24)
    assert dep[0] == pytest.approx(1_820.675)


def test_sum_of_years_digits_textbook() -> None:
    # Textbook: cost 15,000, salvage 3,000, 5 periods -> 4,000, 3,200, 2,400, 1,600, 800.
    np.testing.assert_allclose(
        finance.sum_of_years_digits(15_000, 3_000, 5), [4_000, 3_200, 2_400, 1_600, 800]
    )


def test_double_declining_balance_textbook() -> None:
    # Textbook DDB: cost 10,000, salvage 1,000, 5 periods, rate 40 %: 4,000, 2,400, 1,440,
    # 864 (still above straight line's 580), then 296 to reach salvage in the last period.
    np.testing.assert_allclose(
        finance.declining_balance(10_000, 1_000, 5, 2.0), [4_000, 2_400, 1_440, 864, 296]
    )
    # With a high salvage the switch to straight line happens: 10,000, salvage 4,000, 5 periods:
    # 4,000 would cut below... DDB 4,000 > SL 1,200 but is capped at book - salvage = 6,000;
    # then book 6,000: DDB 2,400 > SL 500, capped at 2,000 -> 4,000, 2,000, 0, 0, 0.
    np.testing.assert_allclose(
        finance.declining_balance(10_000, 4_000, 5, 2.0), [4_000, 2_000, 0, 0, 0]
    )
    # Switch: cost 1,000, no salvage, 10 periods, factor 1.5 (rate 15 %): DDB falls below
    # straight line on the remaining book in period 5 or later; the total still reaches 1,000.
    dep = finance.declining_balance(1_000, 0, 10, 1.5)
    assert dep[0] == 150 and dep[-1] == dep[-2]


@given(rate=st.floats(0.0, 0.5), flows=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=60))
def test_npv_matches_numpy_financial(rate: float, flows: list[float]) -> None:
    # numpy-financial discounts values[0] at t=0; our flows are at the end of months 1..n.
    r = finance.monthly_rate(rate)
    expected = npf.npv(r, [0.0, *flows])
    assert finance.npv(rate, np.array(flows)) == pytest.approx(expected, rel=1e-9, abs=1e-6)


def test_npv_by_hand() -> None:
    # 1,000 at the end of month 12 at 10 %/yr is worth 1,000 / 1.1 today.
    flows = np.zeros(12)
    flows[-1] = 1_000.0
    assert finance.npv(0.10, flows) == pytest.approx(1_000 / 1.1)


@pytest.mark.parametrize(
    ("usage", "used", "unused", "overflow"),
    [
        # commitment $12/h at a plan rate of $6/instance-h covers 2 instances; on-demand $10/h.
        (1.0, 6.0, 6.0, 0.0),  # below: half the commitment is unused, and still paid
        (2.0, 12.0, 0.0, 0.0),  # at: fully used, nothing at on-demand
        (3.5, 12.0, 0.0, 15.0),  # above: 1.5 instance-hours at on-demand
        (0.0, 0.0, 12.0, 0.0),  # idle: the whole commitment is paid
    ],
)
def test_savings_plan_hour(usage: float, used: float, unused: float, overflow: float) -> None:
    _, u, n, o = savings_plan_hours(np.array([usage]), np.array([12.0]), 6.0, 10.0)
    assert (u[0], n[0], o[0]) == pytest.approx((used, unused, overflow))
    assert u[0] + n[0] == pytest.approx(12.0)  # what leaves for the plan is always the commitment


def test_billing_increments() -> None:
    # AWS per-second billing with a 60 s minimum; bare metal by the whole hour.
    assert billed_hours(np.array([10 / 3600]), 1, 60)[0] == pytest.approx(60 / 3600)
    assert billed_hours(np.array([90.5 / 3600]), 1, 60)[0] == pytest.approx(91 / 3600)
    assert billed_hours(np.array([1.0, 1.01, 0.2]), 3600, 3600).tolist() == [1.0, 2.0, 1.0]


def test_break_even_month() -> None:
    owned = np.array([100.0, 5, 5, 5, 5])
    cloud = np.array([30.0, 30, 30, 30, 30])
    # cumulative owned 100,105,110,115,120 vs cloud 30,60,90,120,150: cheaper from month 4.
    assert finance.break_even_month(owned, cloud) == 4
    assert finance.break_even_month(cloud, owned) is None
    assert finance.break_even_month(cloud * 0, owned) == 1
