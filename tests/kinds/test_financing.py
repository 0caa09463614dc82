"""Financing owned servers (loan, finance lease, operating lease) against numpy-financial, and
running costs escalated month by month."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy_financial as npf
import pytest

from tco.pricing.used_market import used_market
from tco.simulator.core.errors import ScenarioError
from tco.simulator.kinds.owned.financing import balance, payment
from tco.simulator.run import run
from tests.conftest import make_scenario

SERVER = {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1}


@pytest.mark.parametrize(
    ("rate", "n", "pv", "fv"),
    [(0.095 / 12, 36, 1e5, 0.0), (0.01, 24, 5e4, 2e4), (0.0, 12, 1200.0, 0.0)],
)
def test_payment_and_balance_match_numpy_financial(
    rate: float, n: int, pv: float, fv: float
) -> None:
    pay = payment(rate, n, pv, fv)
    assert pay == pytest.approx(-npf.pmt(rate, n, pv, -fv), rel=1e-12)
    for k in (0, 1, n // 2, n):
        with np.errstate(invalid="ignore", divide="ignore"):  # npf.fv divides by a zero rate
            want = -npf.fv(rate, k, -pay, pv)
        assert balance(rate, pv, pay, k) == pytest.approx(want, rel=1e-9, abs=1e-6)


def _own(financing: dict[str, Any] | None, months: int = 60, **over: Any) -> Any:
    option = {**SERVER, **({"financing": financing} if financing else {}), **over}
    return run(make_scenario(horizon_months=months, options=[option])).options[0]


def test_loan_by_numpy_financial() -> None:
    cash = _own(None)
    loan = _own(
        {"kind": "loan", "term_months": 36, "annual_rate": 0.12, "down_payment_fraction": 0.2}
    )
    basis = cash.ledger.cash["capex"].sum()
    r, n, p = 0.01, 36, 0.8 * basis
    c = loan.ledger.cash
    assert c["capex"].sum() == 0
    assert c["financing"][0] == pytest.approx(0.2 * basis - npf.pmt(r, n, p))  # down + payment 1
    assert c["financing"][1:36] == pytest.approx(np.full(35, -npf.pmt(r, n, p)))
    assert c["financing"][36:].sum() == 0
    interest = loan.ledger.accounting["interest"][:36]
    assert interest == pytest.approx(-npf.ipmt(r, np.arange(1, 37), n, p))
    # Principal repaid = what was borrowed (ppmt), so the loan costs exactly its interest more.
    assert -npf.ppmt(r, np.arange(1, 37), n, p).sum() == pytest.approx(p)
    # Before the share of finishing the work unfinished at the horizon, which is each option's
    # cost per GPU-hour used times the same GPU-hours (kinds.costing), so in proportion.
    (to_loan, to_cash) = (o.ledger.notes["to_finish_after_horizon_usd"] for o in (loan, cash))
    assert to_loan > 0
    assert loan.total_cash_usd - to_loan - (cash.total_cash_usd - to_cash) == pytest.approx(
        interest.sum()
    )
    assert to_loan / to_cash == pytest.approx(
        (loan.total_cash_usd - to_loan) / (cash.total_cash_usd - to_cash), rel=1e-12
    )
    # Depreciation and resale are the owner's either way.
    assert np.array_equal(
        loan.ledger.accounting["depreciation"], cash.ledger.accounting["depreciation"]
    )
    assert loan.total_accounting_usd - to_loan - (
        cash.total_accounting_usd - to_cash
    ) == pytest.approx(interest.sum())


def test_finance_lease_running_at_the_horizon_is_settled_there() -> None:
    lease = _own(
        {
            "kind": "lease",
            "term_months": 36,
            "annual_rate": 0.12,
            "upfront_fraction": 0.1,
            "end_of_term": "dollar_buyout",
        },
        months=12,
    )
    basis = _own(None, months=12).ledger.cash["capex"].sum()
    p = 0.9 * basis
    pay = -npf.pmt(0.01, 36, p)
    owed = -npf.fv(0.01, 12, -pay, p)  # balance after 12 payments
    assert lease.ledger.cash["financing_payoff"][-1] == pytest.approx(owed)
    assert lease.ledger.cash["financing"].sum() == pytest.approx(0.1 * basis + 12 * pay)


def test_operating_lease_prices_in_the_market_value_and_books_a_straight_line_cost() -> None:
    f = {
        "kind": "lease",
        "term_months": 36,
        "annual_rate": 0.12,
        "upfront_fraction": 0.05,
        "end_of_term": "fmv_buyout",
    }
    lease = _own(f, months=48)
    basis = _own(None, months=48).ledger.cash["capex"].sum()
    residual = basis * used_market("A40").share(3.0)
    pay = -npf.pmt(0.01, 36, 0.95 * basis, -residual)
    c, a = lease.ledger.cash, lease.ledger.accounting
    assert c["financing"][1] == pytest.approx(pay)
    assert c["capex"][36] == pytest.approx(residual)  # bought at the end of the term
    assert a["lease"][:36] == pytest.approx(np.full(36, (0.05 * basis + 36 * pay) / 36))
    assert a["depreciation"][:36].sum() == 0 and a["depreciation"][36:].sum() > 0
    # Leasing cuts the first month's cash by the 95 % not paid upfront (less the first payment).
    cash0 = _own(None, months=48).ledger.cash_total()[0]
    assert lease.ledger.cash_total()[0] < 0.1 * cash0


def test_returned_lease_must_cover_the_horizon() -> None:
    f = {"kind": "lease", "term_months": 24, "end_of_term": "return"}
    with pytest.raises(ScenarioError, match=r"options\[0\]\.financing\.term_months.*at least 60"):
        _own(f, months=60)
    lease = _own({**f, "term_months": 60}, months=36)
    assert lease.ledger.cash["resale"].sum() == 0  # returned, not sold
    assert lease.ledger.notes["lease_payments_beyond_horizon_usd"] == pytest.approx(
        24 * lease.ledger.notes["financing_payment_usd_per_month"]
    )


def test_financing_input_errors() -> None:
    with pytest.raises(ScenarioError, match="a loan takes down_payment_fraction"):
        _own({"kind": "loan", "upfront_fraction": 0.1})
    with pytest.raises(ScenarioError, match=r"financing\.annual_rate"):
        _own({"kind": "loan", "annual_rate": -0.1})


def test_escalation_month_by_month() -> None:
    flat = run(make_scenario(horizon_months=36, options=[SERVER])).options[0]
    up = run(
        make_scenario(
            horizon_months=36, options=[SERVER], escalation={"power": 0.05, "staff": 0.03}
        )
    ).options[0]
    f = 1.05 ** (np.arange(36) / 12)
    assert up.ledger.cash["power"] == pytest.approx(flat.ledger.cash["power"] * f)
    assert up.ledger.accounting["power"] == pytest.approx(flat.ledger.accounting["power"] * f)
    assert np.array_equal(up.ledger.cash["facility"], flat.ledger.cash["facility"])
    assert up.ledger.cash["power"][24] == pytest.approx(flat.ledger.cash["power"][24] * 1.05**2)
