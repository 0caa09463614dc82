"""The answer a budget owner acts on: the cheapest choice that meets the service level.

Each option is judged against the scenario's service level (``scenario.service_level``). The
choices are the options as listed and, unless the scenario says ``search: given``, the mixes the
portfolio search composes of them (``advice.portfolio``): the cheapest mix that meets the level
is simulated as one more option of the result when it is cheaper than every listed option that
meets it, so the reports show its months, waits and prices like any other. The recommendation
is the cheapest option that meets the level; if none does, the one that comes closest (the
smallest relative excess over the limits) and what would fix it. The runner-up is the cheapest
option as listed.

For an option that misses the level and has a size to search (an owned cluster bought at once),
the smallest size that meets it is found by the kind's own search (``Kind.search``, on the same
job stream: common random numbers) and shown beside the recommendation, as the cheaper choice when
it is one. ``tco optimize`` searches every kind's choices.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from tco.pricing.book import PriceBook
from tco.simulator.advice import portfolio as mixes
from tco.simulator.advice.optimize import search_option
from tco.simulator.engine.findings import Portfolio, PortfolioPart, Recommendation, Resize
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import with_option
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
        return Resize(name, None, math.nan, largest.p95_wait_h, knob, largest.p95_delay_h)
    c = min(meeting, key=lambda c: c.knobs[knob])
    return Resize(name, int(c.knobs[knob]), c.cash_usd, c.p95_wait_h, knob, c.p95_delay_h)


def with_portfolio(
    prepared: Prepared, result: Result, book: PriceBook
) -> tuple[Prepared, Result, mixes.Search]:
    """The portfolio search over ``prepared``'s options; when its best mix meets the level for
    less than every listed option that does (and the scenario does not say ``search: given``),
    the model and result with that mix as one more option."""
    found = mixes.search(prepared, book)
    best = found.best()
    given = result.recommendation
    if best is None or prepared.scenario.search == "given":
        return prepared, result, found
    if given.cash_usd is not None and round(best.config.cash_usd, 2) >= round(given.cash_usd, 2):
        return prepared, result, found
    grown, result = with_option(prepared, result, best.option, book)
    return grown, result, found


def _finding(found: mixes.Search, result: Result) -> Portfolio | None:
    best = found.best()
    if best is None:
        return None
    c = best.config
    base: dict[str, Any] = {best.size_knob: best.size}
    if best.order_month is not None:
        base[mixes.ORDER_KNOB] = best.order_month
    parts = (
        PortfolioPart("base", best.base, best.base_kind, base),
        PortfolioPart("overflow", best.target, best.target_kind, dict(best.fitted)),
    )
    return Portfolio(
        option=best.option.name,
        words=best.words,
        parts=parts,
        wait_before_burst_h=best.wait_h,
        cash_usd=c.cash_usd,
        npv_usd=c.npv_usd,
        p95_delay_h=c.p95_delay_h,
        meets=c.meets_service_level,
        added=any(o.name == best.option.name for o in result.options),
    )


def recommend(
    prepared: Prepared, result: Result, book: PriceBook, found: mixes.Search | None = None
) -> Recommendation:
    """The recommendation of a run (``result`` simulated from ``prepared``; ``book``: the prices
    the resized clusters are planned with, the run's own; ``found``: the portfolio search, when
    one ran): the engine's, with the smallest size of every listed option that misses the level
    and has a size to search, the best mix and the runner-up among the options as listed."""
    listed = {o.name for o in prepared.scenario.options}
    if found is not None:
        listed -= {p.option.name for p in found.portfolios}
    found_resizes = (
        smallest_cluster(prepared, i, book)
        for i, p in enumerate(prepared.plans)
        if p.option.name in listed and not result.verdicts[p.option.name].meets
    )
    resizes = tuple(r for r in found_resizes if r is not None)
    rec = choose(result.options, result.verdicts, resizes)
    if found is None:
        return rec
    singles = [o for o in result.options if o.name in listed]
    runner = choose(singles, result.verdicts)
    return replace(
        rec,
        portfolio=_finding(found, result),
        evaluations=found.evaluations,
        runner_up=runner.option,
    )
