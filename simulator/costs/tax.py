"""Income tax on an option's money, month by month: what the tax law deducts of each cost, when,
and the tax it saves (or costs, on a gain), by the ledger category it comes from.

A ledger's accounting view already holds every expense as it is recognised (rent and running
costs as incurred, a commitment's hours as they pass, interest, an operating lease's cost); the
tax law deducts the same, except the servers: their book depreciation and book gains are
replaced by the tax law's own (``Category.book_only``), computed from the assets the ledger
records (``Asset``: what was placed in service, when, at what basis, and what its sale
fetched) by the rules of ``costs.tax_rules``. A sale is taxed on what it fetched above the
remaining tax basis (recapture, at the same rate: a corporation has no capital-gains rate).

Timing: bonus depreciation and §179 expensing are deducted in the month the servers are placed
in service; a tax year's MACRS depreciation over its months in service; the tax of each month
is paid with the tax year's estimated payments: each quarter's in its last month (quarterly),
the year's in its last month (annual) or as it falls (monthly); whatever falls after the
horizon, in its last month. Servers not sold at the horizon have their tax basis left deducted
then: tco counts them as sold or worth nothing there, and a deduction the servers still carry
is theirs.

Taken as given, and said in the answer: the organisation has taxable income enough to use
every deduction in the year it arises (a loss-making start-up carries deductions forward,
which this does not model); one combined rate (federal + state x (1 - federal), state tax being
deductible federally), and the state following the federal depreciation unless the scenario
says it does not follow bonus (``state_follows_bonus: false``: the state deducts by MACRS).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.simulator.core.calendar import month_number
from tco.simulator.core.fields import Strict
from tco.simulator.core.quote import Quote
from tco.simulator.costs import tax_rules as rules
from tco.simulator.costs.ledger import Asset, Category, Ledger, category, declare


class Tax(Strict):
    """The scenario's ``tax:``: income tax on the organisation's profit, so that cash is also
    shown after tax and the decision can be made on it. Without it tco's figures are before
    tax (right for a university or a non-profit, which pays none)."""

    jurisdiction: Literal["US"] = "US"
    rate: Annotated[float, Field(ge=0, le=0.6)] = rules.FEDERAL_RATE  # federal, per dollar
    state_rate: Annotated[float, Field(ge=0, le=0.3)] = 0.0
    method: Literal["bonus", "section_179", "macrs", "straight_line"] = "bonus"
    # The bonus share when not the law's by date (e.g. 0.4 elected for 2025's first weeks).
    bonus_share: Annotated[float, Field(ge=0, le=1)] | None = None
    payments: Literal["quarterly", "annual", "monthly"] = "quarterly"
    decide_on: Literal["pre_tax", "after_tax"] = "pre_tax"
    # Many states do not follow federal bonus depreciation (California, New York, ...: each
    # state's own law): false, the state deducts servers by MACRS instead.
    state_follows_bonus: bool = True

    @model_validator(mode="after")
    def _bonus_with_bonus(self) -> Tax:
        if self.bonus_share is not None and self.method != "bonus":
            raise ValueError(f"bonus_share is for method: bonus, not {self.method}")
        if not self.state_follows_bonus and (self.method != "bonus" or not self.state_rate):
            raise ValueError(
                "state_follows_bonus: false is for method: bonus with a state_rate (the state"
                " deducts servers by MACRS instead)"
            )
        return self

    @property
    def combined_rate(self) -> float:
        """Federal and state together: state tax is deductible federally."""
        return self.rate + self.state_rate * (1.0 - self.rate)

    def quotes(self, start: str) -> tuple[Quote, ...]:
        """The tax figures every option's after-tax cash rests on, with their sources."""
        law = self.rate == rules.FEDERAL_RATE
        out = [
            Quote(
                "federal income tax rate",
                self.rate,
                "per USD of profit",
                "law" if law else "scenario",
                "2018-01-01" if law else "undated",
                rules.SOURCE_RATE if law else "set in the scenario file",
            )
        ]
        if self.state_rate:
            out.append(
                Quote(
                    "state income tax rate",
                    self.state_rate,
                    "per USD of profit",
                    "scenario",
                    "undated",
                    "set in the scenario file; deductible federally, and taken to follow the"
                    " federal depreciation",
                )
            )
        bonus = rules.bonus_share(start) if self.bonus_share is None else self.bonus_share
        first = {"bonus": bonus, "section_179": 1.0, "macrs": 0.2, "straight_line": 0.1}
        source = {
            "bonus": (rules.SOURCE_BONUS, "2025-07-04"),
            "section_179": (rules.SOURCE_179, "2026"),
            "macrs": (rules.SOURCE_TABLES, "2024"),
            "straight_line": (rules.SOURCE_TABLES, "2024"),
        }[self.method]
        out.append(
            Quote(
                f"servers' first-year tax deduction ({self.method}), placed in service {start}",
                first[self.method],
                "share of their cost",
                "law",
                source[1],
                f"{source[0]}{_limit(self.method, start)}; the rest by MACRS 5-year"
                f" ({rules.SOURCE_TABLES})"
                if self.method in ("bonus", "section_179")
                else source[0],
            )
        )
        return tuple(out)

    def rules(self, start: str, fiscal_start: int) -> TaxRules:
        return TaxRules(
            rate=self.combined_rate,
            state_rate=self.state_rate * (1.0 - self.rate),
            state_method=None if self.state_follows_bonus else "macrs",
            method=self.method,
            payments=self.payments,
            start=start,
            fiscal_start=fiscal_start,
            bonus_share=self.bonus_share,
            after_tax=self.decide_on == "after_tax",
        )


