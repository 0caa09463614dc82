"""Live AWS prices and instance specs through boto3: everything known of one instance type in one
region, from four APIs (one module each):

- ``aws_price_list``: on-demand and reserved terms from ``pricing.get_products``, filtered to the
  Linux, shared-tenancy, on-demand box-usage price; exactly one product must remain;
- ``aws_savings_plans``: Savings Plan rates, each row checked again;
- ``aws_ec2``: specs (GPUs or Neuron accelerators) and the lowest spot price;
- ``aws_calls``: the call seam (retries, one-line errors) and the endpoints of each partition.

The specs are required. Any other part that fails is left unknown with a warning saying why (an
instance type with no on-demand price keeps its specs and spot price; credentials without Savings
Plans permissions still give on-demand prices); two candidates for one price stay an error. The
functions take a boto3 session (the seam): tests and ``--offline`` hand in one whose requests are
answered by moto and by replayed wire-format responses (``pricing.replay``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, TypeVar

from tco.pricing.aws_calls import (
    MAX_ATTEMPTS,
    RETRY_CONFIG,
    AmbiguousPrice,
    LivePriceError,
    call,
    partition,
    pricing_endpoint,
    quote_currency,
    savings_plans_region,
)
from tco.pricing.aws_ec2 import LINKS, instance_spec, links, spot_zones
from tco.pricing.aws_price_list import (
    ON_DEMAND_ATTRIBUTES,
    iter_products,
    on_demand_usd,
    product_filters,
    reserved_terms,
    select_on_demand,
)
from tco.pricing.aws_savings_plans import SP_DURATION_YEARS, SP_PLAN_TYPES, savings_plan_rates
from tco.pricing.entry import PriceEntry

__all__ = [
    "LINKS",
    "MAX_ATTEMPTS",
    "ON_DEMAND_ATTRIBUTES",
    "RETRY_CONFIG",
    "SP_DURATION_YEARS",
    "SP_PLAN_TYPES",
    "AmbiguousPrice",
    "LivePriceError",
    "call",
    "fetch_entry",
    "instance_spec",
    "iter_products",
    "links",
    "on_demand_usd",
    "partition",
    "pricing_endpoint",
    "product_filters",
    "quote_currency",
    "reserved_terms",
    "savings_plan_rates",
    "select_on_demand",
    "spot_zones",
]
T = TypeVar("T")
UNEXPECTED = (KeyError, ValueError, TypeError, IndexError, AttributeError)


def _client(session: Any, service: str, region: str) -> Any:
    return call(
        f"creating a {service} client in {region}",
        lambda: session.client(service, region_name=region, config=RETRY_CONFIG),
    )


def _guarded(what: str, fn: Callable[[], T]) -> T:
    """Run a fetch-and-parse step; an answer of an unexpected shape is a LivePriceError."""
    try:
        return fn()
    except UNEXPECTED as exc:
        raise LivePriceError(f"{what}: unexpected answer ({type(exc).__name__}: {exc})") from None


def fetch_entry(
    session: Any, instance_type: str, region: str, now: dt.datetime
) -> tuple[PriceEntry, list[str]]:
    """Everything about one instance type in one region, and a warning for each part that could
    not be fetched (left unknown). Prices stay in the currency AWS quotes the region in (CNY in
    AWS China); the price book converts them."""
    where = f"{instance_type} in {region}"
    currency = quote_currency(region)
    ec2 = _client(session, "ec2", region)
    what = f"ec2.describe_instance_types for {instance_type}"
    spec = _guarded(what, lambda: instance_spec(ec2, instance_type))
    warnings: list[str] = []

    def part(what: str, fn: Callable[[], T], unknown: T) -> T:
        try:
            return _guarded(what, fn)
        except AmbiguousPrice:
            raise
        except LivePriceError as exc:
            warnings.append(f"{exc} ({what} of {where} left unknown)")
            return unknown

    OnDemand = tuple[float | None, dict[str, float], Any, Any]

    def on_demand() -> OnDemand:
        """(USD/h, reserved terms, Price List version, publication date)."""
        pricing = _client(session, "pricing", pricing_endpoint(region))
        items = call(
            f"pricing.get_products for {where}",
            lambda: list(iter_products(pricing, instance_type, region)),
        )
        item = select_on_demand(items, instance_type, region, currency)
        return (
            on_demand_usd(item, currency),
            reserved_terms(item, currency),
            item.get("version"),
            item.get("publicationDate"),
        )

    def sp_rates() -> dict[str, float] | None:
        sp_region = savings_plans_region(region)
        if sp_region is None:
            raise LivePriceError(
                f"Savings Plans are not offered in the {partition(region)} partition"
            )
        sp = _client(session, "savingsplans", sp_region)
        return savings_plan_rates(sp, instance_type, region, currency) or None

    unknown: OnDemand = (None, {}, None, None)
    usd, reserved, version, published = part("the on-demand price", on_demand, unknown)
    plans = part("the Savings Plan rates", sp_rates, None)
    zones = part("the spot price", lambda: spot_zones(ec2, instance_type, now), None)
    return (
        PriceEntry(
            instance_type=instance_type,
            on_demand_usd_per_hour=usd,
            reserved=reserved,
            savings_plans=plans,
            spot_min_usd_per_hour=None if zones is None else zones[0],
            spot_avg_usd_per_hour=None if zones is None else zones[1],
            spot_max_usd_per_hour=None if zones is None else zones[2],
            spec=spec,
            price_list_version=version,
            price_list_publication_date=published,
            # The spot API names no currency: AWS China's spot prices are taken as CNY, the
            # currency of all its prices (an assumption; the price's detail says so).
            currency=currency,
        ),
        warnings,
    )
