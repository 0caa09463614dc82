"""Small typed records the price book hands out. Every price carries its source and date."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Where a price book takes its prices (see pricing.book).
Mode = Literal["auto", "live", "cache", "snapshot"]
MODES: tuple[Mode, ...] = ("auto", "live", "cache", "snapshot")
Source = Literal["aws-api", "cache", "snapshot", "offline-replay", "scenario", "clouds-snapshot"]
PlanType = Literal["Compute", "EC2Instance"]
# How a price was set: a provider's or maker's list price, a quote, a third party's report of
# one, an estimate, a marketplace's median listing (offers that come and go, whoever lists), or
# the scenario's own figure. ``candidates: {price_basis: [...]}`` and a rental by GPU may keep
# to some of them.
Basis = Literal["list", "quote", "secondary", "estimate", "marketplace", "scenario"]
BASES: tuple[Basis, ...] = ("list", "quote", "secondary", "estimate", "marketplace", "scenario")
BASIS_WORDS = {
    "list": "a list price",
    "quote": "a quote",
    "secondary": "a third party's report of a price",
    "estimate": "an estimate",
    "marketplace": "a marketplace's median listing, offers that come and go",
    "scenario": "the scenario's own figure",
}
Payment = Literal["No Upfront", "Partial Upfront", "All Upfront"]


@dataclass(frozen=True)
class Price:
    """An hourly price in USD, with where it came from and as of when.

    ``usd_per_hour`` is per instance-hour. ``source`` is one of aws-api (live), cache (an earlier
    live answer), snapshot (bundled), offline-replay (the snapshot served through moto), scenario,
    clouds-snapshot (another provider's prices, bundled);
    ``as_of`` is an ISO date, or ``by DATE`` where only a date the price held by is known (a row
    copied from a catalogue whose commit dates are unknown); ``detail`` says which price
    (instance, region, term) from where.
    """

    usd_per_hour: float
    source: Source
    as_of: str
    detail: str
    basis: Basis = "list"

    def label(self) -> str:
        """'$21.957642/h (snapshot, as of 2025-11-30: ...)' for reports and messages."""
        return f"${self.usd_per_hour:,}/h ({self.source}, as of {self.as_of}: {self.detail})"


@dataclass(frozen=True)
class FxRate:
    """How many units of ``currency`` one USD buys, as of ``as_of``, from ``source``: a price
    AWS quotes in that currency is divided by it (the scenario gives it; tco fetches no rate)."""

    currency: str
    per_usd: float
    as_of: str
    source: str

    def text(self) -> str:
        return f"{self.per_usd:g} {self.currency} per USD as of {self.as_of} ({self.source})"


@dataclass(frozen=True)
class InstanceSpec:
    """What an EC2 instance type offers: GPUs (model name from the catalog), CPUs, memory, links.

    ``gpu_memory_gib`` is per GPU as AWS reports it (usable memory, e.g. 22.35 GiB for A10G).
    ``gpu_model`` is None when the accelerator is not in the GPU catalog (Trainium).
    """

    instance_type: str
    gpu_model: str | None
    aws_gpu_name: str
    gpu_count: int
    gpu_memory_gib: float
    vcpus: int
    memory_gib: float
    intra_node: str
    inter_node: str
    bare_metal: bool