def _limit(method: str, start: str) -> str:
    """Section 179's limit in the first tax year, in words (empty for another method)."""
    if method != "section_179":
        return ""
    limit, threshold = rules.section_179_limits(int(start[:4]))
    return f" (up to {limit:,.0f} USD a year, less what the year places above {threshold:,.0f})"


@dataclass(frozen=True)
class TaxRules:
    """A scenario's tax as the ledgers apply it: the combined rate, the depreciation method,
    when tax is paid, the calendar (``start``: the first month, YYYY-MM; ``fiscal_start``: the
    tax year's first calendar month) and whether the decision is on cash after tax."""

    rate: float  # federal and state together
    method: str  # bonus, section_179, macrs, straight_line
    # The state's part of ``rate`` (net of its federal deduction), and the method the state
    # deducts servers by when not the federal one (None: the federal one).
    state_rate: float = 0.0
    state_method: str | None = None
    payments: str = "quarterly"  # quarterly, annual, monthly
    start: str = "2027-01"
    fiscal_start: int = 1
    bonus_share: float | None = None  # None: by the month placed in service (rules.bonus_share)
    after_tax: bool = False

    def absolute(self, month: int) -> int:
        """Month index (0: the first month, negative before it) as months since year 0."""
        return month_number(self.start) + month

    def _fiscal(self, month: int) -> int:
        """Months since the start of the tax year of year 0 (tax years counted from it)."""
        return self.absolute(month) - (self.fiscal_start - 1)

    def tax_year(self, month: int) -> int:
        """The calendar year the tax year holding ``month`` begins in."""
        return self._fiscal(month) // 12

    def quarter(self, month: int) -> int:
        """The quarter (1-4) of its tax year ``month`` falls in."""
        return self._fiscal(month) % 12 // 3 + 1

    def year_end(self, month: int) -> int:
        """The month index of the last month of ``month``'s tax year."""
        return month + 11 - self._fiscal(month) % 12

    def paid_in(self, months: int) -> np.ndarray:
        """The month each of ``months`` months' tax is paid in: its quarter's last (quarterly),
        its tax year's (annual) or itself (monthly); the horizon's last at the latest."""
        m = np.arange(months)
        into = (self._fiscal(0) + m) % 12
        if self.payments == "quarterly":
            return np.asarray(np.minimum(m + 2 - into % 3, months - 1))
        if self.payments == "annual":
            return np.asarray(np.minimum(m + 11 - into, months - 1))
        return m

    def label(self, month: int) -> str:
        """``month`` (an index, negative before the horizon) as YYYY-MM."""
        a = self.absolute(month)
        return f"{a // 12:04d}-{a % 12 + 1:02d}"


def tax_category(source: str) -> Category:
    """The category of the tax a source category's deductions save (negative) or a gain costs
    (``Category.taxed``: declared like its source)."""
    twin = category(source).taxed()
    declare(twin)  # a source declared by none (a plug-in's) has its twin declared here
    return twin


def deductions(led: Ledger, t: TaxRules, months: int) -> dict[str, np.ndarray]:
    """What the tax law deducts each month (USD, a negative one a taxable gain), by the category
    it comes from: the accounting view but for the book's own server figures, and the servers'
    tax depreciation and sales, under the categories each asset names for its cost and its sale
    (``Asset.bought``, ``Asset.sold``)."""
    out = {
        name: np.asarray(v, dtype=np.float64)
        for name, v in led.accounting.items()
        if not category(name).book_only and not category(name).tax
    }
    for a, dep, sale in each_asset(led.assets, t, months):
        for name, v in ((a.bought, dep), (a.sold, sale)):
            if v.any():
                out[name] = out[name] + v if name in out else v
    return out


def taxes(led: Ledger, t: TaxRules, months: int) -> dict[str, np.ndarray]:
    """The tax each category's deductions save (negative) or cost, in the months it is paid,
    by its tax category (``tax_category``)."""
    out: dict[str, np.ndarray] = {}
    federal = deductions(led, t, months)
    if t.state_method is None or t.state_method == t.method:
        owed = {name: -t.rate * d for name, d in federal.items()}
    else:  # the state's deductions of servers differ: each rate on its own deductions
        state = deductions(led, dataclasses.replace(t, method=t.state_method), months)
        zero = np.zeros(months)
        owed = {
            name: -(t.rate - t.state_rate) * federal.get(name, zero)
            - t.state_rate * state.get(name, zero)
            for name in {**federal, **state}
        }
    for name, tax in owed.items():
        paid = _paid(tax, t)
        if paid.any():
            out[tax_category(name).name] = paid
    return out


