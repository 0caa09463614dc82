"""The answer a budget owner acts on: the cheapest option that meets the service level.

Each option is judged against the scenario's service level (``scenario.service_level``). The
recommendation is the cheapest option (cash over the horizon) that meets it; if none does, the
one that comes closest (the smallest relative excess over the limits) and what would fix it.

For an option that misses the level and has a size to search (an owned cluster bought at once),
the smallest size that meets it is found by the kind's own search (``Kind.search``, on the same
job stream: common random numbers) and shown beside the recommendation, as the cheaper choice when
it is one. ``tco optimize`` searches every kind's choices.
"""

from __future__ import annotations

import math

from tco.pricing.book import PriceBook
from tco.simulator.advice.optimize import search_option
from tco.simulator.engine.findings import Recommendation, Resize
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import Result
from tco.simulator.engine.verdicts import choose
from tco.simulator.kinds import registry


def smallest_cluster(prepared: Prepared, index: int, book: PriceBook) -> Resize | None:
    """The smallest size of option ``index`` that meets the level, from its kind's search over
    the knobs it declares size it (``Kind.sizes``; None: the kind has no size to search, e.g.
    cloud options)."""
    option = prepared.plans[index].option
    sizes = registry.of(option).sizes
    if not sizes:
        return None
    name = option.name
    configs = search_option(prepared, index, book)
    sized = [c for c in configs if len(c.knobs) == 1 and next(iter(c.knobs)) in sizes]
    if not sized:
        return None
    knob = next(iter(sized[0].knobs))
    meeting = [c for c in sized if c.meets_service_level]
    if not meeting:
        largest = max(sized, key=lambda c: c.knobs[knob])
        return Resize(name, None, math.nan, largest.p95_wait_h, knob)  # the largest tried
    c = min(meeting, key=lambda c: c.knobs[knob])
    return Resize(name, int(c.knobs[knob]), c.cash_usd, c.p95_wait_h, knob)


def recommend(prepared: Prepared, result: Result, book: PriceBook) -> Recommendation:
    """The recommendation of a run (``result`` simulated from ``prepared``; ``book``: the prices
    the resized clusters are planned with, the run's own): the engine's, with the smallest size
    of every option that misses the level and has a size to search."""
    found = (
        smallest_cluster(prepared, i, book)
        for i, p in enumerate(prepared.plans)
        if not result.verdicts[p.option.name].meets
    )
    resizes = tuple(r for r in found if r is not None)
    return choose(result.options, result.verdicts, resizes)
