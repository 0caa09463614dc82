"""A plan: an option resolved into hardware and prices before anything is simulated.

Prices are fixed here (from the price book or the scenario), so a run is repeatable and the
simulation never does I/O. Each plan lists the figures it uses as :class:`Quote` s, with their
source and date, for the result and the report. Each kind extends :class:`Plan` with what its
play and ledger need.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from tco.pricing.records import Price
from tco.simulator import defaults
from tco.simulator.calibration import GpuSpeed
from tco.simulator.fields import OptionModel
from tco.simulator.speed import Hardware


@dataclass(frozen=True)
class Quote:
    """A number the result depends on, with its unit, source and date."""

    item: str
    value: float
    unit: str
    source: str
    as_of: str
    detail: str


def input_quote(item: str, value: float, unit: str, default_key: str) -> Quote:
    """A cost input: the documented default with its source, or the scenario's own value."""
    default, source = defaults.SOURCES[default_key]
    if value == default:
        return Quote(item, value, unit, "default", "see detail", source)
    return Quote(item, value, unit, "scenario", "undated", "set in the scenario file")


def price_quote(item: str, p: Price) -> Quote:
    """An hourly price from the price book or the scenario."""
    return Quote(item, p.usd_per_hour, "USD/h", p.source, p.as_of, p.detail)


def speed_quote(speed: GpuSpeed) -> Quote:
    """The speed score an option's GPU runs at (all workloads, one GPU) and its basis."""
    return Quote(
        f"{speed.gpu} training speed",
        round(speed.score(), 4),
        "x A100 SXM 40GB",
        speed.basis,
        "2024-07-24" if speed.basis != "scenario" else "undated",
        f"{speed.source}; one standard deviation spans x{speed.spread:.2f}",
    )


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What every plan has: the option it comes from, where jobs run, the figures used and a
    one-line description for people."""

    option: OptionModel
    hardware: Hardware
    quotes: tuple[Quote, ...]
    description: str
    # Monthly USD by ledger category that do not depend on the jobs (the data: block).
    fixed_costs: Mapping[str, np.ndarray] = field(default_factory=dict)
    # Yearly escalation of running costs by ledger category (the escalation: block).
    escalation: Mapping[str, float] = field(default_factory=dict)
