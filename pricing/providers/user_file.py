"""A user's own prices: a price list in SkyPilot's catalog layout (the format most GPU price
catalogs use: ``InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price,
Region, SpotPrice, ...``) or tco's own CSV (``COLUMNS``), read into offers of a provider the
user names; ``tco prices import`` writes tco's CSV, and a scenario's ``price_files:`` registers
each file as a provider for the run.

Every row is checked (a number where a number belongs, a GPU the hardware catalog knows, one row
per type and region); a bad row is a ValueError naming its line and field. A file's rows all
carry the source and date the user gives: tco knows nothing of a private price list but what it
is told.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from tco.pricing import hardware
from tco.pricing.providers.registry import Offer, Provider
from tco.pricing.providers.snapshot import gpu_offer

COLUMNS = (
    "provider",
    "instance_type",
    "region",
    "gpu",
    "gpu_count",
    "gpu_memory_gb",
    "vcpus",
    "memory_gib",
    "usd_per_hour",
    "spot_usd_per_hour",
    "source",
    "as_of",
)
SKYPILOT = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
# SkyPilot's accelerator names -> the hardware catalog's (sky/catalog: AcceleratorName).
ACCELERATORS = {
    "A100": "A100 SXM 40GB",
    "A100-80GB": "A100 SXM 80GB",
    "H100": "H100 SXM",
    "H100-SXM": "H100 SXM",
    "H100-PCIE": "H100 PCIe",
    "H200": "H200 SXM",
    "B200": "B200 (HGX 1000W)",
    "L40S": "L40S",
    "L4": "L4",
    "A10G": "A10G",
    "A40": "A40",
    "T4": "T4",
    "V100": "V100 SXM2 16GB",
    "V100-32GB": "V100 SXM2 32GB",
    "RTX4090": "RTX 4090",
    "MI300X": "MI300X",
}


@dataclass(frozen=True)
class Row:
    instance_type: str
    region: str
    gpu: str
    gpu_count: int
    gpu_memory_gb: float
    vcpus: int
    memory_gib: float
    usd_per_hour: float
    spot_usd_per_hour: float | None


# The bound of a scenario's numbers (simulator.core.fields.BIG): no price, size or count comes
# near it, and sums of them stay far from float overflow (a price of 1e308 overflowed to inf).
LARGEST = 1e9


def _number(text: str, line: int, field: str, whole: bool = False) -> float:
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"line {line}: {field}: {text!r} is not a number") from None
    if not 0 <= v <= LARGEST or (whole and v != int(v)):
        raise ValueError(f"line {line}: {field}: {text!r} must be a number from 0 to {LARGEST:g}")
    return v


def _gpu(name: str, line: int, field: str) -> str:
    known = hardware.gpus()
    if name in known:
        return name
    if name in ACCELERATORS:
        return ACCELERATORS[name]
    valid = ", ".join(sorted({*ACCELERATORS, *known}))
    raise ValueError(f"line {line}: {field}: GPU {name!r} is not in the catalog; valid: {valid}")


def read(text: str) -> list[Row]:
    """Rows of a price list in SkyPilot's layout or tco's (told apart by the header)."""
    reader = csv.DictReader(io.StringIO(text))
    header = set(reader.fieldnames or ())
    sky = set(SKYPILOT) <= header
    if not sky and not set(COLUMNS) - {"provider", "source", "as_of"} <= header:
        raise ValueError(
            "line 1: the header is neither SkyPilot's catalog layout (needs "
            + ", ".join(SKYPILOT)
            + ") nor tco's ("
            + ", ".join(COLUMNS)
            + ")"
        )
    out: dict[tuple[str, str], Row] = {}
    for n, r in enumerate(reader, start=2):
        if sky:
            if not (r.get("AcceleratorName") or "").strip():
                continue  # a CPU-only type: nothing to train on
            if not (r.get("InstanceType") or "").strip() or not (r.get("Price") or "").strip():
                continue  # SkyPilot's accelerator-only rows (GCP) carry no instance or price
            gpu = _gpu(r["AcceleratorName"].strip(), n, "AcceleratorName")
            count = int(_number(r["AcceleratorCount"], n, "AcceleratorCount", whole=True))
            row = Row(
                r["InstanceType"].strip(),
                r["Region"].strip(),
                gpu,
                count,
                hardware.gpu(gpu).memory_gb,
                int(_number(r.get("vCPUs") or "0", n, "vCPUs")),
                _number(r.get("MemoryGiB") or "0", n, "MemoryGiB"),
                _number(r["Price"], n, "Price"),
                None
                if not (r.get("SpotPrice") or "").strip()
                else _number(r["SpotPrice"], n, "SpotPrice"),
            )
        else:
            gpu = _gpu(r["gpu"].strip(), n, "gpu")
            row = Row(
                r["instance_type"].strip(),
                r["region"].strip(),
                gpu,
                int(_number(r["gpu_count"], n, "gpu_count", whole=True)),
                _number(r["gpu_memory_gb"], n, "gpu_memory_gb"),
                int(_number(r["vcpus"], n, "vcpus", whole=True)),
                _number(r["memory_gib"], n, "memory_gib"),
                _number(r["usd_per_hour"], n, "usd_per_hour"),
                None
                if not (r.get("spot_usd_per_hour") or "").strip()
                else _number(r["spot_usd_per_hour"], n, "spot_usd_per_hour"),
            )
        if not row.instance_type or not row.region or row.gpu_count < 1 or row.usd_per_hour <= 0:
            raise ValueError(f"line {n}: an instance type, a region, GPUs and a price > 0")
        key = (row.instance_type, row.region)
        if key in out and out[key] != row:  # SkyPilot lists a type once per zone
            raise ValueError(f"line {n}: {row.instance_type} in {row.region} priced twice")
        out[key] = row
    if not out:
        raise ValueError("no GPU instance with a price in the file")
    return list(out.values())


def write(rows: list[Row], provider: str, source: str, as_of: str) -> str:
    """tco's CSV of ``rows``, every row with the provider, source and date given."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in sorted(rows, key=lambda r: (r.region, r.instance_type)):
        spot = "" if r.spot_usd_per_hour is None else f"{r.spot_usd_per_hour:.10g}"
        w.writerow(
            [
                provider,
                r.instance_type,
                r.region,
                r.gpu,
                r.gpu_count,
                f"{r.gpu_memory_gb:g}",
                r.vcpus,
                f"{r.memory_gib:g}",
                f"{r.usd_per_hour:.10g}",
                spot,
                source,
                as_of,
            ]
        )
    return buf.getvalue()