def _paid(tax: np.ndarray, t: TaxRules) -> np.ndarray:
    """Each month's tax moved to the month it is paid in (``TaxRules.paid_in``)."""
    if t.payments == "monthly":
        return tax
    out = np.zeros_like(tax)
    due = np.nonzero(tax)[0]
    np.add.at(out, t.paid_in(len(tax))[due], tax[due])  # in month order, as paid
    return out


def asset_deductions(
    assets: Sequence[Asset], t: TaxRules, months: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each month's tax depreciation of ``assets`` and their sales' deductions (the tax basis
    left less what a sale fetched: negative for a gain), over the horizon's ``months``. An asset
    not sold has its basis left deducted in the horizon's last month."""
    dep, sale = np.zeros(months), np.zeros(months)
    for _, d, s in each_asset(assets, t, months):
        dep, sale = dep + d, sale + s
    return dep, sale


def each_asset(
    assets: Sequence[Asset], t: TaxRules, months: int
) -> Iterator[tuple[Asset, np.ndarray, np.ndarray]]:
    """Each asset with its monthly tax depreciation and its sale's deduction (a tax year's
    convention and §179 limit are those of all ``assets`` together)."""
    conventions = _conventions(list(assets), t)
    for a, expensed in zip(assets, _section_179(list(assets), t), strict=True):
        dep, sale = np.zeros(months), np.zeros(months)
        last = months - 1 if a.sold_month is None else a.sold_month
        taken = 0.0
        for m, usd in _schedule(a, t, conventions, expensed).items():
            if m <= last:
                taken += usd
                if m >= 0:
                    dep[m] += usd
        if 0 <= last < months:
            sale[last] += a.basis - taken - a.proceeds
        yield a, dep, sale


def _conventions(assets: list[Asset], t: TaxRules) -> dict[int, str]:
    """Each tax year's MACRS convention: mid-quarter when more than 40 % of the year's property
    is placed in service in its last quarter, else half-year (IRC §168(d)(1), (3))."""
    placed: dict[int, tuple[float, float]] = {}
    for a in assets:
        year = t.tax_year(a.placed_month)
        total, q4 = placed.get(year, (0.0, 0.0))
        last_quarter = a.basis if t.quarter(a.placed_month) == 4 else 0.0
        placed[year] = (total + a.basis, q4 + last_quarter)
    return {y: "mid_quarter" if q4 > 0.4 * tot else "half_year" for y, (tot, q4) in placed.items()}


def _section_179(assets: list[Asset], t: TaxRules) -> list[float]:
    """What §179 expenses of each asset: its tax year's deduction shared pro rata (none unless
    the method is section_179)."""
    if t.method != "section_179":
        return [0.0] * len(assets)
    by_year: dict[int, float] = {}
    for a in assets:
        y = t.tax_year(a.placed_month)
        by_year[y] = by_year.get(y, 0.0) + a.basis
    share = {
        y: rules.section_179_deduction(y, usd) / usd if usd > 0 else 0.0
        for y, usd in by_year.items()
    }
    return [a.basis * share[t.tax_year(a.placed_month)] for a in assets]


def _schedule(
    a: Asset, t: TaxRules, conventions: dict[int, str], expensed: float
) -> dict[int, float]:
    """One asset's tax deductions by month index (negative before the horizon): bonus and §179
    in the month it is placed in service, each recovery year's MACRS share over that tax year's
    months in service, the year of a sale cut short by the convention (``rules.Disposal``).
    Placed and sold in one tax year: no depreciation at all (Publication 946, chapter 3)."""
    out: dict[int, float] = {}
    p, sold = a.placed_month, a.sold_month
    year0 = t.tax_year(p)
    sold_year = None if sold is None else t.tax_year(sold)
    if sold_year == year0:
        return out
    bonus = 0.0
    if t.method == "bonus":
        bonus = rules.bonus_share(t.label(p)) if t.bonus_share is None else t.bonus_share
    first = expensed + bonus * (a.basis - expensed)
    _spread(out, first, p, p)
    rest = a.basis - first
    convention = "straight_line" if t.method == "straight_line" else conventions[year0]
    start = p
    for k, share in enumerate(rules.macrs_shares(convention, t.quarter(p))):
        end = t.year_end(start)
        if sold is not None and year0 + k == sold_year:
            cut = rules.Disposal(convention, t.quarter(sold)).share_of_year
            _spread(out, rest * share * cut, start, sold)
            break
        _spread(out, rest * share, start, end)
        start = end + 1
    return out


def _spread(out: dict[int, float], usd: float, first: int, last: int) -> None:
    """``usd`` spread evenly over months ``first`` to ``last`` (inclusive)."""
    if usd == 0 or last < first:
        return
    each = usd / (last - first + 1)
    for m in range(first, last + 1):
        out[m] = out.get(m, 0.0) + each
