"""Bills in FOCUS, the FinOps Foundation's open format for cost and usage data (AWS, Azure, GCP
and OCI export it), read month by month; and the columns a plan is written in.

Read (versions 1.0, 1.1 and 1.2, whose names for these columns agree; ``ProviderName`` of 1.0-1.1
or ``ServiceProviderName`` of 1.2): ``BilledCost`` (what is invoiced, the cash compared with the
plan), ``EffectiveCost`` (amortised: what an unused commitment wastes), ``ChargePeriodStart``
(the month), ``ChargeCategory`` (Usage, Purchase, Tax, Credit, Adjustment), ``BillingCurrency``
(USD only: a plan is in USD), and where present ``CommitmentDiscountId``,
``CommitmentDiscountName`` and ``CommitmentDiscountStatus`` (Used, Unused; 1.1+). Column names
from the FOCUS specification as providers document it (e.g. AWS's "FOCUS 1.0 with AWS columns"
table dictionary, Microsoft's FocusCost 1.0 and 1.2 schemas).
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.input_files import InputFileError, read_input

VERSIONS = ("1.0", "1.1", "1.2")
REQUIRED = ("BilledCost", "ChargePeriodStart", "ChargeCategory", "BillingCurrency")
CHARGE_CATEGORIES = ("Usage", "Purchase", "Tax", "Credit", "Adjustment")
PROVIDER = ("ServiceProviderName", "ProviderName")  # 1.2, then 1.0-1.1
# A month of a large account's FOCUS export runs to millions of rows; the bill is summed as it
# is read, but its text is held whole (read_input's size limit bounds it first).
MAX_ROWS = 5_000_000
# The columns of a FOCUS 1.2 cost-and-usage file, in order, as focus-data-toolkit 0.14.1 writes
# them for AWS, Azure and GCP (tests/fixtures/focus): what tco's plan is written in.
COLUMNS = (
    "ProviderName",
    "PublisherName",
    "InvoiceIssuerName",
    "InvoiceId",
    "BillingAccountId",
    "BillingAccountName",
    "BillingAccountType",
    "SubAccountId",
    "SubAccountName",
    "SubAccountType",
    "BillingPeriodStart",
    "BillingPeriodEnd",
    "ChargePeriodStart",
    "ChargePeriodEnd",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    "BilledCost",
    "EffectiveCost",
    "ListCost",
    "ContractedCost",
    "ListUnitPrice",
    "ContractedUnitPrice",
    "PricingCategory",
    "PricingQuantity",
    "PricingUnit",
    "PricingCurrency",
    "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost",
    "PricingCurrencyListUnitPrice",
    "BillingCurrency",
    "ConsumedQuantity",
    "ConsumedUnit",
    "ServiceName",
    "ServiceCategory",
    "ServiceSubcategory",
    "SkuId",
    "SkuMeter",
    "SkuPriceId",
    "SkuPriceDetails",
    "ResourceId",
    "ResourceName",
    "ResourceType",
    "RegionId",
    "RegionName",
    "AvailabilityZone",
    "CommitmentDiscountId",
    "CommitmentDiscountName",
    "CommitmentDiscountCategory",
    "CommitmentDiscountType",
    "CommitmentDiscountStatus",
    "CommitmentDiscountQuantity",
    "CommitmentDiscountUnit",
    "CapacityReservationId",
    "CapacityReservationStatus",
    "Tags",
)


@dataclass(frozen=True)
class Bill:
    """A bill by the plan's months (USD): what is invoiced, by charge category and by the part
    of a budget each charge belongs to (``cover``), and each commitment's unused amount
    (amortised); the whole months it covers (to its last ``ChargePeriodEnd``, or every month
    charged where the column is absent) and the months charged, in and out of the plan's."""

    file: str
    billed: np.ndarray
    by_category: dict[str, np.ndarray]
    unused: dict[str, np.ndarray]  # commitment name or id -> USD a month unused
    providers: tuple[str, ...]
    rows: int
    outside: int  # rows charged outside the plan's months
    recorded: int  # months up to the last one charged
    by_cover: dict[str, np.ndarray] = field(default_factory=dict)  # ``cover`` -> USD a month
    whole: int = 0  # whole months of the plan it covers, from the first
    charged: tuple[str, str] = ("", "")  # the first and last month charged (YYYY-MM)


