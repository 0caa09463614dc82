"""The service level the budget owner's people need: how long the 95th-percentile job may wait,
and what share of the work may be unable to run. An option that misses it is not an answer,
however cheap (issue 10 builds the recommendation on it; sweeps count how often it is met).

Defaults, and why: a p95 wait of 72 h (three days: a queue a lab or team absorbs over a weekend;
an assumption, stated wherever the level is used) and no work that cannot run at all.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tco.simulator.fields import Strict

DEFAULT_P95_WAIT_HOURS = 72.0


class ServiceLevel(Strict):
    """The level every option is held to."""

    p95_wait_hours: Annotated[float, Field(ge=0, le=1e6)] = DEFAULT_P95_WAIT_HOURS
    max_cannot_run_share: Annotated[float, Field(ge=0, le=1)] = 0.0  # of reference GPU-hours

    def misses(self, p95_wait_h: float, cannot_run_share: float) -> list[str]:
        """Why an option misses the level (empty: it meets it)."""
        out = []
        if p95_wait_h > self.p95_wait_hours:
            out.append(f"p95 wait {p95_wait_h:,.1f} h > {self.p95_wait_hours:g} h")
        if cannot_run_share > self.max_cannot_run_share:
            out.append(
                f"{cannot_run_share:.1%} of the work cannot run > {self.max_cannot_run_share:.1%}"
            )
        return out
