"""The scenario's ``escalation:`` block: running costs that grow by the year."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tco.simulator.core.fields import Strict

Rate = Annotated[float, Field(ge=-0.5, le=1)]


class Escalation(Strict):
    """Yearly growth of running costs, applied month by month ((1 + e)^(m/12) in month m) to the
    ledger category of the same name; the discount rate still applies on top for NPV. E.g. US
    electricity was 4-22 % dearer in April 2025 than a year before (facility_power.csv)."""

    power: Rate = 0.0
    facility: Rate = 0.0
    support: Rate = 0.0
    staff: Rate = 0.0

    def rates(self) -> dict[str, float]:
        return {k: v for k, v in self.model_dump().items() if v}