# What a provider's bill is billed by when tco wrote it (``reports.focus_export``): what servers
# bought cost, on premises.
ON_PREMISES = "Owned (on premises)"


def cover(on_premises: bool, service_category: str) -> str:
    """The part of a budget a charge belongs to, so a bill replaces what the plan had for it and
    nothing else: where it is paid (on premises, or to a cloud) and its FOCUS ServiceCategory
    (Compute, Storage, Networking, ...; Compute where a bill leaves it out)."""
    return f"{'premises' if on_premises else 'cloud'} {service_category.strip() or 'Compute'}"


# A bill row's amount, bounded: a month of a large account is billions at most; a row beyond this
# is a typo or a unit error (and rows summing past a float's range would pass a gate as inf).
MAX_ROW_USD = 1e12


def _month(text: str) -> str:
    t = text.strip().replace("Z", "+00:00")
    return datetime.fromisoformat(t).strftime("%Y-%m")


def _number(text: str) -> float:
    x = float(text) if text.strip() else 0.0
    if not math.isfinite(x) or abs(x) > MAX_ROW_USD:
        raise ValueError("not finite, or beyond a trillion")
    return x


def _end_month(text: str) -> str:
    """The month a charge period ends in: the months before it are covered whole (a period
    ending on a month's first instant ends the month before it; one ending inside a month
    leaves that month to date)."""
    return _month(text)


# What each parsed column must hold, in the error's words.
_VALID = {
    "ChargePeriodStart": (_month, "an ISO 8601 date-time, e.g. 2027-01-01T00:00:00Z"),
    "ChargePeriodEnd": (_end_month, "an ISO 8601 date-time, e.g. 2027-02-01T00:00:00Z"),
    "BilledCost": (_number, "a finite amount in BillingCurrency under 1e12, e.g. 12.34"),
    "EffectiveCost": (_number, "a finite amount in BillingCurrency under 1e12, or empty"),
}


def _cell(file: str, line: int, r: dict[str, str], column: str) -> Any:
    """Row ``line``'s ``column``, parsed; a one-line error naming the row, column and what
    would be valid."""
    parse, valid = _VALID[column]
    text = r.get(column) or ""
    try:
        return parse(text)
    except ValueError:
        raise ScenarioError(file, f"row {line}.{column}", f"{text!r} is not {valid}") from None


def read(path: str | Path, months: tuple[str, ...]) -> Bill:
    """The bill at ``path`` (CSV, FOCUS columns) over ``months`` (YYYY-MM); a missing column,
    another currency or an unreadable row is a one-line error naming the file, row and column."""
    file = str(path)
    try:
        text = read_input(Path(path), "a FOCUS bill (CSV)").decode("utf-8-sig")
    except InputFileError as exc:
        raise ScenarioError(file, "--bill", str(exc)) from None
    except UnicodeDecodeError:
        raise ScenarioError(file, "--bill", "not UTF-8 text; give a FOCUS CSV export") from None
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ScenarioError(
            file,
            missing[0],
            f"a FOCUS bill (versions {', '.join(VERSIONS)}) has the columns"
            f" {', '.join(REQUIRED)}; this file lacks {', '.join(missing)}",
        )
    tally = _Tally(file, months)
    for line, r in _rows(file, reader):
        tally.add(line, r)
    return tally.bill()


