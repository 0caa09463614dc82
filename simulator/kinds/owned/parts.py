"""The sections of an owned option's scenario entry (tranches, depreciation, power, facility,
staff), a tranche's delivery, and the search for the smallest cluster meeting the level."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from tco.pricing import hardware
from tco.pricing.new_prices import trend
from tco.simulator.core import defaults
from tco.simulator.core.calendar import month_edges_h
from tco.simulator.core.fields import Date, Fraction, GpuCount, NonNeg, Strict
from tco.simulator.core.quote import PRICE_FACTOR_UNIT, Quote
from tco.simulator.workload.calibration import GpuSpeed
from tco.simulator.workload.speed import Hardware


class Tranche(Strict):
    """``servers`` ordered in month ``month`` (0 = the first month of the horizon)."""

    month: Annotated[int, Field(ge=0, le=1200)] = 0
    servers: GpuCount
    # Servers of another catalog model (a newer GPU beside the others); default the option's.
    server: str | None = None


class OwnServer(Strict):
    """A server of the scenario's own, where the catalog has none: what a quote or an asset
    register says of it. Its GPU is a catalog GPU (speed, memory, used market); the links are
    the hardware catalog's interconnects (``pricing/data/interconnects.csv``)."""

    name: str = Field(min_length=1)
    gpu: str
    gpus_per_server: GpuCount
    price_usd: NonNeg
    price_date: Date
    max_kw: Annotated[float, Field(gt=0, le=200)]
    intra_node: str = "pcie4"  # between its own GPUs; NVLink/NVSwitch boards: nvswitch_*
    inter_node: str = "eth_100g"  # between servers; InfiniBand: ib_hdr, ib_ndr
    source: str = Field(min_length=1)  # the quote, invoice or datasheet the figures come from

    def model(self) -> hardware.ServerModel:
        """As the catalog's servers are (its fields are theirs), priced by the scenario."""
        return hardware.ServerModel(**self.model_dump(), price_basis="scenario")


class Existing(Strict):
    """Servers a site already owns, in service from the first hour: no purchase in the horizon
    (nor installation or network), their running costs, failures, depreciation left and value
    at the horizon counted as for servers bought. ``price_usd``: what one cost when bought
    (default: the catalog's price), which the support share, the book value and the used
    market's value are figured from."""

    servers: GpuCount
    bought: Date  # YYYY-MM, when they went into service
    price_usd: NonNeg | None = None
    source: str = Field(min_length=1)  # an asset register, an invoice: where the figures are


class Depreciation(Strict):
    """How capex is spread in the accounting view. Salvage is a fraction of the purchase price."""

    method: Literal["straight_line", "declining_balance", "sum_of_years_digits"] = "straight_line"
    months: Annotated[int, Field(ge=1, le=240)] = defaults.DEPRECIATION_MONTHS
    salvage_fraction: Fraction = defaults.SALVAGE_FRACTION
    declining_factor: Annotated[float, Field(gt=0, le=4)] = defaults.DECLINING_BALANCE_FACTOR


class Power(Strict):
    """Electricity: draw (fractions of the server's maximum) x PUE x $/kWh."""

    pue: Annotated[float, Field(ge=1, le=3)] = defaults.PUE
    usd_per_kwh: NonNeg = defaults.ELECTRICITY_USD_PER_KWH
    busy_fraction: Annotated[float, Field(ge=0, le=1)] = defaults.BUSY_POWER_FRACTION
    idle_fraction: Annotated[float, Field(ge=0, le=1)] = defaults.IDLE_POWER_FRACTION


class Facility(Strict):
    """Space and cooling: colocation billed per provisioned kW per month, or an own room."""

    kind: Literal["colocation", "own"] = "colocation"
    usd_per_kw_month: NonNeg = defaults.COLOCATION_USD_PER_KW_MONTH


class StaffTime(Strict):
    """Share of staff time spent running the servers."""

    fte: NonNeg = 0.0
    usd_per_fte_year: NonNeg = 0.0


@dataclass(frozen=True)
class Delivery:
    """A tranche of servers: ordered in ``order_month``, usable from ``delivery_h``."""

    order_month: int
    servers: int
    delivery_h: float  # inf when it arrives after the horizon
    delivery_month: int | None
    price_factor: float = 1.0  # the server price in its order month / the quoted price
    generation: int = 0  # which of the option's server models (0: its ``server``)
    age_months: int | None = None  # existing servers: months in service before the horizon

    @property
    def existing(self) -> bool:
        return self.age_months is not None


def server_hardware(server: hardware.ServerModel, speed: Callable[[str], GpuSpeed]) -> Hardware:
    """Where jobs run on a catalog server: its GPU and memory, GPUs per server and links, at the
    scenario's speed of that GPU (``speed``: the option context's)."""
    gpu = hardware.gpu(server.gpu)
    return Hardware(
        gpu.name,
        gpu.memory_gb,
        server.gpus_per_server,
        server.intra_node,
        server.inter_node,
        0.0,
        speed=speed(gpu.name),
    )


