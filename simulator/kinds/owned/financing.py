"""Money over time for owned servers: a loan or a lease instead of cash.

- ``loan``: a down payment, then equal monthly payments in arrears (an amortizing loan). The
  servers are owned: the accounting view keeps their depreciation and adds the interest.
- ``lease`` with ``end_of_term: dollar_buyout``: a finance lease (ASC 842: ownership passes at
  the end), booked like the loan: amortization of the asset (the depreciation) plus interest;
  ``upfront_fraction`` is the advance payment.
- ``lease`` with ``end_of_term: fmv_buyout`` or ``return``: an operating lease (ASC 842): the
  lessor prices the payments so that they and the servers' expected value at the end of the term
  (the used-market curve, ``defaults.market_share``) repay the amount financed; the accounting
  view books the lease cost straight-line over the term. At the end the servers are bought at that
  value (then owned and depreciated) or returned (the term must cover the horizon).

A loan or finance lease still running when its servers are sold (at the horizon, or at a refresh:
``owned.generations``) is paid off then; an operating lease's payments after the horizon fall
outside it and are reported (``lease_payments_beyond_horizon_usd``), as a Savings Plan's are.
Payments follow numpy-financial's ``pmt`` (tested against it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.simulator.core import defaults
from tco.simulator.core.fields import Fraction, Strict
from tco.simulator.core.quote import Quote, input_quote
from tco.simulator.costs.ledger import Asset, Category, declare

declare(
    Category("financing", "loan and lease payments", "server prices", "#9467bd", charge="Purchase"),
    Category(
        "financing_payoff",
        "loan or lease paid off at the sale",
        "server prices",
        "#c5b0d5",
        charge="Purchase",
    ),
    Category("interest", "interest", "server prices", "#e377c2"),
    Category("lease", "operating lease cost", "server prices", "#9467bd"),
    Category(
        "lease_after_end", "lease payments for after the project ends", "server prices", "#6b4c9a"
    ),
    Category(
        "lease_termination", "operating lease ended early at a refresh", "server prices", "#c49c94"
    ),
)


class Financing(Strict):
    """How an owned option's servers are paid for, if not in cash."""

    kind: Literal["loan", "lease"]
    term_months: Annotated[int, Field(ge=1, le=240)] = defaults.FINANCING_TERM_MONTHS
    annual_rate: Annotated[float, Field(ge=0, le=1)] = defaults.FINANCING_ANNUAL_RATE
    down_payment_fraction: Fraction | None = None  # loan; default defaults.LOAN_DOWN_PAYMENT
    upfront_fraction: Fraction | None = None  # lease; default defaults.LEASE_UPFRONT
    end_of_term: Literal["dollar_buyout", "fmv_buyout", "return"] | None = None  # lease

    @model_validator(mode="after")
    def _fields_of_kind(self) -> Financing:
        if self.kind == "loan" and (self.upfront_fraction is not None or self.end_of_term):
            raise ValueError(
                "a loan takes down_payment_fraction, not upfront_fraction or end_of_term"
            )
        if self.kind == "lease" and self.down_payment_fraction is not None:
            raise ValueError("a lease takes upfront_fraction, not down_payment_fraction")
        return self

    @property
    def upfront(self) -> float:
        if self.kind == "loan":
            d = self.down_payment_fraction
            return defaults.LOAN_DOWN_PAYMENT if d is None else d
        u = self.upfront_fraction
        return defaults.LEASE_UPFRONT if u is None else u

    @property
    def operating(self) -> bool:
        """An operating lease (the lessor keeps the servers' value at the end of the term)."""
        return self.kind == "lease" and (self.end_of_term or "dollar_buyout") != "dollar_buyout"


def payment(rate_month: float, n: int, principal: float, residual: float = 0.0) -> float:
    """The payment in arrears that repays ``principal`` over ``n`` months, leaving ``residual``
    (numpy-financial: -pmt(rate, n, principal, -residual))."""
    if rate_month == 0:
        return (principal - residual) / n
    g = (1 + rate_month) ** n
    return (principal * g - residual) * rate_month / (g - 1)


def balance(rate_month: float, principal: float, pay: float, k: int) -> float:
    """What is still owed after ``k`` payments."""
    if rate_month == 0:
        return principal - pay * k
    g = (1 + rate_month) ** k
    return float(principal * g - pay * (g - 1) / rate_month)


