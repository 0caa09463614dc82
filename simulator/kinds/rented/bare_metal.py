"""Bare-metal instances: rented by the hour, no virtualization overhead."""

from __future__ import annotations

from typing import Literal

from tco.simulator.core import defaults
from tco.simulator.kinds.registry import Context, register
from tco.simulator.kinds.rented.cloud import CloudKind
from tco.simulator.kinds.rented.model import CloudBase
from tco.simulator.kinds.rented.plan import CloudPlan


class BareMetal(CloudBase):
    """Bare-metal instances rented by the hour; no virtualization overhead."""

    kind: Literal["bare_metal"]


@register
class BareMetalKind(CloudKind[BareMetal, CloudPlan]):
    name = "bare_metal"
    model = BareMetal
    label = "bare-metal instances"
    bare_metal = True
    billing_increment_s = defaults.BARE_METAL_BILLING_INCREMENT_S
    billing_minimum_s = defaults.BARE_METAL_BILLING_MINIMUM_S
    price_item = "bare-metal price"

    def plan(self, option: BareMetal, ctx: Context) -> CloudPlan:
        return self.cloud_plan(option, ctx)
