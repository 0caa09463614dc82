"""The sections of an owned option's scenario entry (tranches, depreciation, power, facility,
staff) and a tranche's delivery, shared by the owned kind and its costs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from tco.simulator import defaults
from tco.simulator.fields import Fraction, GpuCount, NonNeg, Strict


class Tranche(Strict):
    """``servers`` ordered in month ``month`` (0 = the first month of the horizon)."""

    month: Annotated[int, Field(ge=0, le=1200)] = 0
    servers: GpuCount


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
