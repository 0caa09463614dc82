"""Live AWS prices and instance specs through boto3: the only module that talks to AWS.

- On-demand and reserved terms: ``pricing.get_products`` through an endpoint that exists
  (us-east-1, eu-central-1 or ap-south-1), filtered to the Linux, shared-tenancy, on-demand
  box-usage price; every ``PriceList`` entry is a JSON string. Exactly one product must remain
  after selection; capacity-reservation and capacity-block rows are never taken for the price.
- Savings Plans: ``savingsplans.describe_savings_plans_offering_rates`` (no paginator in botocore:
  the ``nextToken`` loop is ours, and stops on a repeated token).
- Specs: ``ec2.describe_instance_types``; spot: ``ec2.describe_spot_price_history``, the latest
  price per availability zone, Local Zones and Wavelength zones excluded, reduced by **minimum**.

Every failure becomes one :class:`LivePriceError` line saying what failed, why and what to do.
The functions take boto3 clients (the seam): tests and ``--offline`` hand in clients whose
requests are answered by moto and by replayed wire-format responses (``pricing.replay``).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    PartialCredentialsError,
    ReadTimeoutError,
)

from tco.pricing import hardware
from tco.pricing.entry import PriceEntry
from tco.pricing.errors import PricingError
from tco.pricing.records import InstanceSpec

PRICING_ENDPOINTS = ("us-east-1", "eu-central-1", "ap-south-1")
HOURS_PER_YEAR = 8760.0

# Bounded retries with backoff (botocore "standard" mode retries throttling and 5xx), timeouts.
MAX_ATTEMPTS = 5
RETRY_CONFIG = Config(
    retries={"mode": "standard", "total_max_attempts": MAX_ATTEMPTS},  # first try included
    connect_timeout=5,  # seconds
    read_timeout=30,  # seconds
)

# The attributes that select the real Linux on-demand box price (PRODUCT.md, "AWS prices").
ON_DEMAND_ATTRIBUTES = {
    "operatingSystem": "Linux",
    "tenancy": "Shared",
    "preInstalledSw": "NA",
    "capacitystatus": "Used",
    "licenseModel": "No License required",
    "marketoption": "OnDemand",
}

SP_DURATION_YEARS = {31_536_000: 1, 94_608_000: 3}
SP_PLAN_TYPES = ("Compute", "EC2Instance")

# GPU and network links per instance type: not in any API; from the AWS EC2 accelerated-computing
# instance pages. Unlisted multi-GPU types fall back to PCIe 4.0 and 25 Gb/s Ethernet.
LINKS: dict[str, tuple[str, str]] = {
    "p3.2xlarge": ("none", "eth_10g"),
    "p3.16xlarge": ("nvlink_v100", "eth_25g"),
    "p3dn.24xlarge": ("nvlink_v100", "eth_100g"),
    "p4d.24xlarge": ("nvswitch_a100", "efa_400"),
    "p4de.24xlarge": ("nvswitch_a100", "efa_400"),
    "p5.48xlarge": ("nvswitch_h100", "efa_3200"),
    "p5e.48xlarge": ("nvswitch_h100", "efa_3200"),
    "p5en.48xlarge": ("nvswitch_h100", "efa_3200"),
    "p6-b200.48xlarge": ("nvswitch_b200", "efa_3200"),
    "g4dn.xlarge": ("none", "eth_25g"),
    "g4dn.12xlarge": ("pcie3", "eth_25g"),
    "g4dn.metal": ("pcie3", "eth_100g"),
    "g5.xlarge": ("none", "eth_10g"),
    "g5.12xlarge": ("pcie4", "eth_25g"),
    "g5.48xlarge": ("pcie4", "eth_100g"),
    "g6.xlarge": ("none", "eth_10g"),
    "g6e.xlarge": ("none", "eth_10g"),
    "g6e.48xlarge": ("pcie4", "efa_400"),
    "trn1.32xlarge": ("none", "efa_400"),
}


def links(instance_type: str, gpu_count: int) -> tuple[str, str]:
    """(link inside an instance, network between instances) of an instance type."""
    return LINKS.get(instance_type, ("pcie4" if gpu_count > 1 else "none", "eth_25g"))


class LivePriceError(PricingError):
    """A live AWS call failed; the message says what, why and what to do."""


T = TypeVar("T")


def pricing_endpoint(region: str) -> str:
    """The Price List endpoint to use for ``region`` (the API exists in three regions only)."""
    if region.startswith(("eu-", "me-", "af-", "il-")):
        return "eu-central-1"
    if region.startswith("ap-"):
        return "ap-south-1"
    return "us-east-1"


def call(what: str, fn: Callable[[], T]) -> T:
    """Run one AWS call; turn every failure into a one-line LivePriceError."""
    try:
        return fn()
    except (NoCredentialsError, PartialCredentialsError):
        raise LivePriceError(
            f"{what}: no AWS credentials found; set AWS_PROFILE or AWS_ACCESS_KEY_ID/"
            "AWS_SECRET_ACCESS_KEY, or use --prices snapshot"
        ) from None
    except ClientError as exc:
        err = exc.response.get("Error", {})
        code = str(err.get("Code", "?"))
        msg = str(err.get("Message", "")).strip().rstrip(".")
        if code in (
            "AccessDenied",
            "AccessDeniedException",
            "UnauthorizedOperation",
            "UnrecognizedClientException",
            "InvalidClientTokenId",
            "AuthFailure",
        ):
            raise LivePriceError(
                f"{what}: access denied ({code}); the credentials need pricing:GetProducts, "
                "savingsplans:DescribeSavingsPlansOfferingRates and ec2:Describe* permissions,"
                " or use --prices snapshot"
            ) from None
        if code in (
            "ThrottlingException",
            "Throttling",
            "RequestLimitExceeded",
            "TooManyRequestsException",
        ):
            raise LivePriceError(
                f"{what}: AWS throttled the request even after retries ({code}); try again later"
                " or use --prices cache"
            ) from None
        raise LivePriceError(f"{what}: AWS error {code}: {msg or 'no message'}") from None
    except (ConnectTimeoutError, ReadTimeoutError, EndpointConnectionError) as exc:
        raise LivePriceError(
            f"{what}: cannot reach AWS ({type(exc).__name__}); check the network or use"
            " --prices snapshot"
        ) from None
    except BotoCoreError as exc:
        raise LivePriceError(f"{what}: {type(exc).__name__}: {exc}") from None


# ------------------------------------------------------------------ Price List API


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


def on_demand_usd(item: dict[str, Any]) -> float:
    """The hourly USD price of an item's OnDemand term (0.0 when it has none)."""
    for term in item.get("terms", {}).get("OnDemand", {}).values():
        for dim in term.get("priceDimensions", {}).values():
            if dim.get("unit") == "Hrs":
                return float(dim["pricePerUnit"]["USD"])
    return 0.0


