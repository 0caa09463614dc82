"""The answer a budget owner acts on: the cheapest choice that meets the service level, decided
over the futures (``advice.decision``), with what it adds to the run.

The choices are the options as listed and, unless the scenario says ``search: given`` or
``none``, the mixes the portfolio search composes of them (``advice.portfolio``), searched again
over the futures (``advice.robust``). A mix the decision names (the answer, or its runner-up) is
simulated as one more option of the result on the base job stream, so the reports show its
months, waits and prices like any other. With no futures drawn the base job stream decides
alone, by the same rule.

For an option that misses the level and has a size to search (an owned cluster bought at once),
the smallest size that meets it on the base job stream is found by the kind's own search
(``Kind.search``, common random numbers) and shown beside the recommendation.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from tco.pricing.book import PriceBook
from tco.simulator.advice import composing
from tco.simulator.advice import portfolio as mixes
from tco.simulator.advice.decision import Decision, Pick
from tco.simulator.advice.optimize import search_option
from tco.simulator.engine.findings import (
    MorePower,
    Odds,
    OptionOdds,
    Portfolio,
    PortfolioPart,
    Recommendation,
    Resize,
)
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import with_option
from tco.simulator.engine.verdicts import cheapest_index, choose
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


def with_picks(
    prepared: Prepared, result: Result, decision: Decision, book: PriceBook
) -> tuple[Prepared, Result]:
    """The model and result with each mix the decision names (the answer, its runner-up)
    simulated as one more option on the base job stream."""
    for pick in (decision.chosen, decision.closest, decision.runner_up):
        if pick is None or pick.option is None:
            continue
        if any(o.name == pick.name for o in result.options):
            continue
        prepared, result = with_option(prepared, result, pick.option, book)
    return prepared, result


def _finding(pick: Pick | None, found: mixes.Search | None, result: Result) -> Portfolio | None:
    """The mix to report (with what more site power would save), from ``_mix``."""
    mix = _mix(pick, found, result)
    best = None if found is None else found.best()
    if mix is None or found is None or best is None:
        return mix
    got = found.more_power.get(best.option.name)
    site = result.scenario.site
    if got is None or site is None:
        return mix
    freer, kw = got
    per_kw, source = site.build_cost()
    more = MorePower(
        freer.base_words or freer.words,
        freer.config.cash_usd,
        best.config.cash_usd,
        more_kw=kw,
        build_usd=kw * per_kw,
        build_source=source,
        build_months=site.build_months,
    )
    return replace(mix, more_power=more)


def _mix(pick: Pick | None, found: mixes.Search | None, result: Result) -> Portfolio | None:
    """The mix to report: the one the decision names, else the portfolio search's best on the
    base job stream (what a mix would have been)."""
    if pick is not None and pick.option is not None and pick.mix is not None:
        o = result.option(pick.name)
        best = pick.mix
        base = {k: v for k, v in pick.knobs.items() if k in (best.size_knob, composing.ORDER_KNOB)}
        fitted = {
            k: v
            for k, v in pick.knobs.items()
            if k not in (best.size_knob, composing.ORDER_KNOB, composing.WAIT_KNOB)
        }
        parts = (
            PortfolioPart(composing.BASE, best.base, best.base_kind, base),
            PortfolioPart(composing.OVERFLOW, best.target, best.target_kind, fitted),
        )
        return Portfolio(
            option=pick.name,
            words=_words(result, pick),
            parts=parts,
            wait_before_burst_h=float(pick.knobs[composing.WAIT_KNOB]),
            cash_usd=o.total_cash_usd,
            npv_usd=o.npv_usd,
            p95_delay_h=o.metrics.delays.p95_h,
            meets=result.verdicts[pick.name].meets,
            added=True,
            base_words=_base_words(result, pick.name),
        )
    best_mix = None if found is None else found.best()
    if best_mix is None:
        return None
    c = best_mix.config
    base_knobs: dict[str, Any] = {best_mix.size_knob: best_mix.size}
    if best_mix.order_month is not None:
        base_knobs[composing.ORDER_KNOB] = best_mix.order_month
    return Portfolio(
        option=best_mix.option.name,
        words=best_mix.words,
        parts=(
            PortfolioPart(composing.BASE, best_mix.base, best_mix.base_kind, base_knobs),
            PortfolioPart(
                composing.OVERFLOW, best_mix.target, best_mix.target_kind, dict(best_mix.fitted)
            ),
        ),
        wait_before_burst_h=best_mix.wait_h,
        cash_usd=c.cash_usd,
        npv_usd=c.npv_usd,
        p95_delay_h=c.p95_delay_h,
        meets=c.meets_service_level,
        added=any(o.name == best_mix.option.name for o in result.options),
        base_words=best_mix.base_words,
    )


def _words(result: Result, pick: Pick) -> str:
    """A mix in a sentence, from its plan on the base job stream (its parts' descriptions)."""
    o = result.option(pick.name)
    plan = o.description
    wait = float(pick.knobs[composing.WAIT_KNOB])
    order = pick.knobs.get(composing.ORDER_KNOB)
    until = "until they are in service"
    if order is not None:
        until = f"until they are in service (ordered in month {int(order) + 1})"
    head = _base_words(result, pick.name)
    burst = plan.split(" burst to ", 1)[-1]
    return f"{head}; {burst} for the jobs that wait {wait:g} h for them and for every job {until}"


def _base_words(result: Result, name: str) -> str:
    """A mix's base part in words: its plan's description up to where the burst begins."""
    return result.option(name).description.split("; jobs waiting")[0]


def _named(odds: Odds | None, decision: Decision) -> Odds | None:
    """The odds with the candidates named as the result names them (a mix's configuration by
    its mix's name)."""
    if odds is None:
        return None

    def renamed(o: OptionOdds | None, pick: Pick | None) -> OptionOdds | None:
        return o if o is None or pick is None else replace(o, option=pick.name)

    names = decision.names
    return replace(
        odds,
        chosen=renamed(odds.chosen, decision.chosen or decision.closest) or odds.chosen,
        runner_up=renamed(odds.runner_up, decision.runner_up),
        best_shares={names.get(k, k): v for k, v in odds.best_shares.items()},
        spreads={names.get(k, k): v for k, v in odds.spreads.items()},
        frontier=tuple(
            replace(f, option=None if f.option is None else names.get(f.option, f.option))
            for f in odds.frontier
        ),
    )


def recommend(
    prepared: Prepared,
    result: Result,
    book: PriceBook,
    decision: Decision,
    found: mixes.Search | None = None,
) -> Recommendation:
    """The recommendation of a run (``result``: the base run with the decision's mixes added,
    simulated from ``prepared``; ``book``: the prices the resized clusters are planned with):
    the decision's answer and runner-up, the smallest size of every listed option that misses
    the level on the base job stream and has a size to search, and the mix found."""
    listed = {o.name for o in prepared.scenario.options}
    if found is not None:
        listed -= {p.option.name for p in found.portfolios}
    found_resizes = (
        smallest_cluster(prepared, i, book)
        for i, p in enumerate(prepared.plans)
        if p.option.name in listed and not result.verdicts[p.option.name].meets
    )
    resizes = tuple(r for r in found_resizes if r is not None)
    base = choose(result.options, result.verdicts, resizes)
    odds = _named(decision.odds, decision)
    chosen = decision.chosen
    if chosen is None:
        near = decision.closest
        rec = replace(
            base,
            option=None,
            cash_usd=None,
            npv_usd=None,
            closest=None if near is None else near.name,
        )
        if odds is not None:
            rec = replace(rec, reason=_no_answer(odds))
    else:
        o = result.option(chosen.name)
        rec = replace(
            base,
            option=o.name,
            cash_usd=o.total_cash_usd,
            npv_usd=o.npv_usd,
            closest=None,
            reason=_reason(decision, base.option) if odds is not None else base.reason,
        )
    evaluations = 0 if found is None else found.evaluations
    portfolio = _finding(chosen if chosen is not None else decision.closest, found, result)
    on_base = base_stream_choice(prepared, result, found)
    if odds is not None and on_base is not None and rec.option is not None:
        name, words = on_base
        mine = "" if chosen is None or chosen.option is None else chosen.words
        if name != rec.option or (words and f"({words})" not in mine):
            was = decision.starts.get(name) if words else decision.standings.get(name)
            odds = replace(
                odds,
                replaced=f"{name} ({words})" if words else name,
                replaced_meets=None if was is None else was.share,
                replaced_streams=0 if was is None else was.streams,
                replaced_cash_mean_usd=None if was is None else was.cash_usd,
            )
    return replace(
        rec,
        portfolio=portfolio,
        evaluations=evaluations,
        runner_up=None if decision.runner_up is None else decision.runner_up.name,
        odds=odds,
    )


def base_stream_choice(
    prepared: Prepared, result: Result, found: mixes.Search | None
) -> tuple[str, str] | None:
    """(name, words) of what the rule picks on the base job stream alone among the options as
    listed and the portfolio search's best mix there (words: the mix's; empty for an option)."""
    listed = [o for o in result.options if o.name in {x.name for x in prepared.scenario.options}]
    pool: list[tuple[str, str, float, bool]] = [
        (o.name, "", o.total_cash_usd, result.verdicts[o.name].meets) for o in listed
    ]
    best_mix = None if found is None or prepared.scenario.search != "portfolio" else found.best()
    if best_mix is not None:
        c = best_mix.config
        size = registry.get(best_mix.base_kind).size_words(best_mix.size_knob, best_mix.size)
        words = f"{size}, bursting after {best_mix.wait_h:g} h"
        pool.append((best_mix.option.name, words, c.cash_usd, c.meets_service_level))
    i = cheapest_index([p[2] for p in pool], [p[3] for p in pool])
    return None if i is None else (pool[i][0], pool[i][1])


def _reason(decision: Decision, on_base: str | None) -> str:
    odds = decision.odds
    assert odds is not None
    assert odds.search is not None
    # (how often "meets" must hold is the service level's own sentence, beside this one)
    return (
        f"the least mean cash over {odds.futures:,} futures among the {odds.search.candidates:,}"
        " candidates raced (the options as listed and the mixes searched) that meet the level"
        f" on {odds.streams:,} job streams"
    )


def _no_answer(odds: Odds) -> str:
    c = odds.chosen
    return (
        f"no candidate meets the service level in {odds.confidence:.0%} of the"
        f" {odds.streams:,} job streams; the closest, {c.option}, meets it in"
        f" {c.probability_meets_level:.0%}"
    )
