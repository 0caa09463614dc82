"""A new price snapshot from live AWS answers (``tco prices snapshot``): fetching apart from
reading, as SkyPilot's catalog does; ``pricing.snapshot`` only reads the bundled file."""

from __future__ import annotations

from typing import Any

from tco.pricing.book import PriceBook
from tco.pricing.entry import PriceEntry, snapshot_document
from tco.pricing.errors import PricingError


def build_snapshot(book: PriceBook, regions: list[str], types: list[str]) -> dict[str, Any]:
    """A new snapshot document from live calls (same shape as the bundled one).

    A type that fails is left out, named in ``provenance.missing`` and in ``book.warnings``;
    no value is carried over from elsewhere.
    """
    out: dict[str, dict[str, PriceEntry]] = {}
    missing: list[str] = []
    for region in regions:
        for t in types:
            try:
                e = book.entry(t, region)
            except PricingError as exc:
                missing.append(f"{t} in {region}")
                book.warnings.append(f"left out of the snapshot: {exc}")
                continue
            if e.source not in ("aws-api", "offline-replay"):
                raise PricingError(f"{t} in {region}: got {e.source} prices, not live ones")
            if e.data.currency != "USD":  # a snapshot is USD throughout (its ``currency``)
                missing.append(f"{t} in {region}")
                book.warnings.append(
                    f"left out of the snapshot: {t} in {region} is quoted in {e.data.currency};"
                    " the snapshot holds USD (the cache keeps such answers)"
                )
                continue
            out.setdefault(region, {})[t] = e.data
    today = book.now.date().isoformat()
    provenance = {
        "fetched": f"live AWS APIs on {today} (pricing.get_products,"
        " savingsplans.describe_savings_plans_offering_rates, ec2.describe_instance_types,"
        " ec2.describe_spot_price_history) by `tco prices snapshot`",
        "links": "Interconnects from the AWS EC2 accelerated-computing instance type pages.",
        "missing": ", ".join(missing) or "none",
    }
    return snapshot_document(out, today, provenance)
