"""AWS EC2 Capacity Blocks for ML: GPU instances reserved for a stated window, paid in full up
front, at a price per instance-hour AWS sets by supply and demand. The bundled rates
(``data/capacity_blocks.csv``) are a copy of AWS's pricing page whose prices held until
2025-01-01, before the June 2025 on-demand cuts: each is labelled doubtful where it is used.

Terms (AWS EC2 User Guide, "Capacity Blocks for ML", as copied in the shared AWS data): a block
lasts 1 to 14 days in steps of a day, or 7 to 182 days in steps of 7; up to 64 instances a
block and 256 across blocks; it starts and ends at 11:30 UTC (taken here as its first hour);
the fee is charged when the block is bought, cannot be refunded, and the block can be neither
changed nor cancelled.
"""

from __future__ import annotations

import csv
import functools
from importlib import resources

from tco.pricing.errors import PricingError
from tco.pricing.records import Price

MAX_INSTANCES_PER_BLOCK = 64
MAX_INSTANCES_RESERVED = 256
LONGEST_DAYS = 182
DAILY_UP_TO = 14  # 1 to 14 days in steps of one; longer in steps of 7


def valid_days(days: int) -> bool:
    """Whether AWS sells a block of ``days`` days."""
    return 1 <= days <= DAILY_UP_TO or (days <= LONGEST_DAYS and days % 7 == 0)


@functools.cache
def _rows() -> dict[tuple[str, str], dict[str, str]]:
    path = resources.files("tco.pricing").joinpath("data", "capacity_blocks.csv")
    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    last: dict[str, str] = {}
    out = {}
    for r in rows:
        r = {k: (last[k] if v == "same" else v) for k, v in r.items()}
        last = r
        out[(r["instance_type"], r["region"])] = r
    return out


def where_sold() -> list[str]:
    """'type in region' for every bundled rate."""
    return [f"{t} in {r}" for t, r in sorted(_rows())]


def rate(instance_type: str, region: str) -> Price:
    """The bundled Capacity Block rate of ``instance_type`` in ``region``."""
    row = _rows().get((instance_type, region))
    if row is None:
        raise PricingError(
            f"no bundled Capacity Block rate for {instance_type} in {region}; bundled: "
            + ", ".join(where_sold())
        )
    return Price(
        float(row["usd_per_instance_hour"]),
        "snapshot",
        row["as_of"],
        f"Capacity Block {instance_type} {region}: {row['source']}; {row['notes']}",
        "secondary",
    )
