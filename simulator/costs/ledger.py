"""Ledgers: what an option costs month by month, by category, in two views; and the categories.

- **cash**: when money leaves the bank (capex in the month servers arrive, resale at the horizon
  as a negative cost, Savings Plan prepayments when a term starts).
- **accounting**: the expense recognised (depreciation, commitments expensed hour by hour).

Every category is declared once, here or in the kind that writes it, with its label, the
sensitivity group whose price scales it and its chart colour; reports and the sensitivity
analysis read these declarations, never a list of names of their own. Monthly ratio series
(e.g. a commitment's utilisation) are declared the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from tco.simulator.costs.carbon import Draw, Footprint

T = TypeVar("T")

# Price groups varied by the sensitivity analysis, in the order it reports them.
SENSITIVITY_GROUPS = ("cloud prices", "server prices", "electricity", "facility", "staff")


@dataclass(frozen=True)
class Category:
    """A ledger category: USD per month. ``group``: the price group that scales it (None: not
    a price, e.g. nothing yet); ``colour``: its colour in charts; ``credit``: value coming back
    (negative amounts, e.g. resale), every other category is a cost (never negative);
    ``subgroup``: a narrower price inside the group that the odds may move alone (spot prices
    within cloud prices)."""

    name: str
    label: str
    group: str | None
    colour: str
    unit: str = "USD/month"
    credit: bool = False
    subgroup: str | None = None
    # As a FOCUS bill holds it (the plan written as FOCUS, ``reports.focus_export``): its
    # ChargeCategory ("": Credit for a credit, else Usage), and for a commitment the part it is:
    # "purchase" (what is paid for it), "used" or "unused" (the accounting view of it).
    charge: str = ""
    commitment: str = ""
    # FOCUS ServiceCategory/ServiceSubcategory ("": by price group, ``focus_service``).
    service: str = ""
    # A share of the option's other categories (finishing its unfinished work at its own cost
    # per GPU-hour, ``kinds.costing``): prices that move them move it alike (``scaled``).
    share_of_rest: bool = False
    # Work unfinished at the horizon may be finished at its prices: declared with it is its
    # twin, ``to_finish()``, priced alike (``kinds.costing``).
    finishes: bool = False
    # A market rental price (on demand, spot, at any provider): ``escalation.rentals`` moves
    # it month by month, as rental markets move; a commitment's rate stays fixed for its term.
    rental: bool = False
    # The book's own figure for servers (depreciation, a gain or loss on disposal): the tax law
    # deducts the servers by its own rules instead (``costs.tax``, from the ledger's assets).
    book_only: bool = False
    # Income tax saved (negative) or owed on another category's amounts (``costs.tax``).
    tax: bool = False

    def to_finish(self) -> Category:
        """The category of finishing the work unfinished at the horizon at this one's prices."""
        return Category(
            f"{self.name}_to_finish",
            f"{self.label} to finish the work unfinished at the horizon",
            self.group,
            self.colour,
            subgroup=self.subgroup,
            rental=self.rental,
        )

    def taxed(self) -> Category:
        """The category of the income tax this one's amounts save or cost (``costs.tax``):
        declared like it (a price draw scales the tax as it scales its source), never billed."""
        return Category(
            f"tax_{self.name}",
            f"income tax on {self.label}",
            self.group,
            "#b8b8b8",
            credit=True,
            subgroup=self.subgroup,
            share_of_rest=self.share_of_rest,
            rental=self.rental,
            tax=True,
        )

    def focus_charge(self) -> str:
        return self.charge or ("Credit" if self.credit else "Usage")

    def focus_service(self) -> tuple[str, str]:
        """FOCUS 1.1+ ServiceCategory and ServiceSubcategory: cloud compute is virtual machines,
        servers bought other compute, electricity, facility and staff other."""
        if self.service:
            category, _, sub = self.service.partition("/")
            return category, sub
        if self.group == "cloud prices":
            return "Compute", "Virtual Machines"
        if self.group == "server prices":
            return "Compute", "Other (Compute)"
        return "Other", "Other (Other)"

    @property
    def billed(self) -> bool:
        """Whether a cloud provider's bill holds it: a category priced by cloud prices (compute,
        spot, commitments). Storage and data transfer are on a bill only where the data lives
        in a cloud, which the category alone does not say: they are not counted as billed; nor
        is income tax."""
        return self.group == "cloud prices" and not self.tax


@dataclass(frozen=True)
class Series:
    """A monthly ratio an option may report (fraction, NaN when undefined). ``chart_label``:
    shown on the utilisation chart under this label (None: tables only)."""

    name: str
    label: str
    chart_label: str | None = None


_CATEGORIES: dict[str, Category] = {}
_SERIES: dict[str, Series] = {}


def declare(*items: Category | Series) -> None:
    """Declare categories or series (idempotent for identical declarations)."""
    for item in items:
        table: dict[str, Category] | dict[str, Series] = (
            _CATEGORIES if isinstance(item, Category) else _SERIES
        )
        old = table.get(item.name)
        if old is not None and old != item:
            raise ValueError(f"{item.name!r} is already declared differently: {old}")
        table[item.name] = item  # type: ignore[assignment]
        if isinstance(item, Category) and item.finishes:
            declare(item.to_finish())
        if isinstance(item, Category) and not item.tax:  # read back by name (tco track)
            declare(item.taxed())


def category(name: str) -> Category:
    """The declaration of a category (an undeclared one gets a neutral grey, no group)."""
    return _CATEGORIES.get(name) or Category(name, name.replace("_", " "), None, "#999999")


def series() -> tuple[Series, ...]:
    """Every declared ratio series, in declaration order."""
    return tuple(_SERIES.values())


