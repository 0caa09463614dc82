"""On-demand cloud instances: elastic, billed per second with a 60-second minimum, slowed by
virtualization."""

from __future__ import annotations

from typing import Literal

from tco.simulator.kinds.cloud import CloudBase, CloudKind, CloudPlan
from tco.simulator.kinds.registry import Context, register


class OnDemand(CloudBase):
    """Elastic cloud instances billed per second."""

    kind: Literal["on_demand"]


@register
class OnDemandKind(CloudKind[OnDemand, CloudPlan]):
    name = "on_demand"
    model = OnDemand
    label = "cloud on-demand"

    def plan(self, option: OnDemand, ctx: Context) -> CloudPlan:
        return self.cloud_plan(option, ctx)
