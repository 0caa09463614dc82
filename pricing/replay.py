"""Replayed AWS answers in the real wire format, generated from the bundled snapshot.

moto mocks EC2 but not the Price List or Savings Plans APIs (under ``mock_aws`` they answer
"404 Not yet implemented"). For offline runs and tests, botocore ``before-send`` handlers answer
those calls (and spot price history, whose moto values are placeholders) with bodies in the
services' own formats, so the same request, pagination, parsing and selection code runs offline
and live. Each PriceList item is a JSON string, as AWS sends it; decoy rows sit beside the real
one as on AWS (an unused capacity reservation billed as ``UnusedBox``, an allocated reservation at
$0, a $0 capacity block, dedicated and host tenancy, Windows), and the request's filters must
exclude them. The replay rejects what AWS rejects (a service code other than AmazonEC2, a filter
type or a Savings Plan filter name outside the API's enums: botocore checks neither) and honours
each filter type, so an offline run catches a wrong request.

The reserved terms of the snapshot are effective $/h; they are replayed as an hourly fee (No
Upfront), an upfront fee (All Upfront), or half of each (Partial Upfront), which amortise back to
the same effective rates. The snapshot keeps the lowest, mean and highest spot price over AZs;
they are replayed as Linux/UNIX prices in as few AZs as give back all three (the lowest, the
highest, and equal prices in the others), plus a Linux/UNIX (Amazon VPC) and a Windows record at
higher prices and a cheaper Local Zone record, all three of which must be left out; the
request's ProductDescription filter is honoured.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs

from botocore.awsrequest import AWSResponse

from tco.pricing import snapshot
from tco.pricing.aws_price_list import ON_DEMAND_ATTRIBUTES
from tco.pricing.entry import PriceEntry

LOCATIONS = {"us-east-1": "US East (N. Virginia)", "us-west-2": "US West (Oregon)"}
USAGE_PREFIX = {"us-east-1": "", "us-west-2": "USW2-"}
PAGE_SIZE_DEFAULT = 100  # GetProducts MaxResults is 1..100 (botocore pricing service-2.json)


class _Raw(io.BytesIO):
    """The raw body object botocore reads a response from."""

    def stream(self, **_: Any) -> Iterator[bytes]:
        chunk = self.read()
        while chunk:
            yield chunk
            chunk = self.read()


def response(
    url: str, body: bytes, status: int = 200, content_type: str = "application/x-amz-json-1.1"
) -> AWSResponse:
    return AWSResponse(url, status, {"Content-Type": content_type}, _Raw(body))


def _sku(*parts: str) -> str:
    return hashlib.sha1("|".join(parts).encode()).hexdigest()[:16].upper()


def _term(
    sku: str, code: str, hourly: float, upfront: float | None, attrs: dict[str, str], desc: str
) -> dict[str, Any]:
    dims: dict[str, Any] = {
        f"{sku}.{code}.6YS6EN2CT7": {
            "unit": "Hrs",
            "description": desc,
            "beginRange": "0",
            "endRange": "Inf",
            "pricePerUnit": {"USD": f"{hourly:.10f}"},
            "rateCode": f"{sku}.{code}.6YS6EN2CT7",
            "appliesTo": [],
        }
    }
    if upfront is not None:
        dims[f"{sku}.{code}.2TG2D8R56U"] = {
            "unit": "Quantity",
            "description": "Upfront Fee",
            "pricePerUnit": {"USD": f"{upfront:.10f}"},
            "rateCode": f"{sku}.{code}.2TG2D8R56U",
            "appliesTo": [],
        }
    return {
        "priceDimensions": dims,
        "sku": sku,
        "offerTermCode": code,
        "effectiveDate": f"{snapshot.as_of()}T00:00:00Z",
        "termAttributes": attrs,
    }


# The rows AWS lists beside the real one (name -> attributes that differ, USD/h factor).
DECOYS: dict[str, tuple[dict[str, str], float]] = {
    "unused reservation": ({"capacitystatus": "UnusedCapacityReservation"}, 1.0),
    "allocated reservation": ({"capacitystatus": "AllocatedCapacityReservation"}, 0.0),
    "capacity block": ({"marketoption": "CapacityBlock"}, 0.0),
    "dedicated": ({"tenancy": "Dedicated"}, 1.1),
    "host": ({"tenancy": "Host"}, 0.0),
    "windows": ({"operatingSystem": "Windows", "operation": "RunInstances:0002"}, 1.4),
}


def _usage(itype: str, region: str, a: dict[str, str]) -> str:
    """The usage type AWS gives each kind of row."""
    prefix = USAGE_PREFIX.get(region, "")
    if a["marketoption"] == "CapacityBlock":
        return f"{prefix}CapacityBlock:{itype}"
    if a["capacitystatus"] == "UnusedCapacityReservation":
        return f"{prefix}UnusedBox:{itype}"
    if a["capacitystatus"] == "AllocatedCapacityReservation":
        return f"{prefix}Reservation:{itype}"
    kind = {"Dedicated": "DedicatedUsage", "Host": "HostUsage"}.get(a["tenancy"], "BoxUsage")
    return f"{prefix}{kind}:{itype}"


def _item(
    itype: str,
    region: str,
    entry: PriceEntry,
    usd: float,
    differs: dict[str, str] | None = None,
) -> dict[str, Any]:
    spec = entry.spec
    real = not differs
    sku = _sku(itype, region, json.dumps(differs or {}, sort_keys=True))
    attributes = {
        "instanceType": itype,
        "regionCode": region,
        "location": LOCATIONS.get(region, region),
        "locationType": "AWS Region",
        # What the selector picks as the real Linux on-demand box (a product it would pass
        # over unless ``differs`` says so).
        **ON_DEMAND_ATTRIBUTES,
        "operation": "RunInstances",
        "servicecode": "AmazonEC2",
        "vcpu": str(spec.vcpus),
        "memory": f"{spec.memory_gib:g} GiB",
        "gpu": str(spec.gpu_count),
        "gpuMemory": f"{spec.gpu_memory_gib * spec.gpu_count:g} GiB",
        **(differs or {}),
    }
    attributes["usagetype"] = _usage(itype, region, attributes)
    od_code = "JRTCKXETXF"
    terms: dict[str, Any] = {
        "OnDemand": {
            f"{sku}.{od_code}": _term(
                sku, od_code, usd, None, {}, f"${usd:g} per On Demand Linux {itype} Instance Hour"
            )
        }
    }
    if real and entry.reserved:
        reserved = {}
        for key, eff in entry.reserved.items():
            years_s, klass, payment = key.split("/")
            years = int(years_s.removesuffix("yr"))
            hours = years * 8760.0
            if payment == "No Upfront":
                hourly, upfront = eff, None
            elif payment == "All Upfront":
                hourly, upfront = 0.0, eff * hours
            else:
                hourly, upfront = eff / 2, eff / 2 * hours
            code = _sku(key)[:10]
            attrs = {
                "LeaseContractLength": f"{years}yr",
                "OfferingClass": klass,
                "PurchaseOption": payment,
            }
            reserved[f"{sku}.{code}"] = _term(sku, code, hourly, upfront, attrs, "Reserved")
        terms["Reserved"] = reserved
    return {
        "product": {"productFamily": "Compute Instance", "attributes": attributes, "sku": sku},
        "serviceCode": "AmazonEC2",
        "terms": terms,
        "version": snapshot.as_of().replace("-", "") + "000000",
        "publicationDate": f"{snapshot.as_of()}T00:00:00Z",
    }


def price_list(region: str) -> list[dict[str, Any]]:
    """Every PriceList item (parsed) the replay serves for a region."""
    out = []
    for itype in snapshot.instance_types(region):
        entry = snapshot.entry(itype, region)
        assert entry is not None
        usd = entry.on_demand_usd_per_hour
        if usd is None:
            continue  # no on-demand SKU (p5e in us-east-1): AWS has no row either
        out.append(_item(itype, region, entry, usd))
        for differs, factor in DECOYS.values():
            out.append(_item(itype, region, entry, round(usd * factor, 6), differs))
    return out


FILTER_TYPES = ("TERM_MATCH", "EQUALS", "CONTAINS", "ANY_OF", "NONE_OF")  # botocore's enum


def _matches(item: dict[str, Any], filters: list[dict[str, str]]) -> bool:
    """Every filter holds (AWS compares values case-insensitively; ANY_OF and NONE_OF take a
    comma-separated list)."""
    attrs = item["product"]["attributes"]
    for f in filters:
        have, value = str(attrs.get(f["Field"], "")).lower(), str(f["Value"]).lower()
        values = [v.strip() for v in value.split(",")]
        ok = {
            "TERM_MATCH": have == value,
            "EQUALS": have == value,
            "CONTAINS": value in have,
            "ANY_OF": have in values,
            "NONE_OF": have not in values,
        }[f["Type"]]
        if not ok:
            return False
    return True


def _error(url: str, code: str, message: str, status: int = 400) -> AWSResponse:
    body = json.dumps({"__type": code, "message": message, "Message": message}).encode()
    return response(url, body, status)


def get_products(request: Any, **_: Any) -> AWSResponse:
    """before-send handler for pricing.GetProducts."""
    body = json.loads(request.body or b"{}")
    filters = body.get("Filters", [])
    if body.get("ServiceCode") != "AmazonEC2":
        return _error(request.url, "NotFoundException", f"Service {body.get('ServiceCode')!r}")
    bad = [f.get("Type") for f in filters if f.get("Type") not in FILTER_TYPES]
    if bad:
        msg = f"Filter Type {bad[0]!r} is not one of {', '.join(FILTER_TYPES)}"
        return _error(request.url, "ValidationException", msg)
    region = next((f["Value"] for f in filters if f["Field"] == "regionCode"), None)
    regions = [region] if region else snapshot.regions()
    items = [
        i for r in regions if r in snapshot.regions() for i in price_list(r) if _matches(i, filters)
    ]
    start = int(body.get("NextToken") or 0)
    size = int(body.get("MaxResults") or PAGE_SIZE_DEFAULT)
    page = items[start : start + size]
    out: dict[str, Any] = {
        "FormatVersion": "aws_v1",
        "PriceList": [json.dumps(i, sort_keys=True) for i in page],
    }
    if start + size < len(items):
        out["NextToken"] = str(start + size)
    return response(request.url, json.dumps(out).encode())


SP_FILTER_NAMES = ("region", "instanceFamily", "instanceType", "productDescription", "tenancy")
SP_FILTER_NAMES_ALL = (*SP_FILTER_NAMES, "productId")  # botocore's SavingsPlanRateFilterAttribute
# Each plan rate is listed for more than the Linux shared-tenancy usage a request wants:
# (productDescription, tenancy, operation, rate factor).
SP_VARIANTS = (
    ("Linux/UNIX", "shared", "RunInstances", 1.0),
    ("Linux/UNIX", "dedicated", "RunInstances", 1.1),
    ("Windows", "shared", "RunInstances:0002", 1.4),
)


def _sp_rows(region: str, itype: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    entry = snapshot.entry(itype, region)
    rates = (entry.savings_plans if entry is not None else None) or {}
    types, payments = body.get("savingsPlanTypes"), body.get("savingsPlanPaymentOptions")
    rows = []
    for key, rate in rates.items():
        plan, years_s, payment = key.split("/")
        if (types and plan not in types) or (payments and payment not in payments):
            continue
        years = int(years_s.removesuffix("yr"))
        for description, tenancy, operation, factor in SP_VARIANTS:
            props = {
                "region": region,
                "instanceType": itype,
                "instanceFamily": itype.split(".")[0],
                "productDescription": description,
                "tenancy": tenancy,
            }
            rows.append(
                {
                    "savingsPlanOffering": {
                        "offeringId": _sku(key, itype, region).lower(),
                        "paymentOption": payment,
                        "planType": plan,
                        "durationSeconds": years * 31_536_000,
                        "currency": "USD",
                        "planDescription": f"{years} year {payment} {plan}",
                    },
                    "rate": f"{rate * factor:.6g}",
                    "unit": "Hrs",
                    "productType": "EC2",
                    "serviceCode": "AmazonEC2",
                    "usageType": f"{USAGE_PREFIX.get(region, '')}BoxUsage:{itype}",
                    "operation": operation,
                    "properties": [{"name": k, "value": v} for k, v in props.items()],
                }
            )
    return rows


def describe_savings_plans_offering_rates(request: Any, **_: Any) -> AWSResponse:
    """before-send handler for savingsplans.DescribeSavingsPlansOfferingRates."""
    body = json.loads(request.body or b"{}")
    filters = body.get("filters", [])
    bad = [f.get("name") for f in filters if f.get("name") not in SP_FILTER_NAMES_ALL]
    if bad:
        msg = f"filter name {bad[0]!r} is not one of {', '.join(SP_FILTER_NAMES_ALL)}"
        return _error(request.url, "ValidationException", msg)
    wanted = {f["name"]: f["values"] for f in filters}
    rows = [
        row
        for region in wanted.get("region", snapshot.regions())
        for itype in wanted.get("instanceType", snapshot.instance_types(region))
        for row in _sp_rows(region, itype, body)
        if all(
            {p["name"]: p["value"] for p in row["properties"]}.get(name) in values
            for name, values in wanted.items()
            if name in SP_FILTER_NAMES
        )
    ]
    return response(
        request.url, json.dumps({"searchResults": rows}).encode(), content_type="application/json"
    )


# Records a live call must leave out (another product, a Local Zone): (zone, product, x lowest).
OTHER_SPOT_RECORDS = (
    ("a", "Linux/UNIX (Amazon VPC)", 1.25),
    ("a", "Windows", 1.6),
    ("-bos-1a", "Linux/UNIX", 0.5),
)


def linux_zones(low: float, mean: float, high: float) -> list[float]:
    """AZ prices whose lowest, mean and highest are the three given: the lowest, the highest,
    and as few equal middle prices as keep the mean (n zones: x = (n mean - low - high)/(n - 2)
    tends to the mean, which lies between low and high, so some n works)."""
    if high <= low:
        return [low]
    for n in range(3, 27):  # zones a to z
        x = (n * mean - low - high) / (n - 2)
        if low <= x <= high:
            return [low, high] + [x] * (n - 2)
    return [low, high]


def describe_spot_price_history(request: Any, **_: Any) -> AWSResponse | None:
    """before-send handler for ec2.DescribeSpotPriceHistory (EC2 query protocol, XML answer)."""
    form = parse_qs(request.body.decode() if isinstance(request.body, bytes) else request.body)
    types = [v[0] for k, v in form.items() if k.startswith("InstanceType.")]
    wanted = [v[0] for k, v in form.items() if k.startswith("ProductDescription.")]
    region = request.url.split("ec2.")[1].split(".")[0] if "ec2." in request.url else "us-east-1"
    items = []
    for itype in types:
        entry = snapshot.entry(itype, region)
        spot = entry.spot_min_usd_per_hour if entry is not None else None
        if entry is None or spot is None:
            continue
        mean = entry.spot_avg_usd_per_hour or spot
        prices = linux_zones(spot, mean, entry.spot_max_usd_per_hour or spot)
        records = [(chr(ord("a") + i), "Linux/UNIX", p) for i, p in enumerate(prices)]
        records += [(z, d, spot * f) for z, d, f in OTHER_SPOT_RECORDS]
        for zone, description, price in records:
            if wanted and description not in wanted:
                continue
            items.append(
                f"<item><instanceType>{itype}</instanceType>"
                f"<productDescription>{description}</productDescription>"
                f"<spotPrice>{price:.6f}</spotPrice>"
                f"<timestamp>{snapshot.as_of()}T00:00:00.000Z</timestamp>"
                f"<availabilityZone>{region}{zone}</availabilityZone></item>"
            )
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<DescribeSpotPriceHistoryResponse '
        'xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>replay</requestId>'
        f"<spotPriceHistorySet>{''.join(items)}</spotPriceHistorySet><nextToken></nextToken>"
        "</DescribeSpotPriceHistoryResponse>"
    )
    return response(request.url, xml.encode(), content_type="text/xml")


SP_EVENT = "before-send.savingsplans.DescribeSavingsPlansOfferingRates"
HANDLERS = {
    "before-send.pricing.GetProducts": get_products,
    SP_EVENT: describe_savings_plans_offering_rates,
    "before-send.ec2.DescribeSpotPriceHistory": describe_spot_price_history,
}


def install(session: Any) -> None:
    """Register the replay handlers on a boto3 session, ahead of moto's."""
    for event, handler in HANDLERS.items():
        session.events.register_first(event, handler)
