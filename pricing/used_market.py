"""What a GPU server fetches on the used market, per GPU generation, fitted to dated prices.

Model: a server held ``t`` years sells for ``exp(-k t)`` of its price, with a decay rate ``k`` per
*segment* (a data-centre generation, or GeForce cards). Each observation in
``pricing/data/used_market.csv`` (derived from the shared ``hardware/gpu_price_history.csv`` and
``costs.md`` section 5, each row naming its rows there) is a range of ages and a range of used over
new price. A segment's rate is the least-squares fit through the origin of -ln(ratio) on age at the
ranges' midpoints; its band runs from the lowest to the highest rate any corner of its
observations implies. Where one observation gives a single rate (Ampere), the band is that rate
+-20 %, an ASSUMPTION (one point says nothing of its own error).

Segments without an observation (Blackwell, Ada and Turing data-centre cards, AMD) decay at
Epoch AI's long-run 0.14 orders of magnitude a year (27.6 %/yr of value lost; Cottier et al.,
arXiv 2405.21015), with a band from the slowest to the fastest fitted data-centre generation.
The fitted generations agree with Epoch on average (the geometric mean of their rates is within
2 % of it) and differ from each other by scarcity: Hopper held 70-80 % of its price after 2.4
years through 2026-Q1, Volta kept 22 % at 4.

Observations marked ``check`` are not fitted; a test puts each inside its segment's band.
Observations ``left out`` say why in their row.
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass
from importlib import resources

EPOCH_DECAY_PER_YEAR = 0.14 * math.log(10)  # 0.14 OOM/yr as a continuous rate (0.322)
SINGLE_POINT_BAND = 0.20  # +- around a rate one observation gives (ASSUMPTION)

# Catalog GPUs by market segment (NVIDIA and AMD architecture names).
SEGMENTS = {
    "V100 SXM2 16GB": "Volta",
    "V100 SXM2 32GB": "Volta",
    "A100 SXM 40GB": "Ampere",
    "A100 SXM 80GB": "Ampere",
    "A40": "Ampere",
    "A10G": "Ampere",
    "H100 SXM": "Hopper",
    "H100 PCIe": "Hopper",
    "H200 SXM": "Hopper",
    "B200 (HGX 1000W)": "Blackwell",
    "L4": "Ada",
    "L40S": "Ada",
    "T4": "Turing",
    "MI300X": "CDNA 3",
    "RTX 3060 12GB": "consumer",
    "RTX 4090": "consumer",
}


@dataclass(frozen=True)
class Observation:
    segment: str
    gpu: str
    years: tuple[float, float]
    ratio: tuple[float, float]  # used over new price
    role: str  # fit, check, left out
    derivation: str
    source: str

    def rates(self) -> tuple[float, float]:
        """The lowest and highest decay rate its corners imply."""
        corners = [-math.log(r) / y for r in self.ratio for y in self.years]
        return min(corners), max(corners)


@dataclass(frozen=True)
class UsedMarket:
    """A segment's decay rate ``per_year`` with its band, and what it rests on."""

    segment: str
    per_year: float
    low: float
    high: float
    basis: str  # "fitted on N dated prices" or Epoch's long-run trend
    sources: tuple[str, ...]

    def rate_at(self, quantile: float) -> float:
        """The rate at ``quantile`` of the band: 0 its slowest loss of value, 0.5 the fitted
        rate, 1 its fastest (straight on each side of the fit)."""
        if quantile <= 0.5:
            return self.low + (self.per_year - self.low) * quantile * 2
        return self.per_year + (self.high - self.per_year) * (quantile - 0.5) * 2

    def share(self, years: float, per_year: float | None = None) -> float:
        """Used-market value over the price paid after ``years`` held."""
        return math.exp(-(self.per_year if per_year is None else per_year) * max(0.0, years))


@functools.cache
def observations() -> tuple[Observation, ...]:
    text = resources.files("tco.pricing").joinpath("data", "used_market.csv").read_text("utf-8")
    return tuple(
        Observation(
            r["segment"],
            r["gpu"],
            (float(r["years_low"]), float(r["years_high"])),
            (float(r["ratio_low"]), float(r["ratio_high"])),
            r["role"],
            r["derivation"],
            r["source"],
        )
        for r in csv.DictReader(text.splitlines())
    )


def _fitted(segment: str) -> UsedMarket | None:
    fit = [o for o in observations() if o.segment == segment and o.role == "fit"]
    if not fit:
        return None
    ages = [sum(o.years) / 2 for o in fit]
    logs = [-math.log(sum(o.ratio) / 2) for o in fit]
    k = sum(a * y for a, y in zip(ages, logs, strict=True)) / sum(a * a for a in ages)
    low = min(o.rates()[0] for o in fit)
    high = max(o.rates()[1] for o in fit)
    if high - low < 1e-9:
        low, high = k * (1 - SINGLE_POINT_BAND), k * (1 + SINGLE_POINT_BAND)
    n = len(fit)
    return UsedMarket(
        segment,
        k,
        min(low, k),
        max(high, k),
        f"fitted on {n} dated used price{'s' if n > 1 else ''}",
        tuple(o.source for o in fit),
    )


@functools.cache
def fitted_generations() -> tuple[UsedMarket, ...]:
    """Every data-centre generation with observations (GeForce cards are their own market)."""
    names = sorted({o.segment for o in observations() if o.segment != "consumer"})
    return tuple(m for m in map(_fitted, names) if m is not None)


@functools.cache
def used_market(gpu: str) -> UsedMarket:
    """The used market of ``gpu``'s segment: fitted where it has observations, else Epoch's
    long-run trend with the fitted generations' spread as its band."""
    segment = SEGMENTS.get(gpu, "unknown")
    fitted = _fitted(segment)
    if fitted is not None:
        return fitted
    rates = [m.per_year for m in fitted_generations()]
    return UsedMarket(
        segment,
        EPOCH_DECAY_PER_YEAR,
        min(rates),
        max(rates),
        "no dated used price: Epoch AI's long-run 0.14 orders of magnitude a year",
        ("Cottier et al., arXiv 2405.21015 (Epoch AI), via gpu_price_history.csv",),
    )
