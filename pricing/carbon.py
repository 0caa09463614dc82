"""What a kWh and a server emit: the grid's carbon intensity where each provider's region draws
its power (``data/grid_carbon.csv``), each provider's data-centre PUE (``data/datacentre_pue.csv``)
and a server's embodied carbon (Cloud Carbon Footprint's coefficients).

Grid figures are location-based annual averages, gCO2e per kWh. Google publishes one per region
(``GoogleCloudPlatform/region-carbon-info``, 2024); no other provider does, so another provider's
region takes the figure of Google's location on the same grid (medium confidence), or Cloud
Carbon Footprint's default where no Google location shares it (low), or, where the data read
does not say where the region is, a figure from its name (low, said as a guess). A region with
no row takes the mean of Google's 44 locations in 2024 (``FALLBACK``, a guess).
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from importlib import resources
from typing import Literal

Confidence = Literal["high", "medium", "low"]

# Embodied carbon of a GPU server, Cloud Carbon Footprint's coefficients (the Teads method,
# cloud-carbon-footprint#579; shared references README 1.4): 1,000 kgCO2e for the server and
# 150 more per GPU card, spread evenly over a 4-year life (CCF's EmbodiedEmissions.md, from the
# Dell PowerEdge R740 life-cycle assessment). A cross-check, not used: 318 kg for one A100
# (Chien et al., HotCarbon '23) against 150 + 1,000 / 8 = 275 kg a GPU here.
EMBODIED_KG_PER_SERVER = 1000.0
EMBODIED_KG_PER_GPU = 150.0
EMBODIED_LIFE_YEARS = 4.0
EMBODIED_LIFE_HOURS = EMBODIED_LIFE_YEARS * 8766.0  # years of 365.25 days
EMBODIED_SOURCE = (
    "Cloud Carbon Footprint's coefficients (cloud-carbon-footprint#579, Teads method): 1,000"
    " kgCO2e a server + 150 a GPU, over a 4-year life; low confidence"
)

# Power a GPU's server draws at its maximum, per GPU: the GPU's TDP times 2.03, the ratio of a
# DGX A100's 6.5 kW to its eight 400 W GPUs (Epoch's chip_to_server_power; the ratio the bundled
# servers.csv prices its estimated servers' power by).
SERVER_POWER_PER_GPU_TDP = 6.5 / (8 * 0.4)


@dataclass(frozen=True)
class GridFactor:
    """The carbon intensity of the power a place draws: gCO2e per kWh, where (``location``),
    from where and as of when, and how sure."""

    g_per_kwh: float
    location: str
    source: str
    as_of: str
    confidence: Confidence
    note: str = ""

    def words(self) -> str:
        """'323 gCO2e/kWh (Northern Virginia; Google region-carbon-info 2024; medium)'."""
        return (
            f"{self.g_per_kwh:,.0f} gCO2e/kWh ({self.location}; {self.source}, {self.as_of};"
            f" {self.confidence} confidence)"
        )


@dataclass(frozen=True)
class Pue:
    """A data centre's power usage effectiveness: facility kWh per IT kWh, with its source."""

    value: float
    source: str
    confidence: Confidence


_CONFIDENCES: dict[str, Confidence] = {"high": "high", "medium": "medium", "low": "low"}


def _confidence(text: str) -> Confidence:
    if text in _CONFIDENCES:
        return _CONFIDENCES[text]
    raise ValueError(f"a confidence of high, medium or low, not {text!r}")


def _read(name: str) -> list[dict[str, str]]:
    text = resources.files("tco.pricing").joinpath("data", name).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


@functools.cache
def _grids() -> dict[tuple[str, str], GridFactor]:
    out = {}
    for r in _read("grid_carbon.csv"):
        conf = _confidence(r["confidence"])
        out[(r["provider"], r["region"])] = GridFactor(
            float(r["g_co2e_per_kwh"]), r["location"], r["source"], r["as_of"], conf, r["note"]
        )
    return out


# The mean of the 44 locations of Google's region-carbon-info data/yearly/2024.csv@49f3f26.
FALLBACK_G_PER_KWH = 310.06


@functools.cache
def fallback() -> GridFactor:
    """The figure a region with no row takes: the mean of Google's 2024 locations (a guess)."""
    return GridFactor(
        FALLBACK_G_PER_KWH,
        "unknown location",
        "mean of Google's 44 locations, region-carbon-info data/yearly/2024.csv@49f3f26",
        "2024",
        "low",
        "a guess: no grid figure for this region",
    )


def grid(provider: str, region: str) -> GridFactor:
    """The grid intensity where ``provider``'s ``region`` draws its power (``fallback()`` when
    no row says)."""
    return _grids().get((provider, region)) or fallback()


def grid_rows() -> dict[tuple[str, str], GridFactor]:
    """Every bundled grid figure by (provider, region)."""
    return dict(_grids())


@functools.cache
def _pues() -> dict[str, Pue]:
    out = {}
    for r in _read("datacentre_pue.csv"):
        conf = _confidence(r["confidence"])
        out[r["provider"]] = Pue(float(r["pue"]), f"{r['source']}, {r['as_of']}", conf)
    return out


def pue(provider: str, default: float, default_source: str) -> Pue:
    """``provider``'s data-centre PUE; a provider publishing none takes ``default`` (the
    industry average the caller names), at low confidence."""
    guess = Pue(default, f"{default_source} (a guess for {provider})", "low")
    return _pues().get(provider) or guess


def embodied_kg_per_hour(gpus_per_server: int) -> float:
    """A server's embodied carbon per hour of its life, kgCO2e (CCF's coefficients)."""
    total = EMBODIED_KG_PER_SERVER + EMBODIED_KG_PER_GPU * gpus_per_server
    return total / EMBODIED_LIFE_HOURS
