"""Carbon of each choice: what an option's servers, its own or rented, emit in running (IT energy
x PUE x the grid's intensity) and embodied in making them (a share of their life), tCO2e by
month; and the scenario's ``carbon:`` section (a price per tonne folding it into cash, the
site's grid).

Every kind describes its power as ``Draw`` records on its ledger (``Ledger.draws``): the owned
kinds their servers at the site, the rented kinds their instances at each provider's region.
One rule turns both into energy, so owned and rented servers of a GPU draw alike: a server draws
its maximum times ``idle`` while in service or billed and ``busy`` more on the GPUs jobs use
(``it_kwh``). ``kinds.costing`` makes the option's ``Footprint`` from its draws, work left
unfinished at the horizon included at the option's own intensity (like for like, as its cost
is), and prices it when the scenario gives a carbon price.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import numpy as np
from pydantic import Field, model_validator

from tco.pricing import carbon as data
from tco.pricing.carbon import GridFactor, Pue
from tco.simulator.core.fields import Strict

SITE = "site"  # a draw at the buyer's own site, whose grid the scenario's carbon: section gives


class CarbonSpec(Strict):
    """The scenario's ``carbon:`` section. ``price_usd_per_t``: what a tonne of CO2e costs the
    buyer (an internal price, a tax), counted in cash as the ledger category ``carbon`` with its
    ``price_source``; ``site_g_per_kwh``: the grid intensity where the owned servers run, with
    its ``site_source`` (else the scenario region's grid, said as a guess)."""

    price_usd_per_t: Annotated[float, Field(ge=0, le=10_000)] | None = None
    price_source: str | None = Field(default=None, min_length=1)
    site_g_per_kwh: Annotated[float, Field(ge=0, le=2_000)] | None = None
    site_source: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _sourced(self) -> CarbonSpec:
        if (self.price_usd_per_t is None) != (self.price_source is None):
            raise ValueError("price_usd_per_t and price_source go together: a price and where from")
        if (self.site_g_per_kwh is None) != (self.site_source is None):
            raise ValueError("site_g_per_kwh and site_source go together: a figure and where from")
        return self


@dataclass(frozen=True)
class Carbon:
    """The carbon: section resolved for a run: the price per tonne (None: carbon is reported,
    not priced) and the site's grid."""

    price_usd_per_t: float | None
    price_source: str
    site: GridFactor

    @classmethod
    def of(cls, spec: CarbonSpec | None, region: str) -> Carbon:
        """The scenario's section; the site's grid, when it gives none, the scenario region's
        at AWS (where its clouds run: a guess for where its servers are)."""
        spec = spec or CarbonSpec()
        if spec.site_g_per_kwh is not None:
            assert spec.site_source is not None
            site = GridFactor(spec.site_g_per_kwh, "the site", spec.site_source, "", "medium")
        else:
            g = data.grid("aws", region)
            site = GridFactor(
                g.g_per_kwh,
                g.location,
                g.source,
                g.as_of,
                "low",
                f"a guess: the site taken to be on {region}'s grid (carbon.site_g_per_kwh)",
            )
        return cls(spec.price_usd_per_t, spec.price_source or "", site)


def it_kwh(
    held_gpu_h: np.ndarray, busy_gpu_h: np.ndarray, kw_per_gpu: float, idle: float, busy: float
) -> np.ndarray:
    """IT energy of servers drawing ``kw_per_gpu`` a GPU at their maximum: ``idle`` of it for
    every GPU-hour held (in service, billed), ``busy`` on the GPU-hours jobs use."""
    return np.asarray(held_gpu_h * kw_per_gpu * idle + busy_gpu_h * kw_per_gpu * (busy - idle))


@dataclass(frozen=True)
class Draw:
    """Power one part of an option draws and the servers it holds, by month: its IT energy
    (kWh), where (``SITE``, or ``provider:region``), that data centre's PUE, its grid (None at
    the site: the scenario's), and the embodied carbon of the server-hours held (kgCO2e)."""

    where: str
    it_kwh: np.ndarray
    pue: Pue
    grid: GridFactor | None
    embodied_kg: np.ndarray

    def scaled(self, k: float, months: int) -> Draw:
        """``k`` times this draw's totals, in the last month (work finished after the horizon)."""
        last = np.zeros(months)
        last[-1] = k * float(self.it_kwh.sum())
        emb = np.zeros(months)
        emb[-1] = k * float(self.embodied_kg.sum())
        return Draw(self.where, last, self.pue, self.grid, emb)


@dataclass(frozen=True)
class Place:
    """One place an option's power is drawn: where, its grid and PUE, its tCO2e in running."""

    where: str
    grid: GridFactor
    pue: Pue
    operational_t: float


@dataclass(frozen=True)
class Footprint:
    """An option's carbon, tCO2e by month: in running and embodied, with the places it draws
    power (their grids and PUEs, the sources of its figures)."""

    operational_t: np.ndarray
    embodied_t: np.ndarray
    facility_kwh: np.ndarray
    places: tuple[Place, ...]

    @property
    def monthly_t(self) -> np.ndarray:
        return np.asarray(self.operational_t + self.embodied_t)

    @property
    def total_t(self) -> float:
        return float(self.monthly_t.sum())

    def rests_on_guess(self) -> bool:
        """Whether a grid or PUE it uses is a guess (low confidence) for a share of 10 % or more
        of its operational carbon."""
        total = float(self.operational_t.sum())
        low = sum(
            p.operational_t for p in self.places if "low" in (p.grid.confidence, p.pue.confidence)
        )
        return total > 0 and low >= 0.1 * total


def footprint(draws: tuple[Draw, ...], carbon: Carbon, months: int) -> Footprint:
    """The carbon of ``draws`` (their grid, or the site's), tCO2e by month."""
    op, emb, kwh = np.zeros(months), np.zeros(months), np.zeros(months)
    places: dict[str, Place] = {}
    for d in draws:
        grid = d.grid or carbon.site
        facility = d.it_kwh * d.pue.value
        t = facility * grid.g_per_kwh / 1e6
        op += t
        kwh += facility
        emb += d.embodied_kg / 1e3
        old = places.get(d.where)
        places[d.where] = Place(
            d.where, grid, d.pue, float(t.sum()) + (old.operational_t if old else 0.0)
        )
    return Footprint(op, emb, kwh, tuple(places.values()))
