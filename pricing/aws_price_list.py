"""The Price List Query API (``pricing.get_products``): the one real Linux on-demand product of
an instance type in a region, and its reserved terms."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from tco.pricing.aws_calls import AmbiguousPrice, LivePriceError

HOURS_PER_YEAR = 8760.0

# The attributes that select the real Linux on-demand box price (PRODUCT.md, "AWS prices").
ON_DEMAND_ATTRIBUTES = {
    "operatingSystem": "Linux",
    "tenancy": "Shared",
    "preInstalledSw": "NA",
    "capacitystatus": "Used",
    "licenseModel": "No License required",
    "marketoption": "OnDemand",
}


def product_filters(instance_type: str, region: str) -> list[dict[str, str]]:
    """TERM_MATCH filters for the one real on-demand Linux price of a type in a region."""
    pairs = {"instanceType": instance_type, "regionCode": region, **ON_DEMAND_ATTRIBUTES}
    return [{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in pairs.items()]


def iter_products(client: Any, instance_type: str, region: str) -> Iterator[dict[str, Any]]:
    """Every PriceList item for the filters, across pages, parsed from its JSON string."""
    paginator = client.get_paginator("get_products")
    pages = paginator.paginate(
        ServiceCode="AmazonEC2", Filters=product_filters(instance_type, region), MaxResults=100
    )
    for page in pages:
        for n, raw in enumerate(page.get("PriceList", [])):
            try:
                item = json.loads(raw) if isinstance(raw, str) else raw
            except json.JSONDecodeError as exc:
                raise LivePriceError(
                    f"pricing.get_products for {instance_type} in {region}: PriceList item {n}"
                    f" is not valid JSON ({exc.msg} at character {exc.pos})"
                ) from None
            if not isinstance(item, dict) or "product" not in item:
                raise LivePriceError(
                    f"pricing.get_products for {instance_type} in {region}: PriceList item {n}"
                    " has no product"
                )
            yield item


def on_demand_usd(item: dict[str, Any], currency: str = "USD") -> float:
    """The hourly price of an item's OnDemand term in ``currency``, the one AWS quotes the
    region's partition in (USD; CNY in AWS China), 0.0 when it has none. A price in any other
    currency is an error: never read as this one."""
    for term in item.get("terms", {}).get("OnDemand", {}).values():
        for dim in term.get("priceDimensions", {}).values():
            if dim.get("unit") == "Hrs":
                return _in(dim, currency, "the on-demand price")
    return 0.0


def _in(dim: dict[str, Any], currency: str, what: str) -> float:
    prices = dim.get("pricePerUnit", {})
    if currency not in prices:
        raise LivePriceError(
            f"{what} is quoted in {', '.join(prices) or 'no currency'}, not {currency} as AWS"
            f" quotes this region; tco never reads one as the other: give usd_per_hour in the"
            " scenario"
        )
    return float(prices[currency])


def _describe(item: dict[str, Any], currency: str) -> str:
    a = item["product"].get("attributes", {})
    return (
        f"sku {item['product'].get('sku', '?')} ({a.get('usagetype', '?')},"
        f" capacitystatus={a.get('capacitystatus', '?')},"
        f" marketoption={a.get('marketoption', '?')},"
        f" {on_demand_usd(item, currency):g} {currency}/h)"
    )


def select_on_demand(
    items: list[dict[str, Any]], instance_type: str, region: str, currency: str = "USD"
) -> dict[str, Any]:
    """The single real product among the items, or an error naming the candidates.

    Real: the attributes match the on-demand filters (checked again here: a filter the service
    ignored must not let a capacity-reservation or capacity-block row through), the usage type is
    box usage, and the on-demand price is positive.
    """

    def real(item: dict[str, Any]) -> bool:
        a = item["product"].get("attributes", {})
        if a.get("instanceType") != instance_type:
            return False
        for k, v in ON_DEMAND_ATTRIBUTES.items():
            if k in a and str(a[k]).lower() != v.lower():
                return False
        if a.get("capacitystatus", "Used").lower() != "used":
            return False
        return "BoxUsage" in str(a.get("usagetype", "")) and on_demand_usd(item, currency) > 0

    picked = [i for i in items if real(i)]
    where = f"pricing.get_products for {instance_type} in {region}"
    if len(picked) == 1:
        return picked[0]
    if not picked:
        seen = "; ".join(_describe(i, currency) for i in items[:5]) or "no products at all"
        raise LivePriceError(
            f"{where}: no Linux on-demand box-usage product with a positive price (seen: {seen});"
            " check the instance type and region, or give usd_per_hour in the scenario"
        )
    raise AmbiguousPrice(
        f"{where}: {len(picked)} products match, refusing to guess: "
        + "; ".join(_describe(i, currency) for i in picked)
    )


def reserved_terms(item: dict[str, Any], currency: str = "USD") -> dict[str, float]:
    """Effective price per hour of every reserved term, in ``currency``: hourly + upfront fee /
    hours of the term.

    Keys are 'Nyr/<standard|convertible>/<No|Partial|All> Upfront'.
    """
    out: dict[str, float] = {}
    for term in item.get("terms", {}).get("Reserved", {}).values():
        ta = term.get("termAttributes", {})
        years = int(str(ta.get("LeaseContractLength", "0yr")).removesuffix("yr") or 0)
        if years not in (1, 3):
            continue
        hourly = upfront = 0.0
        for dim in term.get("priceDimensions", {}).values():
            price = _in(dim, currency, "a reserved price")
            if dim.get("unit") == "Hrs":
                hourly += price
            elif dim.get("unit") == "Quantity":
                upfront += price
        key = f"{years}yr/{ta.get('OfferingClass')}/{ta.get('PurchaseOption')}"
        out[key] = round(hourly + upfront / (years * HOURS_PER_YEAR), 9)
    return dict(sorted(out.items()))


# ------------------------------------------------------------------ Savings Plans API
