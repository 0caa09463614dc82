"""What the site's power says of an owned option's servers (``site:``): in the answer, whether it
binds (one more server would not fit), from the quotes its plan carries (``checks.fits_site``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tco.simulator.kinds.owned.checks import SITE_DRAWN, SITE_NEXT, SITE_POWER


def power_binds(name: str, quotes: Sequence[Any]) -> list[str]:
    """'power binds: 480 kW of 500 kW' when one more server would not fit the site."""
    q = {x.item: x for x in quotes if x.item in (SITE_DRAWN, SITE_POWER, SITE_NEXT)}
    if len(q) < 3:
        return []
    drawn, site, more = q[SITE_DRAWN], q[SITE_POWER], q[SITE_NEXT]
    if drawn.value + more.value <= site.value + 1e-9:
        return []
    return [
        f"{name}: power binds: {drawn.value:,.0f} kW of {site.value:,.0f} kW ({drawn.detail},"
        f" at their maximum draw; site.it_kw: {site.detail}): one more server"
        f" ({more.value:g} kW) would not fit."
    ]
