"""Chargeback arithmetic (issue 57, item 3), by hand: each month's cost split by the GPU-hours
each team held, idle capacity by the stated rule, whole cents adding up exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.simulator.costs.chargeback import allocate, running_cents, split_cents

# Two teams, three months: 100 GPU-hours paid each month.
USED = np.array([[60.0, 30.0, 0.0], [20.0, 70.0, 0.0]])
PAID = np.array([100.0, 100.0, 100.0])
COST = np.array([1000.0, 1000.0, 1000.0])


def test_by_use_charges_the_idle_capacity_with_the_rest() -> None:
    cents = allocate(COST, USED, PAID, "by_use", None)
    # Month 1: 60:20 of $1,000 = $750 and $250; month 2: 30:70; month 3 nobody used it and no
    # shares are stated: the central budget.
    assert cents[:, 0].tolist() == [75_000, 25_000, 0]
    assert cents[:, 1].tolist() == [30_000, 70_000, 0]
    assert cents[:, 2].tolist() == [0, 0, 100_000]


def test_by_share_charges_the_idle_capacity_by_the_teams_shares() -> None:
    cents = allocate(COST, USED, PAID, "by_share", np.array([0.25, 0.75]))
    # Month 1: team 1 used 60 GPU-hours ($600), team 2 20 ($200); 20 idle: $50 and $150.
    assert cents[:, 0].tolist() == [65_000, 35_000, 0]
    # Month 3: nobody used it: all by the shares.
    assert cents[:, 2].tolist() == [25_000, 75_000, 0]


def test_central_charges_the_idle_capacity_to_the_central_budget() -> None:
    cents = allocate(COST, USED, PAID, "central", None)
    assert cents[:, 0].tolist() == [60_000, 20_000, 20_000]
    assert cents[:, 1].tolist() == [30_000, 70_000, 0]


def test_cents_left_over_go_to_the_largest_remainders() -> None:
    # $1.00 three ways: 33.33... cents each; the one cent left to the first of the ties.
    assert split_cents(100, np.array([1.0, 1.0, 1.0])).tolist() == [34, 33, 33]
    assert split_cents(100, np.array([1.0, 2.0])).tolist() == [33, 67]


def test_the_months_add_up_to_the_total_rounded_not_each_month_rounded() -> None:
    usd = np.array([0.004, 0.004, 0.004])  # each rounds to 0, together to 1 cent
    assert running_cents(usd).tolist() == [0, 1, 0]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e7, allow_nan=False), min_size=1, max_size=12),
    st.integers(1, 4),
    st.sampled_from(["by_use", "by_share", "central"]),
    st.integers(0, 2**31),
)
def test_every_month_and_the_whole_add_up_to_the_cent(
    costs: list[float], teams: int, idle: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    months = len(costs)
    used = rng.uniform(0, 50, (teams, months)) * (rng.random((teams, months)) < 0.7)
    paid = used.sum(axis=0) + rng.uniform(0, 30, months)
    shares = rng.dirichlet(np.ones(teams))
    total = np.array(costs)
    cents = allocate(total, used, paid, idle, shares if idle == "by_share" else None)  # type: ignore[arg-type]
    assert cents.sum(axis=0).tolist() == running_cents(total).tolist()
    assert int(cents.sum()) == round(float(np.cumsum(total)[-1]) * 100)
    if idle != "central":  # nothing goes to the central budget but months nobody used
        nobody = used.sum(axis=0) <= 0
        assert (cents[-1][~nobody] == 0).all()


def test_a_by_share_rule_without_shares_is_refused() -> None:
    from tco.simulator.costs.chargeback import ChargebackSpec

    with pytest.raises(ValueError, match=r"by_share needs shares"):
        ChargebackSpec(idle="by_share")
    with pytest.raises(ValueError, match=r"add up to 0\.9"):
        ChargebackSpec(shares={"a": 0.5, "b": 0.4})
