"""On-demand cloud instances: elastic, billed per second with a 60-second minimum, slowed by
virtualization."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np

from tco.pricing.providers import split as providers_split
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import OptionModel
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.proposals import Load, Proposal, Where, slug
from tco.simulator.kinds.registry import Context, register
from tco.simulator.kinds.rented.cloud import CloudKind
from tco.simulator.kinds.rented.fleet import job_costs
from tco.simulator.kinds.rented.model import CloudBase
from tco.simulator.kinds.rented.plan import CloudPlan


class OnDemand(CloudBase):
    """Elastic cloud instances billed per second."""

    kind: Literal["on_demand"]


@register
class OnDemandKind(CloudKind[OnDemand, CloudPlan]):
    name = "on_demand"
    model = OnDemand
    label = "cloud on-demand"
    can_do = frozenset({Can.PROPOSE, Can.FINISH, Can.PLACES})

    def plan(self, option: OnDemand, ctx: Context) -> CloudPlan:
        return self.cloud_plan(option, ctx)

    def propose(
        self,
        gpu: str,
        where: Where,
        ctx: Context,
        load: Load,
        site: Mapping[str, OptionModel],
    ) -> list[Proposal]:
        """Every shape of ``gpu`` at ``where``'s providers (in its regions) rented on demand,
        each job on the shape that finishes it for the least money (none when none is
        priced)."""
        entry: dict[str, Any] = {
            "name": f"catalog-{slug(gpu)}-on-demand",
            "kind": self.name,
            "gpus": {
                "model": gpu,
                "providers": where.providers,
                "regions": where.regions,
                "offers_since": where.offers_since,
                "price_basis": where.bases,
            },
        }
        option = OnDemand.model_validate(entry)
        try:
            shapes = self.shapes(option, self.at(option, ctx))
        except ScenarioError:  # no provider rents it at a usable price
            return []
        rented_at = sorted({providers_split(s.name)[0] for s in shapes})
        entry["gpus"] = {**entry["gpus"], "providers": rented_at}
        # The fleet rule's cost of each job that fits, its hours inside the horizon from its
        # arrival, before billing rounds it up: no play of this option costs less.
        usd = job_costs(load.jobs, shapes, load.horizon_h)
        bound = float(usd[np.isfinite(usd)].sum())
        return [
            Proposal(
                entry,
                f"{gpu} rented on demand at {', '.join(rented_at)} ({len(shapes)} shapes)",
                max(s.hardware.gpu_memory_gb for s in shapes),
                bound,
            )
        ]
