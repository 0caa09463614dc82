"""What the site says of an owned option's servers (``site:``): the PUE they pay (their own,
else the site's, else the industry's); in the answer, what binds (its power, its
racks) when one more server would not fit, from the quotes its plan carries
(``checks.fits_site``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tco.pricing.carbon import Pue
from tco.simulator.core import defaults
from tco.simulator.core.quote import Quote
from tco.simulator.kinds.owned.checks import (
    SITE_DRAWN,
    SITE_NEXT,
    SITE_POWER,
    SITE_RACKS,
    SITE_RACKS_NEXT,
    SITE_RACKS_USED,
)
from tco.simulator.kinds.owned.model import Owned
from tco.simulator.kinds.registry import Context


def paid_pue(option: Owned, ctx: Context) -> tuple[Owned, Pue, Quote | None]:
    """The PUE ``option``'s servers pay, with its source and how sure: its own ``power.pue``
    where it states one, else the site's (its PUE or its cooling's: the option then pays it, and
    the plan's PUE quote says so, returned), else Uptime's industry average (a guess)."""
    if "pue" in option.power.model_fields_set:
        return option, Pue(option.power.pue, "the option's power.pue", "medium"), None
    given = None if ctx.site is None else ctx.site.pue_of()
    if given is None:
        return option, Pue(option.power.pue, defaults.PUE_SOURCE, "low"), None
    value, source = given
    power = option.power.model_copy(update={"pue": value})
    quote = Quote("PUE", value, "ratio", "scenario", "undated", source)
    stated = ctx.site is not None and ctx.site.pue is not None
    pue = Pue(value, source, "medium" if stated else "low")
    return option.model_copy(update={"power": power}), pue, quote


def with_quote(quote: Quote | None, *quotes: Quote) -> tuple[Quote, ...]:
    """``quotes`` with ``quote`` in place of the one of its item (as they were: None)."""
    if quote is None:
        return quotes
    return tuple(quote if q.item == quote.item else q for q in quotes)


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
