"""Savings Plan rates (``savingsplans.describe_savings_plans_offering_rates``): no paginator in
botocore, so the ``nextToken`` loop is ours and stops on a repeated token. The server's filters are
not trusted alone: each row's unit, currency, instance type, region, tenancy and operating system
are checked again."""

from __future__ import annotations

from typing import Any

from tco.pricing.aws_calls import AmbiguousPrice, LivePriceError, call

SP_DURATION_YEARS = {31_536_000: 1, 94_608_000: 3}
SP_PLAN_TYPES = ("Compute", "EC2Instance")


def _is_linux_box_usage(
    row: dict[str, Any], instance_type: str, region: str, currency: str
) -> bool:
    """The row is an hourly rate in ``currency`` of this type in this region, shared tenancy,
    Linux."""
    props = {p.get("name"): p.get("value") for p in row.get("properties", [])}
    wanted = {"instanceType": instance_type, "region": region}
    optional = {"tenancy": "shared", "productDescription": "Linux/UNIX"}
    return (
        row.get("unit") == "Hrs"
        and row.get("savingsPlanOffering", {}).get("currency") == currency
        and all(props.get(k) == v for k, v in wanted.items())
        and all(props.get(k, v) == v for k, v in optional.items())
    )


def savings_plan_rates(
    client: Any, instance_type: str, region: str, currency: str = "USD"
) -> dict[str, float]:
    """Compute and EC2 Instance Savings Plan rates per hour (in ``currency``) for the type in the
    region, every term and payment option: keys '<plan>/<N>yr/<payment option>'."""
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
            if not _is_linux_box_usage(row, instance_type, region, currency):
                continue
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
                raise AmbiguousPrice(
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