def groups() -> dict[str, tuple[str, ...]]:
    """Sensitivity group -> the categories it scales, in ``SENSITIVITY_GROUPS`` order (groups
    declared only by a plug-in kind follow)."""
    out: dict[str, list[str]] = {g: [] for g in SENSITIVITY_GROUPS}
    for c in _CATEGORIES.values():
        if c.group is not None:
            out.setdefault(c.group, []).append(c.name)
    return {g: tuple(v) for g, v in out.items()}


def subgroups() -> dict[str, tuple[str, ...]]:
    """Price subgroup -> the categories it scales, in declaration order."""
    out: dict[str, list[str]] = {}
    for c in _CATEGORIES.values():
        if c.subgroup is not None:
            out.setdefault(c.subgroup, []).append(c.name)
    return {g: tuple(v) for g, v in out.items()}


def before_tax(cash: Mapping[str, T]) -> dict[str, T]:
    """A ledger view (or a report's by category) without its income tax categories: what the
    cluster ran and the clouds billed, as bills and logs hold it."""
    return {name: v for name, v in cash.items() if not category(name).tax}


def scaled(
    cash: Mapping[str, np.ndarray],
    factors: Mapping[str, float],
    rentals: np.ndarray | None = None,
) -> np.ndarray:
    """Monthly cash with each price group's and subgroup's categories times its factor
    (``factors``: group or subgroup -> multiplier; a category in both takes the product; one
    not named, and a category of none, as priced), market rental prices (``rental``) also
    times ``rentals`` month by month (a future's price path); a share of the rest
    (``share_of_rest``) by the factor of the rest's total before tax (the tax on a share moves
    with the share). Costs and the tax on them are linear in prices, so this is the cost at
    other prices without simulating again."""
    out = np.zeros(len(next(iter(cash.values()))) if cash else 0)
    shares = []
    rest, moved = 0.0, np.zeros(len(out))
    for cat, values in cash.items():
        c = category(cat)
        if c.share_of_rest:
            shares.append(values)
            continue
        part = values * (factors.get(c.group or "", 1.0) * factors.get(c.subgroup or "", 1.0))
        if rentals is not None and c.rental:
            part = part * rentals
        out = out + part
        if not c.tax:
            rest += float(values.sum())
            moved = moved + part
    if shares:
        k = float(moved.sum()) / rest if rest > 0 else 1.0
        out = out + k * np.sum(shares, axis=0)
    return out


def declarations() -> tuple[dict[str, Category], dict[str, Series]]:
    """A copy of every declaration (to restore after a plug-in kind is removed)."""
    return dict(_CATEGORIES), dict(_SERIES)


def restore(saved: tuple[dict[str, Category], dict[str, Series]]) -> None:
    _CATEGORIES.clear()
    _CATEGORIES.update(saved[0])
    _SERIES.clear()
    _SERIES.update(saved[1])


# Compute billed by a cloud, whichever kind rents it (on-demand, spot, plans, bare metal), and
# the instance-hours that finish the work unfinished at the horizon at its prices.
declare(
    Category(
        "cloud_compute",
        "cloud compute",
        "cloud prices",
        "#55a868",
        subgroup="on_demand prices",
        finishes=True,
        rental=True,
    )
)


@dataclass(frozen=True)
class Asset:
    """Servers placed in service as the tax law sees them: in month ``placed_month`` (negative:
    before the horizon, for servers the site owns), at ``basis`` USD (what was capitalised),
    sold in month ``sold_month`` for ``proceeds`` USD as the seller receives them (None: not
    sold within the horizon). Book and tax depreciate them differently (``costs.tax``): the
    tax on their cost is counted under ``bought``'s category, on their sale under ``sold``'s."""

    placed_month: int
    basis: float
    sold_month: int | None
    proceeds: float
    # The categories of their cost and of their sale, which the tax on them is counted under.
    bought: str
    sold: str


@dataclass(frozen=True, kw_only=True)
class Ledger:
    """Monthly costs by category (USD), monthly usage (GPU-hours), ratio series and notes."""

    cash: dict[str, np.ndarray]
    accounting: dict[str, np.ndarray]
    gpu_hours_paid: np.ndarray  # GPU-hours available (owned) or billed (cloud)
    gpu_hours_busy: np.ndarray  # GPU-hours jobs actually used
    series: dict[str, np.ndarray] = field(default_factory=dict)  # declared Series name -> ratio
    notes: dict[str, float] = field(default_factory=dict)  # e.g. commitment beyond the horizon
    # What is contracted for after the horizon, by the category it is counted in when the
    # project ends there (costing.costs): a Savings Plan's remaining term, a lease's payments.
    owed_after_horizon: dict[str, float] = field(default_factory=dict)
    # The servers it placed in service and sold, for the tax law (``costs.tax``).
    assets: tuple[Asset, ...] = ()
    # Income tax by the category it arises on (``costs.tax.taxes``), when the scenario has a
    # tax: section; also in ``cash`` when the decision is on cash after tax.
    tax: dict[str, np.ndarray] = field(default_factory=dict)
    # The power its servers draw and the servers it holds, by place (``costs.carbon``; each
    # kind writes its own), and their carbon as the answer counts it (``kinds.costing``).
    draws: tuple[Draw, ...] = ()
    footprint: Footprint | None = None

    @property
    def gpu_utilisation(self) -> np.ndarray:
        return ratio(self.gpu_hours_busy, self.gpu_hours_paid)

    def cash_total(self) -> np.ndarray:
        return np.asarray(np.sum(list(self.cash.values()), axis=0))

    def accounting_total(self) -> np.ndarray:
        return np.asarray(np.sum(list(self.accounting.values()), axis=0))


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den element-wise, NaN where den is 0."""
    out = np.full(len(num), np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out