def _describe(item: dict[str, Any]) -> str:
    a = item["product"].get("attributes", {})
    return (
        f"sku {item['product'].get('sku', '?')} ({a.get('usagetype', '?')},"
        f" capacitystatus={a.get('capacitystatus', '?')},"
        f" marketoption={a.get('marketoption', '?')}, ${on_demand_usd(item):g}/h)"
    )


def select_on_demand(
    items: list[dict[str, Any]], instance_type: str, region: str
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
        return "BoxUsage" in str(a.get("usagetype", "")) and on_demand_usd(item) > 0

    picked = [i for i in items if real(i)]
    where = f"pricing.get_products for {instance_type} in {region}"
    if len(picked) == 1:
        return picked[0]
    if not picked:
        seen = "; ".join(_describe(i) for i in items[:5]) or "no products at all"
        raise LivePriceError(
            f"{where}: no Linux on-demand box-usage product with a positive price (seen: {seen});"
            " check the instance type and region, or give usd_per_hour in the scenario"
        )
    raise LivePriceError(
        f"{where}: {len(picked)} products match, refusing to guess: "
        + "; ".join(_describe(i) for i in picked)
    )


def reserved_terms(item: dict[str, Any]) -> dict[str, float]:
    """Effective $/h of every reserved term: hourly + upfront fee / hours of the term.

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
            usd = float(dim["pricePerUnit"]["USD"])
            if dim.get("unit") == "Hrs":
                hourly += usd
            elif dim.get("unit") == "Quantity":
                upfront += usd
        key = f"{years}yr/{ta.get('OfferingClass')}/{ta.get('PurchaseOption')}"
        out[key] = round(hourly + upfront / (years * HOURS_PER_YEAR), 9)
    return dict(sorted(out.items()))


# ------------------------------------------------------------------ Savings Plans API


def savings_plan_rates(client: Any, instance_type: str, region: str) -> dict[str, float]:
    """Compute and EC2 Instance Savings Plan $/h for the type in the region, every term and
    payment option: keys '<plan>/<N>yr/<payment option>'."""
    out: dict[str, float] = {}
    token: str | None = None
    seen: set[str] = set()
    what = f"savingsplans.describe_savings_plans_offering_rates for {instance_type} in {region}"
    while True:
        kwargs: dict[str, Any] = {
            "savingsPlanTypes": list(SP_PLAN_TYPES),
            "products": ["EC2"],
            "serviceCodes": ["AmazonEC2"],
            "filters": [
                {"name": "instanceType", "values": [instance_type]},
                {"name": "region", "values": [region]},
                {"name": "tenancy", "values": ["shared"]},
                {"name": "productDescription", "values": ["Linux/UNIX"]},
            ],
            "maxResults": 1000,
        }
        if token:
            kwargs["nextToken"] = token
        page: dict[str, Any] = call(
            what,
            lambda: client.describe_savings_plans_offering_rates(**kwargs),  # noqa: B023
        )
        for row in page.get("searchResults", []):
            offer = row.get("savingsPlanOffering", {})
            years = SP_DURATION_YEARS.get(int(offer.get("durationSeconds", 0)))
            if years is None or "BoxUsage" not in str(row.get("usageType", "")):
                continue
            if str(row.get("operation", "RunInstances")) != "RunInstances":
                continue  # RunInstances:xxxx are licensed operating systems, not Linux
            try:
                rate = float(row["rate"])
            except (KeyError, ValueError):
                raise LivePriceError(f"{what}: a rate is missing or not a number") from None
            key = f"{offer.get('planType')}/{years}yr/{offer.get('paymentOption')}"
            if key in out and out[key] != rate:
                raise LivePriceError(
                    f"{what}: two different {key} rates ({out[key]} and {rate}), refusing to guess"
                )
            out[key] = rate
        token = page.get("nextToken") or None
        if token is None:
            break
        if token in seen:
            raise LivePriceError(f"{what}: the service repeated a nextToken; stopping")
        seen.add(token)
    return dict(sorted(out.items()))


# ------------------------------------------------------------------ EC2


def instance_spec(client: Any, instance_type: str) -> InstanceSpec:
    """GPU name, count and memory, vCPUs, memory, links and bare metal of an instance type."""
    what = f"ec2.describe_instance_types for {instance_type}"
    resp = call(what, lambda: client.describe_instance_types(InstanceTypes=[instance_type]))
    types = resp.get("InstanceTypes", [])
    if not types:
        raise LivePriceError(f"{what}: empty answer; check the instance type")
    it = types[0]
    gpu_list = it.get("GpuInfo", {}).get("Gpus", [])
    if gpu_list:
        g = gpu_list[0]
        name, count = str(g.get("Name", "?")), int(g.get("Count", 0))
        mem_gib = round(float(g.get("MemoryInfo", {}).get("SizeInMiB", 0)) / 1024, 2)
    else:  # Trainium/Inferentia report NeuronInfo instead
        name, count, mem_gib = "none", 0, 0.0
    intra, inter = links(instance_type, count)
    return InstanceSpec(
        instance_type=instance_type,
        aws_gpu_name=name,
        gpu_model=hardware.gpu_for_aws(name, mem_gib),
        gpu_count=count,
        gpu_memory_gib=mem_gib,
        vcpus=int(it.get("VCpuInfo", {}).get("DefaultVCpus", 0)),
        memory_gib=round(float(it.get("MemoryInfo", {}).get("SizeInMiB", 0)) / 1024, 2),
        intra_node=intra,
        inter_node=inter,
        bare_metal=bool(it.get("BareMetal", False)),
    )


_REGULAR_AZ = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-\d[a-z]$")


def spot_min(client: Any, instance_type: str, now: dt.datetime) -> float | None:
    """Lowest current spot $/h over the region's regular availability zones (latest price per
    AZ; Local Zones and Wavelength zones excluded); None when there is no spot market."""
    what = f"ec2.describe_spot_price_history for {instance_type}"
    latest: dict[str, tuple[dt.datetime, float]] = {}

    def fetch() -> None:
        pages = client.get_paginator("describe_spot_price_history").paginate(
            InstanceTypes=[instance_type], ProductDescriptions=["Linux/UNIX"], StartTime=now
        )
        for page in pages:
            for row in page.get("SpotPriceHistory", []):
                az = str(row.get("AvailabilityZone", ""))
                if not _REGULAR_AZ.match(az):
                    continue
                stamp = row.get("Timestamp") or now
                price = float(row["SpotPrice"])
                if az not in latest or stamp > latest[az][0]:
                    latest[az] = (stamp, price)

    call(what, fetch)
    return min(p for _, p in latest.values()) if latest else None


# ------------------------------------------------------------------ one instance type


def fetch_entry(session: Any, instance_type: str, region: str, now: dt.datetime) -> PriceEntry:
    """Everything about one instance type in one region."""
    pricing = session.client("pricing", region_name=pricing_endpoint(region), config=RETRY_CONFIG)
    ec2 = session.client("ec2", region_name=region, config=RETRY_CONFIG)
    sp = session.client("savingsplans", region_name="us-east-1", config=RETRY_CONFIG)
    spec = instance_spec(ec2, instance_type)
    items = call(
        f"pricing.get_products for {instance_type} in {region}",
        lambda: list(iter_products(pricing, instance_type, region)),
    )
    item = select_on_demand(items, instance_type, region)
    return PriceEntry(
        instance_type=instance_type,
        on_demand_usd_per_hour=on_demand_usd(item),
        reserved=reserved_terms(item),
        savings_plans=savings_plan_rates(sp, instance_type, region) or None,
        spot_min_usd_per_hour=spot_min(ec2, instance_type, now),
        spec=spec,
        price_list_version=item.get("version"),
        price_list_publication_date=item.get("publicationDate"),
    )
