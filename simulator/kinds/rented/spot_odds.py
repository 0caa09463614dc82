"""What the odds of every answer draw for a rented option: on-demand prices within their move
(``CloudKind.uncertainties``); for a spot option (``SpotKind.uncertainties``) the spot price
between its zones' bounds, where interruptions sit in their advisor buckets, how scarce capacity
is, and on-demand prices when it falls back to them; each name declared here, where the inputs
live (``core.uncertain_names``)."""

from __future__ import annotations

from tco.simulator.core import defaults, uncertain_names
from tco.simulator.kinds.registry import KnownInput

uncertain_names.declare(
    __name__,
    "prices.on_demand",
    "prices.spot",
    "market.spot_interruption_quantile",
    "market.spot_scarcity",
)


Zone = tuple[str, float, float]  # an instance type, its lowest and highest zone's price / paid


def uncertainties(
    zone_spread: tuple[Zone, ...], rate_given: bool, capacity_given: bool, falls_back: bool
) -> list[KnownInput]:
    """The spot price between its zones' bounds, where interruptions sit in their buckets,
    how scarce capacity is, and on-demand prices when the option falls back to them."""
    out = []
    if zone_spread:
        low = min(lo for _, lo, _ in zone_spread)
        high = max(hi for _, _, hi in zone_spread)
        widest = max(zone_spread, key=lambda z: z[2] - z[1])
        if low < high:
            out.append(
                KnownInput(
                    "prices.spot",
                    "prices.spot",
                    low,
                    high,
                    min(max(1.0, low), high),
                    "the lowest and highest spot price over the region's AZs in the bundled"
                    f" snapshot (widest: {widest[0]}, {widest[1]:.2f}-{widest[2]:.2f} x the"
                    " price used); spot also moves over time (p4d: $2.47/h in one 2025"
                    " source, $8.05/h in another), which this range does not cover",
                )
            )
    if not rate_given:
        out.append(
            KnownInput(
                "market.spot_interruption_quantile",
                "market.spot_interruption_quantile",
                0.0,
                1.0,
                None,
                "anywhere within each type's Spot Instance Advisor bucket (its bounds;"
                " '>20%' taken up to 40 %, a guess)",
            )
        )
    if not capacity_given:
        low, high = defaults.SPOT_SCARCITY_RANGE
        out.append(
            KnownInput(
                "market.spot_scarcity",
                "market.spot_scarcity",
                low,
                high,
                None,
                f"the assumed spot capacity (chance and wait) from {low:g} to {high:g} x"
                " (ASSUMPTION: no measurement found)",
            )
        )
    if falls_back:
        out.append(on_demand_move())
    return out


def on_demand_move() -> KnownInput:
    low, mode, high = defaults.ON_DEMAND_MOVE
    return KnownInput(
        "prices.on_demand",
        "prices.on_demand",
        low,
        high,
        mode,
        "AWS cut on-demand GPU prices 25-44 % in June 2025 (AWS News Blog 2025-06-05); such a"
        " cut at a random month takes up to 22 % off a horizon's total; no rise is on record",
    )
