"""The largest mix a site can power (``site:``): a mix's search sizes its servers within it, so
neither the search on the base job stream nor the race over futures plays a cluster the site
could not hold (issue 56, item 1)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import OptionModel
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.simulate import plan_option, revised
from tco.simulator.engine.verdicts import cents
from tco.simulator.kinds.site import SiteFull

Sized = Callable[[int], OptionModel]  # the mix at a size of its servers


def within(prepared: Prepared, book: PriceBook, sized: Sized, floor: int, limit: int) -> int:
    """The largest size from ``floor`` up to ``limit`` whose servers the site can power (a
    larger one is not bought): bisected on plans alone, nothing played."""
    if prepared.scenario.site is None or fits(prepared, book, sized, limit):
        return limit
    lo, hi = floor, limit  # lo fits (or is the floor), hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(prepared, book, sized, mid) else (lo, mid)
    return lo


def fits(prepared: Prepared, book: PriceBook, sized: Sized, n: int) -> bool:
    """Whether size ``n`` of the mix's servers fits the site's power."""
    sc = prepared.scenario
    try:
        plan_option(sc, len(sc.options), sized(n), book, prepared.file)
    except SiteFull:
        return False
    except (ValueError, ScenarioError):
        return True  # refused for another reason: said where it is played
    return True


def without_site(prepared: Prepared, book: PriceBook) -> Prepared:
    """The same scenario and jobs with power to spare: what the search would buy then says what
    more power would save."""
    return revised(prepared, book, lambda data: data.__setitem__("site", None))


def more_power(
    best: Any, mixers: Mapping[str, Any], freed: Callable[[Any], Any]
) -> tuple[dict[str, tuple[Any, float]], int]:
    """When the site's power held the best mix (a ``portfolio.Portfolio``) at its largest size:
    the same mix searched with power to spare (``freed``: its ``portfolio.Mixer`` again, on the
    scenario without its site), its best by mix name when it costs less with the kW its servers
    would draw beyond the site's, and the plays that took (none when the best size fits with
    room: more power would change nothing)."""
    if best is None or not (held := mixers[best.option.name]).site_bound:
        return {}, 0
    if best.size < held.limit:
        return {}, 0
    freer = freed(held)
    again = freer.search()
    if again is None or cents(again.config.cash_usd) >= cents(best.config.cash_usd):
        return {}, freer.spent
    return {held.name: (again, beyond(held.prepared, held.book, again.option))}, freer.spent


def beyond(prepared: Prepared, book: PriceBook, option: OptionModel) -> float:
    """kW ``option``'s servers would draw beyond the site's power (0: within it, or what they
    lack is racks or cooling)."""
    sc = prepared.scenario
    try:
        plan_option(sc, len(sc.options), option, book, prepared.file)
    except SiteFull as exc:
        return exc.more_kw
    except (ValueError, ScenarioError):
        return 0.0
    return 0.0
