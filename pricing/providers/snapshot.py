"""Providers that answer from the bundled snapshot of their prices (``clouds_snapshot.json``,
built by ``scripts/build_clouds_snapshot.py`` from the shared research data, every offer with
its source repository, path and commit). The schema is checked on load.

Links inside an instance are not in the source data: an 8-GPU SXM instance is taken to have its
GPUs' NVSwitch (as every HGX board does), other multi-GPU instances PCIe 4.0. The network between
instances is the provider's, per shape, from ``providers.links`` (its sources say which are
documented; 25 Gb/s Ethernet where none is, an ASSUMPTION).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from tco.pricing.providers.links import link
from tco.pricing.providers.registry import Offer, Provider, qualified
from tco.pricing.records import InstanceSpec

SNAPSHOT_FILE = "clouds_snapshot.json"
SCHEMA = "tco-clouds-snapshot/1"
CONFIDENCES = ("listed", "secondary", "marketplace", "doubtful")
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "gpu": str,
    "gpu_count": int,
    "gpu_memory_gb": (int, float),
    "vcpus": int,
    "memory_gib": (int, float),
    "on_demand_usd_per_hour": (int, float),
    "source": str,
    "as_of": str,
    "dated_by": str,
    "confidence": str,
    "doubtful_because": str,
    "notes": str,
}
# NVSwitch by GPU family for 8-GPU SXM boards (the hardware catalog's link names).
_NVSWITCH = {"A100": "nvswitch_a100", "H100": "nvswitch_h100", "H200": "nvswitch_h100"}
_NVSWITCH_B200 = "nvswitch_b200"


def check(doc: Any, where: str) -> dict[str, Any]:
    """The snapshot, or ValueError saying which field of which offer is wrong."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ValueError(f"{where}: not a {SCHEMA} document")
    for provider, regions in doc["providers"].items():
        for region, offers in regions.items():
            for itype, o in offers.items():
                at = f"{where}: {provider} {region} {itype}"
                for field, kind in _FIELDS.items():
                    if not isinstance(o.get(field), kind) or isinstance(o.get(field), bool):
                        raise ValueError(f"{at}: {field} missing or not {kind}")
                spot = o.get("spot_usd_per_hour")
                if spot is not None and (not isinstance(spot, int | float) or spot < 0):
                    raise ValueError(f"{at}: spot_usd_per_hour must be a price or null")
                if o["on_demand_usd_per_hour"] <= 0 or o["gpu_count"] < 1:
                    raise ValueError(f"{at}: a price and a GPU count must be positive")
                if o["confidence"] not in CONFIDENCES:
                    raise ValueError(f"{at}: confidence one of {', '.join(CONFIDENCES)}")
    return doc


@functools.cache
def load() -> dict[str, Any]:
    path = resources.files("tco.pricing").joinpath("data", SNAPSHOT_FILE)
    return check(json.loads(path.read_text(encoding="utf-8")), f"bundled {SNAPSHOT_FILE}")


def intra_node(gpu: str, count: int) -> str:
    """The link between an instance's own GPUs (see the module docstring)."""
    if count < 2:
        return "none"
    if count == 8 and "PCIe" not in gpu:
        if gpu.startswith("B200"):
            return _NVSWITCH_B200
        family = gpu.split()[0]
        if family in _NVSWITCH:
            return _NVSWITCH[family]
    return "pcie4"


def gpu_offer(provider: str, itype: str, region: str, o: dict[str, Any]) -> Offer:
    """An offer from its fields as the snapshot stores them (a user's file is read into the
    same fields): the spec's links taken by :func:`links`."""
    intra, inter = intra_node(o["gpu"], o["gpu_count"]), link(provider, itype).inter_node
    spec = InstanceSpec(
        instance_type=qualified(provider, itype),
        gpu_model=o["gpu"],
        aws_gpu_name=o["gpu"],
        gpu_count=o["gpu_count"],
        gpu_memory_gib=float(o["gpu_memory_gb"]),
        vcpus=o["vcpus"],
        memory_gib=float(o["memory_gib"]),
        intra_node=intra,
        inter_node=inter,
        bare_metal=False,
    )
    return Offer(
        provider=provider,
        instance_type=itype,
        region=region,
        spec=spec,
        on_demand_usd_per_hour=float(o["on_demand_usd_per_hour"]),
        spot_usd_per_hour=o.get("spot_usd_per_hour"),
        source=o["source"],
        as_of=o["as_of"],
        confidence=o["confidence"],
        doubtful_because=o["doubtful_because"],
        notes=o["notes"],
        dated_by=o.get("dated_by", "source: the file's as_of"),
    )


class SnapshotProvider(Provider):
    """A provider whose prices are its section of the bundled snapshot."""

    def __init__(self, name: str, label: str, default_region: str, billing_note: str) -> None:
        self.name, self.label = name, label
        self.default_region, self.billing_note = default_region, billing_note

    def offers(self) -> list[Offer]:
        table = load()["providers"].get(self.name, {})
        return [
            gpu_offer(self.name, t, r, o)
            for r, offers in sorted(table.items())
            for t, o in sorted(offers.items())
        ]
