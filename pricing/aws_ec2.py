"""EC2: an instance type's specs (``describe_instance_types``: GPUs from ``GpuInfo``, Trainium
and Inferentia from ``NeuronInfo``) and its lowest spot price (``describe_spot_price_history``:
the latest price per availability zone, Local Zones and Wavelength zones excluded, reduced by
**minimum**); and the links between accelerators, which no API gives."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from tco.pricing import hardware
from tco.pricing.aws_calls import LivePriceError, call
from tco.pricing.records import InstanceSpec

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


def instance_spec(client: Any, instance_type: str) -> InstanceSpec:
    """GPU name, count and memory, vCPUs, memory, links and bare metal of an instance type."""
    what = f"ec2.describe_instance_types for {instance_type}"
    resp = call(what, lambda: client.describe_instance_types(InstanceTypes=[instance_type]))
    types = resp.get("InstanceTypes", [])
    if not types:
        raise LivePriceError(f"{what}: empty answer; check the instance type")
    it = types[0]
    # GPUs are under GpuInfo; Trainium and Inferentia accelerators under NeuronInfo.
    devices = it.get("GpuInfo", {}).get("Gpus", []) or it.get("NeuronInfo", {}).get(
        "NeuronDevices", []
    )
    if devices:
        g = devices[0]
        name, count = str(g.get("Name", "?")), int(g.get("Count", 0))
        mem_gib = round(float(g.get("MemoryInfo", {}).get("SizeInMiB", 0)) / 1024, 2)
    else:
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


def spot_zones(
    client: Any, instance_type: str, now: dt.datetime
) -> tuple[float, float, float] | None:
    """Lowest, mean and highest current spot $/h over the region's regular availability zones
    (latest price per AZ; Local Zones and Wavelength zones excluded); None when there is no spot
    market."""
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
    if not latest:
        return None
    prices = [p for _, p in latest.values()]
    return min(prices), sum(prices) / len(prices), max(prices)


# ------------------------------------------------------------------ one instance type