def smallest_meeting(at: Callable[[int], Any], start: int, floor: int, limit: int) -> list[Any]:
    """Configurations at sizes around the smallest meeting the level: ``at(start)`` first, then
    doubling until one meets, then bisection above ``floor`` (a size that always misses).
    ``at`` gives None for a size that cannot be built (past a limit: 100,000 servers, the
    failures a run may draw): no larger size is tried (0.13.0 ended in a traceback there, or
    refused the whole run after ten minutes of searching)."""
    first = at(start)
    assert first is not None  # the scenario's own size was built before any search
    seen = {start: first}
    lo, hi = floor, start
    if not seen[hi].meets_service_level:
        while not seen[hi].meets_service_level and hi < limit:
            bigger = at(max(1, hi * 2))
            if bigger is None:
                return list(seen.values())
            lo, hi = hi, max(1, hi * 2)
            seen[hi] = bigger
        if not seen[hi].meets_service_level:
            return list(seen.values())
    while hi - lo > 1:  # invariant: lo misses (or is the floor), hi meets
        mid = (lo + hi) // 2
        got = at(mid)
        if got is None:  # (smaller than one that was built: only a limit's edge case)
            break
        seen[mid] = got
        lo, hi = (lo, mid) if got.meets_service_level else (mid, hi)
    for n in (hi - 1, hi + 1, 2 * hi):
        if n > floor and n not in seen:
            got = at(n)
            if got is not None:
                seen[n] = got
    return [seen[n] for n in sorted(seen)]


def years_after(start: str, months: int, date: str) -> float:
    """Years from ``date`` (YYYY[-MM[-DD]]) to ``months`` after ``start`` (YYYY-MM)."""
    y, m = (int(x) for x in start.split("-")[:2])
    parts = [int(x) for x in date.split("-")[:2]] + [1]
    return (y * 12 + m - 1 + months - (parts[0] * 12 + parts[1] - 1)) / 12.0


# tco optimize tries order months (a refresh's, a hybrid's purchase) every half year.
SEARCH_STEP_MONTHS = 6


def latest_order_month(lead_time_months: float, horizon_months: int) -> int:
    """The last month whose order arrives within the horizon."""
    return horizon_months - 1 - math.ceil(lead_time_months)


def deliveries_of(
    tranches: list[Tranche],
    lead_time_months: float,
    decline_per_year: float,
    start: str,
    horizon_months: int,
    price_date: str,
) -> tuple[Delivery, ...]:
    """Each tranche's delivery and the price factor of its order month (``price_date``: when
    the quoted price held; "undated", a scenario price, holds at the start)."""
    edges = month_edges_h(start, horizon_months)
    out = []
    for t in tranches:
        at = t.month + lead_time_months
        m = math.floor(at)
        dated = price_date != "undated"
        years = years_after(start, t.month, price_date) if dated else t.month / 12.0
        factor = (1.0 - decline_per_year) ** max(0.0, years)
        if m < horizon_months:
            h = float(edges[m] + (at - m) * (edges[m + 1] - edges[m]))
            out.append(Delivery(t.month, t.servers, h, m, price_factor=factor))
        else:
            out.append(Delivery(t.month, t.servers, math.inf, None, price_factor=factor))
    return tuple(out)


def existing_age_months(e: Existing, start: str) -> int:
    """Months existing servers have served at the start (negative: bought after it)."""
    return round(years_after(start, 0, e.bought) * 12)


def existing_delivery(e: Existing, start: str, price: float, catalog_price: float) -> Delivery:
    """Existing servers as a delivery at the first hour, at ``price`` each as bought (a factor
    of the catalog's price, which the ledger multiplies back)."""
    factor = price / catalog_price if catalog_price > 0 else 1.0
    age = existing_age_months(e, start)
    return Delivery(0, e.servers, 0.0, 0, price_factor=factor, age_months=age)


def order_decline(decline: float | None, gpu: str) -> float:
    """The yearly fall of a server's price with its order date: the option's
    ``price_decline_per_year``, else the fitted trend of its GPU's generation (``new_prices``)."""
    return trend(gpu).decline_per_year if decline is None else decline


def decline_quote(
    decline: float | None, gpu: str, dated: str, deliveries: tuple[Delivery, ...]
) -> Quote:
    """The price-by-order-month rule an owned option's capex rests on: its value is the order
    month's factor furthest from 1 (the caveat names the rule when it moves a price over 5 %)."""
    factors = ", ".join(f"month {d.order_month + 1}: x{d.price_factor:.3f}" for d in deliveries)
    furthest = max((d.price_factor for d in deliveries), key=lambda f: abs(f - 1.0), default=1.0)
    if decline is None:
        t = trend(gpu)
        rule, source = f"{t.basis}", "default"
    else:
        rule, source = f"the scenario's price_decline_per_year {decline:g}", "scenario"
    return Quote(
        "server price by order month",
        round(furthest, 4),
        PRICE_FACTOR_UNIT,
        source,
        dated if dated != "undated" else "the first month",
        f"{rule}; orders: {factors}",
    )
