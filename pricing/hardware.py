"""On-premises hardware catalog: GPU models, server configurations and interconnects.

Rows are read from CSV files shipped in ``pricing/data`` (each row carries its source; see
``pricing/data/README.md``). Nothing is read at import time: the catalog loads on first use.
Units are in the names: ``memory_gb`` per GPU, ``tdp_w`` watts, ``price_usd`` per server,
``max_kw`` per server, ``bandwidth_gb_per_s`` gigabytes per second.
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass
from importlib import resources
from typing import TypeVar

from tco.pricing.errors import PricingError, closest


@dataclass(frozen=True)
class GpuModel:
    """One GPU model from vendor datasheets."""

    name: str
    memory_gb: float
    memory_bandwidth_gb_per_s: float
    fp16_tensor_tflops: float | None  # dense; None where not published (A10G)
    fp32_tflops: float
    tdp_w: float
    nvlink_gb_per_s: float
    source: str
    architecture: str = ""  # Volta, Ampere, Ada, Hopper, Blackwell, CDNA3, Turing


@dataclass(frozen=True)
class ServerModel:
    """A server configuration one can buy: its GPUs, list or street price, power and links."""

    name: str
    gpu: str
    gpus_per_server: int
    price_usd: float
    price_date: str
    max_kw: float
    intra_node: str
    inter_node: str
    source: str
    # What the price is: list (the maker's), quote, secondary (a reseller's listing or a
    # report of one), estimate (derived from a GPU price), or scenario (a user's own server).
    price_basis: str = "list"


PRICE_BASES = ("list", "quote", "secondary", "estimate", "scenario")
BASIS_WORDS = {
    "list": "the maker's list price",
    "quote": "a quote",
    "secondary": "a secondary report (a reseller's listing, or a report of one)",
    "estimate": "an estimate (a GPU's price times Epoch AI's server/chip cost ratio)",
    "scenario": "the scenario's own figure",
}


@dataclass(frozen=True)
class Interconnect:
    """A link between GPUs; ``sync_share_8gpu`` is the share of an 8-GPU DDP step spent syncing."""

    name: str
    bandwidth_gb_per_s: float
    sync_share_8gpu: float
    measured: bool
    source: str


T = TypeVar("T")


def data_rows(filename: str) -> list[dict[str, str]]:
    """The rows of a CSV file shipped in ``pricing/data``."""
    text = resources.files("tco.pricing").joinpath("data", filename).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


@functools.cache
def gpus() -> dict[str, GpuModel]:
    """Every GPU model in the catalog, by name."""
    out = {}
    for r in data_rows("gpu_specs.csv"):
        tensor = r["fp16_tensor_tflops_dense"].strip()
        out[r["gpu"]] = GpuModel(
            name=r["gpu"],
            memory_gb=float(r["mem_gb"]),
            memory_bandwidth_gb_per_s=float(r["mem_bw_gbs"]),
            fp16_tensor_tflops=float(tensor) if tensor else None,
            fp32_tflops=float(r["fp32_tflops"]),
            tdp_w=float(r["tdp_w"]),
            nvlink_gb_per_s=float(r["nvlink_gbs"]),
            source=r["source"],
            architecture=r["architecture"],
        )
    return out


@functools.cache
def servers() -> dict[str, ServerModel]:
    """Every server configuration in the catalog, by name."""
    return {
        r["name"]: ServerModel(
            name=r["name"],
            gpu=r["gpu"],
            gpus_per_server=int(r["gpus_per_server"]),
            price_usd=float(r["price_usd"]),
            price_date=r["price_date"],
            max_kw=float(r["max_kw"]),
            intra_node=r["intra_node"],
            inter_node=r["inter_node"],
            source=r["source"],
            price_basis=_basis(r["price_basis"]),
        )
        for r in data_rows("servers.csv")
    }


def _basis(word: str) -> str:
    if word not in PRICE_BASES:
        raise ValueError(f"servers.csv: price_basis {word!r} not one of {PRICE_BASES}")
    return word


# The brief measures two points: 8-GPU DDP syncs 35 % of the time on 1 GbE (0.125 GB/s) and 8 %
# on InfiniBand HDR (25 GB/s). Communication/compute time ratio r = s / (1 - s) is interpolated
# as a power law of bandwidth through those two points; a pure 1/bandwidth law would predict 95 %
# on 1 GbE, far from the measurement (latency and overlap matter), so it is not used.
_R_GBE = 0.35 / 0.65
_R_HDR = 0.08 / 0.92
SYNC_EXPONENT = math.log(_R_HDR / _R_GBE) / math.log(25.0 / 0.125)


def comm_ratio_8gpu(bandwidth_gb_per_s: float) -> float:
    """Communication/compute time ratio of a typical 8-GPU DDP step over a link of this speed."""
    if bandwidth_gb_per_s <= 0:
        return 0.0
    return float(_R_HDR * (bandwidth_gb_per_s / 25.0) ** SYNC_EXPONENT)


@functools.cache
def interconnects() -> dict[str, Interconnect]:
    """Every interconnect, with its measured or interpolated sync share."""
    out = {}
    for r in data_rows("interconnects.csv"):
        bw = float(r["bandwidth_gb_per_s"])
        if r["sync_share_8gpu_ddp"].strip():
            share = float(r["sync_share_8gpu_ddp"])
        else:
            ratio = comm_ratio_8gpu(bw)
            share = ratio / (1 + ratio)
        out[r["name"]] = Interconnect(r["name"], bw, share, r["measured"] == "yes", r["source"])
    return out


def _lookup(table: dict[str, T], name: str, what: str) -> T:
    try:
        return table[name]
    except KeyError:
        valid = ", ".join(sorted(table))
        raise PricingError(
            f"unknown {what} {name!r}{closest(name, table)}; valid: {valid}"
        ) from None


def gpu(name: str) -> GpuModel:
    """The GPU model called ``name``, or a PricingError listing valid names."""
    return _lookup(gpus(), name, "GPU model")


def gpu_family(words: str) -> list[str]:
    """The catalog GPUs ``words`` names: the model itself, or every model of a family ("H100":
    H100 SXM and H100 PCIe). A PricingError lists the valid words when none matches."""
    w = words.strip().lower()
    found = [n for n in gpus() if n.lower() == w or n.lower().startswith(w + " ")]
    if not found:
        families = sorted({n.split()[0] for n in gpus()} | set(gpus()))
        raise PricingError(
            f"no GPU of the catalog is called {words!r}{closest(words, families)}; valid:"
            f" {', '.join(families)}"
        )
    return found


def known_family(words: str) -> str:
    """``words`` when they name catalog GPUs (:func:`gpu_family`; ValueError otherwise): a
    scenario field's validator."""
    try:
        gpu_family(words)
    except PricingError as exc:
        raise ValueError(str(exc)) from None
    return words


def gpu_for_aws(aws_name: str, memory_gib: float) -> str | None:
    """The catalog GPU for AWS's GPU name and per-GPU memory: the same family, nearest memory,
    SXM parts before PCIe ones (AWS's H100 instances are SXM); None when not in the catalog."""
    names = [n for n in gpus() if n == aws_name or n.startswith(aws_name + " ")]
    if not names:
        return None
    return min(names, key=lambda n: (abs(gpus()[n].memory_gb - memory_gib), "SXM" not in n, n))


def server(name: str) -> ServerModel:
    """The server configuration called ``name``, or a PricingError listing valid names."""
    return _lookup(servers(), name, "server model")


def interconnect(name: str) -> Interconnect:
    """The interconnect called ``name``, or a PricingError listing valid names."""
    return _lookup(interconnects(), name, "interconnect")