@dataclass
class Flows:
    """One tranche's money under financing: cash and accounting by category, per month."""

    months: int
    cash: dict[str, np.ndarray] = field(default_factory=dict)
    accounting: dict[str, np.ndarray] = field(default_factory=dict)
    notes: dict[str, float] = field(default_factory=dict)
    assets: list[Asset] = field(default_factory=list)  # servers owned, for the tax law

    def merge(self, other: Flows) -> None:
        """Another tranche's flows added to these, category by category."""
        for mine, theirs in ((self.cash, other.cash), (self.accounting, other.accounting)):
            for k, v in theirs.items():
                mine[k] = mine[k] + v if k in mine else v
        for k, x in other.notes.items():
            self.notes[k] = self.notes.get(k, 0.0) + x
        self.assets += other.assets

    def add(self, view: dict[str, np.ndarray], name: str, month: int, usd: float) -> None:
        arr = view.setdefault(name, np.zeros(self.months))
        if 0 <= month < self.months:
            arr[month] += usd


def financed(
    f: Financing,
    basis: float,
    m0: int,
    months: int,
    residual: float,
    until: int | None = None,
    returned_value: float = 0.0,
) -> Flows:
    """Cash and accounting flows of financing ``basis`` USD of servers arriving in month ``m0``
    (``residual``: their expected market value at the end of the term, for an operating lease).
    A loan or finance lease still running in month ``until`` - 1 (default: the horizon's last),
    when the servers are sold, is paid off then. An operating lease still running then, before
    the horizon (a refresh), ends early: the servers go back and the lessee pays what the
    lessor is still owed (the lease's balance, the residual included) less what they fetch
    (``returned_value``), at least nothing; its cost is booked in full by then. Depreciation,
    resale and a buyout's own depreciation stay with the caller."""
    stop = months if until is None else until
    out = Flows(months)
    out.cash["financing"] = np.zeros(months)
    out.accounting["lease" if f.operating else "interest"] = np.zeros(months)
    r = f.annual_rate / 12.0
    n = f.term_months
    upfront = basis * f.upfront
    principal = basis - upfront
    pay = payment(r, n, principal, residual if f.operating else 0.0)
    out.add(out.cash, "financing", m0, upfront)
    paid = 0
    for k in range(1, n + 1):  # payment k at the end of month m0 + k - 1
        month = m0 + k - 1
        if month >= stop:
            break
        out.add(out.cash, "financing", month, pay)
        if not f.operating:
            out.add(out.accounting, "interest", month, r * balance(r, principal, pay, k - 1))
        paid = k
    if f.operating:
        cost = (upfront + pay * n) / n  # straight-line lease cost
        last = min(m0 + n, stop)
        for month in range(m0, last):
            out.add(out.accounting, "lease", month, cost)
        if paid < n and stop < months:  # returned early (a refresh)
            owed = max(0.0, balance(r, principal, pay, paid) - returned_value)
            out.add(out.cash, "lease_termination", stop - 1, owed)
            # What it cost in all (paid, and owed now) less what was booked: never negative.
            booked = cost * (last - m0)
            out.add(out.accounting, "lease", stop - 1, upfront + pay * paid + owed - booked)
            paid = n
        out.notes["lease_payments_beyond_horizon_usd"] = pay * (n - paid)
    elif paid < n:
        out.add(out.cash, "financing_payoff", stop - 1, balance(r, principal, pay, paid))
    out.notes["financing_payment_usd_per_month"] = pay
    return out


def financing_quotes(f: Financing | None) -> tuple[Quote, ...]:
    """The financing terms an owned option's figures rest on, with their sources."""
    if f is None:
        return ()
    what = f"{f.kind}{' (' + f.end_of_term + ')' if f.end_of_term else ''}"
    return (
        input_quote(f"{what} interest rate", f.annual_rate, "per year", "financing_annual_rate"),
        input_quote(f"{what} term", f.term_months, "months", "financing_term_months"),
        Quote(
            f"{what} {'down payment' if f.kind == 'loan' else 'advance'}",
            f.upfront,
            "fraction of cost",
            "default"
            if (f.down_payment_fraction, f.upfront_fraction) == (None, None)
            else "scenario",
            "see detail",
            "midpoint of a GPU vendor's ranges (slyd.com, ~2026): 0-20 % down, 0-10 % lease"
            " advance",
        ),
    )
