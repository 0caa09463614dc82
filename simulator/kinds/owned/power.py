"""What the site says of an owned option's servers (``site:``): in the answer, what binds (its
power, its racks) when one more server would not fit, from the quotes its plan carries
(``checks.fits_site``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tco.simulator.kinds.owned.checks import (
    SITE_DRAWN,
    SITE_NEXT,
    SITE_POWER,
    SITE_RACKS,
    SITE_RACKS_NEXT,
    SITE_RACKS_USED,
)


def power_binds(name: str, quotes: Sequence[Any]) -> list[str]:
    """'power binds: 480 kW of 500 kW', 'racks bind: 12 of 12', when one more server would not
    fit the site."""
    q = {x.item: x for x in quotes}
    if not {SITE_DRAWN, SITE_POWER, SITE_NEXT} <= set(q):
        return []
    binds = []
    drawn, site, more = q[SITE_DRAWN], q[SITE_POWER], q[SITE_NEXT]
    if drawn.value + more.value > site.value + 1e-9:
        binds.append(
            f"power binds: {drawn.value:,.0f} kW of {site.value:,.0f} kW ({drawn.detail}, at"
            f" their maximum draw; site.it_kw: {site.detail})"
        )
    if {SITE_RACKS_USED, SITE_RACKS, SITE_RACKS_NEXT} <= set(q):
        used, racks, next_ = q[SITE_RACKS_USED], q[SITE_RACKS], q[SITE_RACKS_NEXT]
        if next_.value > racks.value:
            binds.append(
                f"racks bind: {used.value:,.0f} of {racks.value:,.0f} racks ({used.detail};"
                " site.racks)"
            )
    if not binds:
        return []
    return [f"{name}: {'; '.join(binds)}: one more server ({more.value:g} kW) would not fit."]
