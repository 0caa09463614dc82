"""Rented capacity, one room: what every rented kind shares (``cloud``: the kind; ``model``:
what a scenario says; ``billing``; ``fleet``: which shape each job runs on; ``packing``: small
jobs sharing instances) and the kinds themselves, each registered on import: on-demand, bare
metal, Savings Plans, Capacity Blocks and spot."""

from tco.simulator.kinds.rented import (  # noqa: F401 (register)
    bare_metal,
    capacity_block,
    on_demand,
    savings_plan,
    spot,
)
