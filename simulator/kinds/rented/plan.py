"""A rented option resolved: its shapes with their prices and links, its quota, provisioning
delay and billing rules (each rented kind's plan extends it)."""

from __future__ import annotations

from dataclasses import dataclass

from tco.pricing.records import Price
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.rented.fleet import Shape
from tco.simulator.kinds.rented.model import CloudBase


@dataclass(frozen=True, kw_only=True)
class CloudPlan(Plan):
    option: CloudBase
    shapes: tuple[Shape, ...]  # hardware and price are the first one's
    price: Price  # per instance-hour
    quota_instances: int | None
    delay_h: float
    billing_increment_s: float
    billing_minimum_s: float
