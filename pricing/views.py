"""What the ``tco prices`` and ``tco catalog`` commands show, as plain rows (no I/O here)."""

from __future__ import annotations

from typing import Any

from tco.pricing import hardware, providers, snapshot
from tco.pricing.book import PriceBook
from tco.pricing.errors import PricingError


def offer_rows(book: PriceBook, name: str, region: str) -> list[tuple[str, str, str]]:
    """What another provider's snapshot says of ``provider:instance_type``."""
    provider, itype = providers.split(name)
    p = providers.get(provider)
    o = p.offer(itype, region)
    when = f"as of {o.as_of}" if o.date_known else f"copied {o.as_of}, its own date unknown"
    where = f"bundled snapshot of {p.label}'s prices, {o.source}, {when}"
    s = o.spec
    spot = "none quoted" if o.spot_usd_per_hour is None else f"${o.spot_usd_per_hour:,}/h"
    rows = [
        ("instance", f"{name} in {o.region}", where),
        ("GPUs", f"{s.gpu_count} x {s.gpu_model} ({s.gpu_memory_gib:g} GB each)", where),
        ("vCPUs / memory", f"{s.vcpus} / {s.memory_gib:g} GiB", where),
        (
            "links",
            f"inside: {s.intra_node}; between instances: {s.inter_node}",
            "ASSUMPTION: not in the source data (pricing/providers/snapshot.py)",
        ),
        ("on-demand", f"${o.on_demand_usd_per_hour:,}/h", where),
        ("spot price", spot, where),
        (
            "confidence",
            o.confidence + (f": {o.doubtful_because}" if o.doubtful_because else ""),
            o.notes,
        ),
        ("billing", p.billing_note, "pricing/providers"),
        ("commitments", "none sourced per instance type", "shared clouds commitment_prices.csv"),
    ]
    return rows


def price_rows(book: PriceBook, instance_type: str, region: str) -> list[tuple[str, str, str]]:
    """(what, value, source and date) for everything the book knows of an instance type."""
    if ":" in instance_type:
        return offer_rows(book, instance_type, region)
    e = book.entry(instance_type, region)
    spec = book.spec(instance_type, region)
    where = f"{e.source}, as of {e.as_of} ({e.origin})"
    rows = [
        ("instance", f"{instance_type} in {region}", where),
        (
            "GPUs",
            f"{spec.gpu_count} x {spec.aws_gpu_name} ({spec.gpu_memory_gib:g} GiB each)"
            f" = catalog GPU {spec.gpu_model or 'none (no speed data)'}",
            where,
        ),
        ("vCPUs / memory", f"{spec.vcpus} / {spec.memory_gib:g} GiB", where),
        (
            "links",
            f"inside: {spec.intra_node}; between instances: {spec.inter_node}"
            + ("; bare metal" if spec.bare_metal else ""),
            "AWS instance type pages",
        ),
    ]

    unknown: dict[str, list[str]] = {}  # why -> the rates the book has no figure for

    def add(label: str, fn: Any, *args: Any) -> None:
        try:
            p = fn(instance_type, region, *args)
            rows.append((label, f"${p.usd_per_hour:,}/h", where))
        except PricingError as exc:
            if label.startswith("Savings Plan"):  # twelve rows of "unknown": one line
                why = str(exc).split(";")[0]
                unknown.setdefault(why.split(" is ", 1)[-1], []).append(label)
            else:
                rows.append((label, "unknown", str(exc).split(";")[0]))

    add("on-demand (Linux)", book.on_demand)
    add("spot (mean over AZs, Local Zones excluded)", book.spot, "average")
    add("spot (lowest AZ)", book.spot)
    rows.append(_bucket_row(book, instance_type, region))
    for years in (1, 3):
        for klass in ("standard", "convertible"):
            for pay in ("No Upfront", "Partial Upfront", "All Upfront"):
                add(
                    f"reserved {years}yr {klass} {pay} (effective)",
                    book.reserved,
                    years,
                    klass,
                    pay,
                )
    for plan in ("Compute", "EC2Instance"):
        for years in (1, 3):
            for pay in ("No Upfront", "Partial Upfront", "All Upfront"):
                add(f"Savings Plan {plan} {years}yr {pay}", book.savings_plan, plan, years, pay)
    rows += [
        (
            f"Savings Plan rates ({len(labels)} of 12)",
            "unknown",
            f"{why}; give one in the scenario: rate_usd_per_hour of a savings_plan option",
        )
        for why, labels in unknown.items()
    ]
    return rows


def _bucket_row(book: PriceBook, instance_type: str, region: str) -> tuple[str, str, str]:
    """The Spot Instance Advisor's interruption bucket, next to the spot prices."""
    bucket = book.spot_interruption_bucket(instance_type, region)
    if bucket is None:
        why = "not in the Spot Instance Advisor data: a spot option needs interruptions_per_hour"
        return ("spot interruptions", "unknown", why)
    where = "AWS Spot Instance Advisor's frequency of interruption, in the snapshot"
    return ("spot interruptions", f"{bucket} a month", where)


def catalog_rows(kind: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of one catalog table: gpus, servers, interconnects or instances."""
    if kind == "gpus":
        return (
            ["GPU", "memory GB", "bandwidth GB/s", "FP16 tensor TFLOPS", "TDP W", "source"],
            [
                [
                    g.name,
                    f"{g.memory_gb:g}",
                    f"{g.memory_bandwidth_gb_per_s:g}",
                    "n/a" if g.fp16_tensor_tflops is None else f"{g.fp16_tensor_tflops:g}",
                    f"{g.tdp_w:g}",
                    g.source,
                ]
                for g in hardware.gpus().values()
            ],
        )
    if kind == "servers":
        return (
            ["server", "GPUs", "price USD", "price date", "price is", "max kW", "links", "source"],
            [
                [
                    s.name,
                    f"{s.gpus_per_server} x {s.gpu}",
                    f"{s.price_usd:,.0f}",
                    s.price_date,
                    s.price_basis,
                    f"{s.max_kw:g}",
                    f"{s.intra_node} / {s.inter_node}",
                    s.source,
                ]
                for s in hardware.servers().values()
            ],
        )
    if kind == "interconnects":
        return (
            ["link", "GB/s", "8-GPU DDP sync share", "measured", "source"],
            [
                [
                    i.name,
                    f"{i.bandwidth_gb_per_s:g}",
                    f"{i.sync_share_8gpu:.1%}",
                    "n/a"
                    if i.bandwidth_gb_per_s == 0
                    else ("yes" if i.measured else "interpolated"),
                    i.source,
                ]
                for i in hardware.interconnects().values()
            ],
        )
    if kind == "instances":
        rows = []
        for region in snapshot.regions():
            for t in snapshot.instance_types(region):
                e = snapshot.entry(t, region)
                assert e is not None
                s = e.spec
                od = e.on_demand_usd_per_hour
                rows.append(
                    [
                        t,
                        region,
                        f"{s.gpu_count} x {s.aws_gpu_name}",
                        "unknown" if od is None else f"{od:,}",
                        f"snapshot {snapshot.as_of()}",
                    ]
                )
        return (["instance", "region", "GPUs", "on-demand USD/h", "source"], rows)
    raise PricingError(f"unknown catalog {kind!r}; valid: gpus, servers, interconnects, instances")
