"""The scenario's ``escalation:`` block: running costs that grow by the year."""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field

from tco.simulator.core.fields import Strict

Rate = Annotated[float, Field(ge=-0.5, le=1)]


class Escalation(Strict):
    """Yearly growth of running costs, applied month by month ((1 + e)^(m/12) in month m) to the
    ledger category of the same name; the discount rate still applies on top for NPV. E.g. US
    electricity was 4-22 % dearer in April 2025 than a year before (facility_power.csv).
    ``rentals`` moves market rental prices (on demand and spot, every provider: the categories
    declared ``rental``) as a forward curve of constant growth (``rental_curve``; the plan's
    ``rental_curve``, as a stated curve does), and as a path in each future
    when ``uncertain:`` draws it (``market.rental_prices`` draws a fitted path instead); a
    commitment's rate (a Savings Plan's) stays as bought.
    H100 rental prices fell 43 % in the year to 2025-10 and rose 38 % in the five months after
    (shared hardware data, gpu_price_history.csv: $2.99 in 2024-10, $1.70 in 2025-10, $2.35 in
    2026-03): no rate is assumed; the scenario states one."""

    power: Rate = 0.0
    facility: Rate = 0.0
    support: Rate = 0.0
    staff: Rate = 0.0
    rentals: Rate = 0.0

    def rates(self) -> dict[str, float]:
        """The yearly rates of the categories of the same name (``rentals`` apart: it moves
        every rental category, ``rental_curve``)."""
        return {k: v for k, v in self.model_dump().items() if v and k != "rentals"}

    def rental_curve(self, months: int) -> np.ndarray | None:
        """``rentals`` as a forward curve: (1 + e)^(m/12) in month m (None: no growth)."""
        if not self.rentals:
            return None
        return np.asarray((1.0 + self.rentals) ** (np.arange(months) / 12.0))
