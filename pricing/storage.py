"""List prices of what a training workload stores and moves on AWS (us-east-1): S3, FSx for
Lustre, EFS, internet egress by tier, cross-AZ transfer. From ``data/storage_prices.csv``,
derived from ``shared/data/aws/storage_transfer_prices_us-east-1.csv`` (third-party copies of
AWS's pages; the ``confidence`` column says how many agree). 1 TB = 1,024 GB, as AWS bills.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from importlib import resources

GB_PER_TB = 1024.0
REGION = "us-east-1"


@dataclass(frozen=True)
class StoragePrice:
    """One price (USD per GB-month or per GB), for the tier [tier_from_tb, tier_to_tb) of a
    month's volume, with its source."""

    key: str
    item: str
    tier_from_tb: float
    tier_to_tb: float  # inf for the last tier
    usd: float
    unit: str
    source: str
    as_of: str
    confidence: str


@functools.cache
def prices() -> dict[str, tuple[StoragePrice, ...]]:
    """Key -> its tiers, lowest first."""
    text = resources.files("tco.pricing").joinpath("data/storage_prices.csv").read_text()
    out: dict[str, list[StoragePrice]] = {}
    for r in csv.DictReader(text.splitlines()):
        out.setdefault(r["key"], []).append(
            StoragePrice(
                key=r["key"],
                item=r["item"],
                tier_from_tb=float(r["tier_from_tb"]),
                tier_to_tb=float(r["tier_to_tb"]) if r["tier_to_tb"] else float("inf"),
                usd=float(r["usd"]),
                unit=r["unit"],
                source=r["source"],
                as_of=r["as_of"],
                confidence=r["confidence"],
            )
        )
    return {k: tuple(v) for k, v in out.items()}


def tiered_usd(key: str, tb: float) -> float:
    """USD for ``tb`` TB in one month through the tiers of ``key`` (each TB at its tier's price)."""
    total = 0.0
    for p in prices()[key]:
        inside = max(0.0, min(tb, p.tier_to_tb) - p.tier_from_tb)
        total += inside * GB_PER_TB * p.usd
    return total
