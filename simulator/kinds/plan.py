"""A plan: an option resolved into hardware and prices before anything is simulated.

Prices are fixed here (from the price book or the scenario), so a run is repeatable and the
simulation never does I/O. Each plan lists the figures it uses as quotes (``core.quote``), with
their source and date, for the result and the report. Each kind extends :class:`Plan` with what
its play and ledger need.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from tco.simulator.core.fields import OptionModel
from tco.simulator.core.quote import Quote
from tco.simulator.costs.carbon import Carbon
from tco.simulator.costs.ledger import Asset
from tco.simulator.costs.tax import TaxRules
from tco.simulator.workload.calibration import GpuSpeed
from tco.simulator.workload.speed import Hardware


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
    # Monthly USD by ledger category in the cash view only (the site's existing servers sold
    # at the start by an option that does not keep them: engine.existing).
    cash_only: Mapping[str, np.ndarray] = field(default_factory=dict)
    # Yearly escalation of running costs by ledger category (the escalation: block).
    escalation: Mapping[str, float] = field(default_factory=dict)
    # The scenario's horizon ends a project (after_horizon: ends): what the ledger owes for
    # after it is counted in its last month (costing.costs).
    project_ends: bool = False
    # Servers the plan sells outside its kind's ledger (the site's existing servers sold at the
    # start), for the tax law; and the scenario's tax (None: figures before tax).
    assets: tuple[Asset, ...] = ()
    tax: TaxRules | None = None
    # Market rental prices' forward curve, a multiple of today's price by month (None: today's
    # price throughout), and the volatility a year of their path in each future of the odds
    # (the scenario's market.rental_prices; costs.rental_path).
    rental_curve: np.ndarray | None = None
    rental_volatility: float = 0.0
    # The scenario's carbon: section resolved (its price, the site's grid); None: the plan was
    # made outside a scenario's run, and its ledger carries no footprint (``kinds.costing``).
    carbon: Carbon | None = None

    def rented_gpu(self) -> str:
        """The GPU the option's rentals run on: the one whose rental price path moves them."""
        return self.hardware.gpu