class FileProvider(Provider):
    """A provider whose prices are a user's file (read once, when the scenario names it)."""

    def __init__(self, name: str, rows: list[Row], source: str, as_of: str, file: str) -> None:
        self.name, self.label, self.file = name, name, file
        self.origin = f"price file {file}"
        self.billing_note = (
            f"the user's price file {file}; billed by the kind's rule (per second, 60 s"
            " minimum), an assumption"
        )
        self._offers = [
            gpu_offer(
                name,
                r.instance_type,
                r.region,
                {
                    "gpu": r.gpu,
                    "gpu_count": r.gpu_count,
                    "gpu_memory_gb": r.gpu_memory_gb,
                    "vcpus": r.vcpus,
                    "memory_gib": r.memory_gib,
                    "on_demand_usd_per_hour": r.usd_per_hour,
                    "spot_usd_per_hour": r.spot_usd_per_hour,
                    "source": f"{source} ({file})",
                    "as_of": as_of,
                    "confidence": "listed",
                    "doubtful_because": "",
                    "notes": "a user's price file",
                },
            )
            for r in rows
        ]
        self.default_region = sorted(o.region for o in self._offers)[0]

    def offers(self) -> list[Offer]:
        return list(self._offers)


def load(text: str, file: str) -> FileProvider:
    """A provider of tco's CSV (its ``provider``, ``source`` and ``as_of`` columns the same on
    every row), registered for the run."""
    rows = read(text)
    meta = {
        (r["provider"].strip(), r["source"].strip(), r["as_of"].strip())
        for r in csv.DictReader(io.StringIO(text))
        if (r.get("instance_type") or "").strip()
    }
    if len(meta) != 1 or not all(next(iter(meta))):
        raise ValueError(
            "give a file `tco prices import` wrote: one provider, source and as_of on every row"
        )
    name, source, as_of = next(iter(meta))
    return FileProvider(name, rows, source, as_of, file)