class _Tally:
    """A bill's rows summed by month as they are read: what :class:`Bill` holds."""

    def __init__(self, file: str, months: tuple[str, ...]) -> None:
        self.file, self.months = file, months
        self.at = {m: i for i, m in enumerate(months)}
        n = len(months)
        self.billed = np.zeros(n)
        self.by_cat: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(n))
        self.by_cover: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(n))
        self.unused: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(n))
        self.providers: set[str] = set()
        self.rows = self.outside = self.last = 0
        self.ends: list[str] = []
        self.seen: list[str] = []

    def add(self, line: int, r: dict[str, str]) -> None:
        """Row ``line``, checked (one-line errors naming it) and counted in its month."""
        file = self.file
        self.rows += 1
        if self.rows > MAX_ROWS:
            raise ScenarioError(file, "rows", f"more than {MAX_ROWS:,} rows; export one month")
        month = _cell(file, line, r, "ChargePeriodStart")
        cost = _cell(file, line, r, "BilledCost")
        effective = _cell(file, line, r, "EffectiveCost")
        if r.get("ChargePeriodEnd"):
            self.ends.append(_cell(file, line, r, "ChargePeriodEnd"))
        if (r.get("BillingCurrency") or "").strip() not in ("USD", ""):
            raise ScenarioError(
                file,
                f"row {line}.BillingCurrency",
                f"{r['BillingCurrency']!r}: the plan is in USD; export the bill in USD",
            )
        charge = (r.get("ChargeCategory") or "").strip()
        if charge not in CHARGE_CATEGORIES:
            raise ScenarioError(
                file,
                f"row {line}.ChargeCategory",
                f"{charge!r}; give one of {', '.join(CHARGE_CATEGORIES)}",
            )
        self.seen.append(month)
        if month not in self.at:
            self.outside += 1
            return
        i = self.at[month]
        self.last = max(self.last, i + 1)
        self.billed[i] += cost
        self.by_cat[charge][i] += cost
        provider = next((r[c] for c in PROVIDER if r.get(c)), "") or "(no provider)"
        self.by_cover[cover(provider == ON_PREMISES, r.get("ServiceCategory") or "")][i] += cost
        if (r.get("CommitmentDiscountStatus") or "").strip() == "Unused":
            name = r.get("CommitmentDiscountName") or r.get("CommitmentDiscountId") or "commitment"
            self.unused[name][i] += effective
        self.providers.add(provider)

    def bill(self) -> Bill:
        """The rows read as a bill; refused when every charge falls outside the plan's months
        (it would show them billed $0)."""
        months, seen = self.months, self.seen
        if self.rows and not self.last:
            raise ScenarioError(
                self.file,
                "ChargePeriodStart",
                f"every charge falls outside the plan's months"
                f" (the bill {min(seen)} to {max(seen)}, the plan {months[0]} to {months[-1]});"
                " give the bill of the months since the plan started",
            )
        return Bill(
            self.file,
            self.billed,
            dict(self.by_cat),
            dict(self.unused),
            tuple(sorted(self.providers)),
            self.rows,
            self.outside,
            self.last,
            dict(self.by_cover),
            _whole_months(self.ends, self.at, self.last),
            (min(seen), max(seen)) if seen else ("", ""),
        )


def _rows(file: str, reader: csv.DictReader[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """Each row with its line number; a row with more or fewer cells than the header has
    columns, or a cell past the csv module's limit, is a one-line error naming the row (a
    shifted row would put amounts in the wrong columns)."""
    width = len(reader.fieldnames or [])
    line = 1
    try:
        for line, r in enumerate(reader, start=2):
            if None in r:
                raise ScenarioError(
                    file,
                    f"row {line}",
                    f"more cells than the header's {width} columns; give the export as written",
                )
            if None in r.values():
                have = sum(v is not None for v in r.values())
                raise ScenarioError(
                    file,
                    f"row {line}",
                    f"{have} cells where the header has"
                    f" {width} columns; give the export as written",
                )
            yield line, r
    except csv.Error as exc:
        raise ScenarioError(
            file,
            f"row {line + 1}",
            f"not CSV the csv module reads ({exc}); give a FOCUS CSV export",
        ) from None


def _whole_months(ends: list[str], at: dict[str, int], last: int) -> int:
    """The plan's whole months a bill covers, from the first: those before the month its last
    charge period ends in (``_end_month``); where no row says when its period ends, every
    month up to the last charged."""
    if not ends:
        return last
    month = max(ends)
    if month in at:
        return at[month]
    return len(at) if month > max(at) else 0
