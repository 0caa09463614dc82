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
from dataclasses import dataclass
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
    """A bill by the plan's months (USD): what is invoiced, by charge category, and each
    commitment's unused amount (amortised)."""

    file: str
    billed: np.ndarray
    by_category: dict[str, np.ndarray]
    unused: dict[str, np.ndarray]  # commitment name or id -> USD a month unused
    providers: tuple[str, ...]
    rows: int
    outside: int  # rows charged outside the plan's months
    recorded: int  # months up to the last one charged


def _month(text: str) -> str:
    t = text.strip().replace("Z", "+00:00")
    return datetime.fromisoformat(t).strftime("%Y-%m")


def _number(text: str) -> float:
    x = float(text) if text.strip() else 0.0
    if not math.isfinite(x):
        raise ValueError("not finite")
    return x


# What each parsed column must hold, in the error's words.
_VALID = {
    "ChargePeriodStart": (_month, "an ISO 8601 date-time, e.g. 2027-01-01T00:00:00Z"),
    "BilledCost": (_number, "a finite amount in BillingCurrency, e.g. 12.34"),
    "EffectiveCost": (_number, "a finite amount in BillingCurrency, or empty"),
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
            file, missing[0], f"a FOCUS bill (versions {', '.join(VERSIONS)}) has the columns"
            f" {', '.join(REQUIRED)}; this file lacks {', '.join(missing)}"
        )  # fmt: skip
    at = {m: i for i, m in enumerate(months)}
    n = len(months)
    billed = np.zeros(n)
    by_cat: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(n))
    unused: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(n))
    providers: set[str] = set()
    rows = outside = last = 0
    for line, r in enumerate(reader, start=2):
        rows += 1
        if rows > MAX_ROWS:
            raise ScenarioError(file, "rows", f"more than {MAX_ROWS:,} rows; export one month")
        month = _cell(file, line, r, "ChargePeriodStart")
        cost = _cell(file, line, r, "BilledCost")
        effective = _cell(file, line, r, "EffectiveCost")
        if r["BillingCurrency"].strip() not in ("USD", ""):
            raise ScenarioError(
                file, f"row {line}.BillingCurrency", f"{r['BillingCurrency']!r}: the plan is in"
                " USD; export the bill in USD"
            )  # fmt: skip
        charge = r["ChargeCategory"].strip()
        if charge not in CHARGE_CATEGORIES:
            raise ScenarioError(
                file, f"row {line}.ChargeCategory", f"{charge!r}; give one of"
                f" {', '.join(CHARGE_CATEGORIES)}"
            )  # fmt: skip
        if month not in at:
            outside += 1
            continue
        i = at[month]
        last = max(last, i + 1)
        billed[i] += cost
        by_cat[charge][i] += cost
        if (r.get("CommitmentDiscountStatus") or "").strip() == "Unused":
            name = r.get("CommitmentDiscountName") or r.get("CommitmentDiscountId") or "commitment"
            unused[name][i] += effective
        providers.add(next((r[c] for c in PROVIDER if r.get(c)), "") or "(no provider)")
    return Bill(
        file, billed, dict(by_cat), dict(unused), tuple(sorted(providers)), rows, outside, last
    )
