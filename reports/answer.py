"""The answer in words, shared by the terminal, the HTML and the Markdown report: the
recommendation and what it rests on, the cheapest option, break-even, resale, notes.

Each group is its own function so a report can place it (the HTML puts warnings in a box and
break-even in a table); :func:`sentences` gives all of them in the terminal's order.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tco.reports import carbon, chargeback
from tco.reports.buying import catalog, sale_of, servers
from tco.reports.provenance import price_sources
from tco.reports.robustness import robustness as robustness
from tco.reports.taxes import beside, cash_words
from tco.reports.words import hours as hours
from tco.reports.words import more_or_less
from tco.reports.words import pct as pct
from tco.reports.words import reference_label as reference_label
from tco.reports.words import usd as usd
from tco.simulator.core.calendar import month_edges_h, month_index
from tco.simulator.core.quote import PRICE_FACTOR_UNIT
from tco.simulator.engine.findings import Resize, Verdict
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.engine.verdicts import by_cash, cents, cheapest_of, meets, miss_word
from tco.simulator.kinds import registry
from tco.simulator.kinds.runs import declared_measures
from tco.simulator.scenario.service_level import DEFAULT_CONFIDENCE
from tco.simulator.sweep.design import RENTAL_PATHS


def _cheapest_other(result: Result, o: OptionResult) -> OptionResult | None:
    """The cheapest other option that meets the service level (break-even against one that
    does not do the work would mislead)."""
    others = [x for x in result.options if x.name != o.name]
    return cheapest_of(others, lambda x: x.total_cash_usd, lambda x: meets(result, x.name))


def break_even_cell(result: Result, o: OptionResult) -> str:
    """For an owned option that meets the level: the month it breaks even against the cheapest
    rented option that meets it too (renting against renting has no break-even to speak of)."""
    if not registry.get(o.kind).buys_hardware or not meets(result, o.name):
        return "-"
    rented = [x for x in result.options if not registry.get(x.kind).buys_hardware]
    other = cheapest_of(rented, lambda x: x.total_cash_usd, lambda x: meets(result, x.name))
    if other is None:
        return "-"
    m = o.break_even[other.name]
    return f"never vs {other.name}" if m is None else f"{result.months[m - 1]} vs {other.name}"


def level_cell(result: Result, name: str) -> str:
    """An option against the level as the rule holds it, for a table: "meets", or "misses:"
    and why in a word (delay, wait, overdue, memory, capacity, can't run, odds)."""
    word = miss_word(result, name)
    return f"misses: {word}" if word else "meets"


def level_text(result: Result) -> str:
    """The service level in words, saying when it is the default, and over the futures when
    the answer was decided over them."""
    lvl = result.scenario.service_level
    unable = lvl.max_cannot_run_share
    text = lvl.words() + (
        ", no work unable to run"
        if unable == 0
        else f", at most {unable:.0%} of the work unable to run"
    )
    defaults = ["the delay limit"] if lvl.is_default else []
    odds = result.recommendation.odds
    if odds is not None:
        text += f"; met in at least {lvl.confidence:.0%} of the job streams"
        defaults += [f"the {lvl.confidence:.0%}"] if lvl.confidence == DEFAULT_CONFIDENCE else []
    if len(defaults) == 2:
        return text + " (both defaults: assumptions)"
    return text + (f" ({defaults[0]}: the default, an assumption)" if defaults else "")


def headline(result: Result, with_level: bool = True) -> str:
    """The answer first: the option that meets the service level for the least money, or why
    none does (``with_level``: the level in brackets, for a reader who sees it nowhere else)."""
    cur = result.scenario.money
    rec = result.recommendation
    level = f" ({level_text(result)})" if with_level else ""
    if rec.option is None:
        return f"No option meets the service level{level}. Closest: {rec.closest}. {rec.reason}."
    mix = rec.portfolio
    what = rec.option
    if mix is not None and mix.added and mix.option == rec.option:
        what = f"a mix, {mix.words} ({rec.option}, found by the portfolio search)"
    return (
        f"Recommended: {what} at {usd(rec.cash_usd or 0.0, cur)} cash {cash_words(result)}"
        f" over {result.scenario.horizon_months} months (NPV {usd(rec.npv_usd or 0.0, cur)})"
        f"{beside(result, rec.option)}: {rec.reason}{level}."
    )


def portfolio(result: Result) -> list[str]:
    """What the portfolio search tried and found, against the options as listed."""
    rec = result.recommendation
    mix = rec.portfolio
    if rec.evaluations == 0:
        return []
    cur = result.scenario.money
    runner = result.option(rec.runner_up) if rec.runner_up is not None else None
    tried = f"The portfolio search played {rec.evaluations:,} configurations of mixes"
    if mix is None or not mix.meets:
        return [f"{tried}; none meets the service level."]
    odds = rec.odds
    if mix.added and mix.option == rec.option:
        text = tried + " on the base job stream"
        if odds is not None and odds.search is not None:
            text += (
                f", and the decision {odds.search.plays:,} plays over the futures to size it"
                " for them"
            )
        if runner is None:
            return [f"{text}; no other choice meets the service level."]
        return [
            f"{text}. Runner-up: {runner.name} at {usd(runner.total_cash_usd, cur)} on the base"
            f" job stream, {more_or_less(runner.total_cash_usd - mix.cash_usd, cur)} than the"
            " mix."
        ]
    given = result.option(rec.option) if rec.option is not None else None
    if result.scenario.search == "given" and given is not None:
        saved = given.total_cash_usd - mix.cash_usd
        if saved > 0.005:
            return [
                f"{tried} (search: given keeps to the options as listed): {mix.words} would"
                f" meet the level on the base job stream for {usd(mix.cash_usd, cur)},"
                f" {usd(saved, cur)} less than {given.name}."
            ]
    if odds is not None:
        return [
            f"{tried}; the cheapest that meets the level on the base job stream ({mix.option},"
            f" {usd(mix.cash_usd, cur)}) was raced over the futures and is not the answer there"
            " (summary.json, recommendation.odds.search)."
        ]
    return [
        f"{tried}; the cheapest that meets the level ({mix.option}, {usd(mix.cash_usd, cur)})"
        " costs more than the recommendation."
    ]


def caveats(result: Result) -> list[str]:
    """What the recommended and the cheapest option rest on, in their kinds' words."""
    rec = result.recommendation
    out: list[str] = []
    options = tuple(result.scenario.options)
    drawn = tuple(result.scenario.uncertain)
    for o in result.options:
        if o.name in (rec.option, result.cheapest().name):
            spec = result.scenario.option(o.name)
            out.extend(registry.of(spec).caveats(spec, options, o.quotes, drawn))
            out.extend(_moved_prices(o))
    out = list(dict.fromkeys(out))  # a mix and its part say it once
    return out + _more_power(result) + _rental_paths(result)


def _more_power(result: Result) -> list[str]:
    """What more site power would save, where the site's power held the search's best mix."""
    mix = result.recommendation.portfolio
    more = None if mix is None else mix.more_power
    if more is None:
        return []
    cur = result.scenario.money
    text = (
        f"With power to spare the search would buy {more.words} for"
        f" {usd(more.cash_usd, cur)} on the base job stream,"
        f" {usd(more.held_cash_usd - more.cash_usd, cur)} less than the best the site's power"
        f" holds ({usd(more.held_cash_usd, cur)}): what more power is worth over the horizon"
    )
    if more.more_kw <= 0:
        return [text + ", before the cost of getting it."]
    per_kw = more.build_usd / more.more_kw
    net = more.net_usd
    verdict = f"which leaves {usd(net, cur)}" if net > 0 else f"{usd(-net, cur)} more than it saves"
    when = (
        "" if more.build_months is None else f", in {more.build_months} months (site.build_months)"
    )
    return [
        f"{text}. Its servers draw {more.more_kw:,.0f} kW beyond the site's: building that power"
        f" costs about {usd(more.build_usd, cur)} at {usd(per_kw, cur)} a kW ({more.build_source})"
        f"{when}, {verdict}; in colocation the kW-months are in the cash already, where space is"
        " to be had."
    ]


def _rental_paths(result: Result) -> list[str]:
    """Rental prices that take a path in each future: what the odds' spread rests on."""
    odds = result.recommendation.odds
    found = [s for p, _, s in (odds.inputs if odds else ()) if p == RENTAL_PATHS]
    return [f"Rental price paths: {s.split(' (')[0]}." for s in found]


MOVED = 0.05  # a rule that moves a quoted price by more than this is named in the answer


def _moved_prices(o: OptionResult) -> list[str]:
    """Prices a rule moved from their quote by more than 5 % (a server ordered years after its
    catalogue price's date), with the rule."""
    return [
        f"{o.name}: the server price quoted as of {q.as_of} is taken x{q.value:.3f} for the"
        f" month it is ordered in, by {q.detail}."
        for q in o.quotes
        if q.unit == PRICE_FACTOR_UNIT and abs(q.value - 1.0) > MOVED
    ]


def resizes(result: Result) -> list[str]:
    """Owned clusters that miss the level, resized until they meet it."""
    cur = result.scenario.money
    rec = result.recommendation
    out: list[str] = []
    for z in rec.resizes:
        if z.servers is None:
            out.append(
                f"{z.option}: no cluster size up to 64x meets the level either (p95 delay"
                f" {z.p95_delay_h:,.1f} h at the largest tried): {_held_back_by(result, z)}."
            )
            continue
        cheaper = rec.cash_usd is None or cents(z.cash_usd) < cents(rec.cash_usd)
        out.append(
            f"{'Cheaper and meeting the level: ' if cheaper else 'Meeting the level: '}"
            f"{z.option} with {_size(result, z)} at {usd(z.cash_usd, cur)} (p95 delay"
            f" {z.p95_delay_h:,.1f} h, p95 wait {z.p95_wait_h:,.1f} h, on the same jobs)."
        )
    return out


def _held_back_by(result: Result, z: Resize) -> str:
    """Why adding servers does not meet the level, in the order of the evidence: work that
    cannot run there at all, jobs that arrive before any server is in service, or else (the
    queue still too long at the largest size tried) capacity."""
    o = result.option(z.option)
    level = result.scenario.service_level
    if o.work.cannot_run_share > level.max_cannot_run_share:
        why = "; ".join(f"{n:,} jobs: {r}" for r, n in o.cannot_run.items())
        return f"{o.work.cannot_run_share:.1%} of the work cannot run on it ({why})"
    started = o.runs.start_h[~np.isnan(o.runs.start_h)]
    first = float(started.min()) if len(started) else result.horizon_h
    early = float((result.jobs.arrival_h < first - level.allowed_h).mean())
    if early > 0.05:  # more than the 5 % a p95 may leave out
        return (
            f"{early:.1%} of the jobs arrive more than {level.allowed_h:g} h before its first"
            f" job can start ({_month_of(result, first)}):"
            " the wait for the servers' delivery, which more servers do not shorten"
        )
    return "the queue stays too long even at the largest size tried"


def _month_of(result: Result, hour: float) -> str:
    sc = result.scenario
    return result.months[month_index(month_edges_h(sc.start, sc.horizon_months), hour)]


def recommendation(result: Result) -> list[str]:
    """The headline, what it rests on, and resized clusters that would meet the level."""
    return [headline(result), *caveats(result), *portfolio(result), *resizes(result)]


def _size(result: Result, z: Resize) -> str:
    """A resized option's size in its kind's words."""
    spec = result.scenario.option(z.option)
    return registry.of(spec).size_words(z.knob, z.servers if z.servers is not None else 0)


def cheapest(result: Result) -> list[str]:
    """The cheapest option, by how much, and whether it meets the service level."""
    cur = result.scenario.money
    verdicts = result.verdicts
    best = result.cheapest()
    ranked = by_cash(result.options, lambda o: o.total_cash_usd)
    line = (
        f"Cheapest over {result.scenario.horizon_months} months: {best.name} at "
        f"{usd(best.total_cash_usd, cur)} (cash, {cur.code})"
    )
    if len(ranked) > 1:
        nxt = ranked[1]
        line += f", {usd(nxt.total_cash_usd - best.total_cash_usd, cur)} less than {nxt.name}"
    if not meets(result, best.name):  # as the rule holds it: over the futures where drawn
        why = "; ".join(verdicts[best.name].reasons) or "in too few of the futures"
        line += f", but it misses the service level ({why})"
    return [line + "."]


def break_even_pairs(
    result: Result, owned_must_meet: bool = True
) -> list[tuple[OptionResult, OptionResult]]:
    """(owned, rented) pairs whose break-even means something: the rented option meets the
    service level (a break-even against renting that does not do the work would mislead), and so
    does the owned one unless ``owned_must_meet`` is False (its volume at equal cost still
    informs)."""
    owned = [
        o
        for o in result.options
        if registry.get(o.kind).buys_hardware and (meets(result, o.name) or not owned_must_meet)
    ]
    rented = [
        o
        for o in result.options
        if not registry.get(o.kind).buys_hardware and meets(result, o.name)
    ]
    return [(o, other) for o in owned for other in rented]


def _break_evens(result: Result) -> list[str]:
    out: list[str] = []
    for o, other in break_even_pairs(result):
        m = o.break_even[other.name]
        if m is None:
            out.append(
                f"Buying ({o.name}) does not break even against {other.name} within the horizon."
            )
        else:
            out.append(
                f"Buying ({o.name}) breaks even against {other.name} in month {m} "
                f"({result.months[m - 1]})."
            )
    return out


def resale(result: Result) -> list[str]:
    """How much of an owner's standing rests on selling the servers at the horizon."""
    cur = result.scenario.money
    out = []
    for o in result.options:
        sale = sale_of(result, o.name)
        if sale is None:
            continue
        at_end, replaced, how = sale.at_horizon_usd, sale.before_usd, sale.basis
        back = at_end + replaced
        if replaced > 0:  # a refresh sold the first generation before the horizon
            text = (
                f"{o.name} counts {usd(back, cur)} back from selling its servers"
                f" ({usd(replaced, cur)} for those replaced at the refresh,"
                f" {usd(at_end, cur)} at the horizon; {how})"
            )
        else:
            text = f"{o.name} counts {usd(back, cur)} back from selling its servers at the horizon"
            text += f" ({how})"
        if sale.band_usd is not None:
            low, high = sale.band_usd
            text += f"; across the band, {usd(low, cur)} to {usd(high, cur)} at the horizon"
        other = _cheapest_other(result, o)
        lead = None if other is None else other.total_cash_usd - o.total_cash_usd
        if other is not None and lead is not None and lead > 0:
            if back >= lead:
                text += (
                    f": without it, its lead of {usd(lead, cur)} over {other.name} would be gone"
                )
            else:
                text += f": {back / lead:.0%} of its lead of {usd(lead, cur)} over {other.name}"
        else:
            text += f"; without it, it would cost {usd(o.total_cash_usd + back, cur)}"
        out.append(text + ".")
    return out


def _volumes(result: Result, verdicts: Mapping[str, Verdict]) -> list[str]:
    out: list[str] = []
    ref = reference_label(result)
    for v in result.break_even_volumes:
        if not meets(result, v.rented):
            continue  # not against renting that does not do the work
        if v.scale is None:
            out.append(f"Owning ({v.owned}) against {v.rented}: {v.note}.")
        elif v.utilisation is not None and v.utilisation > 1.0:
            out.append(
                f"Owning ({v.owned}) against {v.rented}: never; owning costs more even fully"
                f" used (the same cost would take {v.utilisation:.0%} utilisation)."
            )
        else:
            out.append(
                f"Owning ({v.owned}) costs the same as {v.rented} at"
                f" {v.utilisation or 0.0:.0%} utilisation ({v.gpu_hours_per_month or 0.0:,.0f}"
                f" {ref} GPU-hours of work a month, {v.scale:.2f}x this scenario's); above it,"
                " owning is cheaper."
            )
    return out


def open_work(result: Result) -> list[str]:
    """Work an option could not do: jobs that cannot run, jobs still queued at the horizon."""
    out = []
    for o in result.options:
        if o.waits.censored or o.cannot_run:
            parts = []
            if o.cannot_run:
                parts.append(", ".join(f"{n:,} cannot run ({r})" for r, n in o.cannot_run.items()))
            if o.waits.censored:
                parts.append(f"{o.waits.censored:,} still queued at the horizon")
            out.append(f"{o.name}: " + "; ".join(parts) + ".")
    return out


def remarks(result: Result) -> list[str]:
    """What each option's kind finds worth saying about its run (``Kind.remarks``: instances
    mostly idle), option by option; then what each declared measure finds worth saying
    (``Measure.remark``: GPUs stranded by fragmentation), measure by measure."""
    said = [
        text for o in result.options for text in registry.get(o.kind).remarks(o.name, o.metrics)
    ]
    for m in declared_measures():
        if m.remark is not None:
            for o in result.options:
                text = m.remark(
                    o.name, o.metrics.measures.get(m.name, 0.0), o.metrics.paid_gpu_hours
                )
                if text is not None:
                    said.append(text)
    return said


def break_evens(result: Result) -> list[str]:
    """When buying breaks even, and at which volume of work owning and renting cost the same."""
    return _break_evens(result) + _volumes(result, result.verdicts)


def sentences(result: Result) -> list[str]:
    """The answer in words, in the terminal's order: the recommendation, the cheapest option
    (and whether it meets the service level), when buying breaks even, resale, open work, waste,
    how robust the answer is, trace notes, price sources."""
    return [
        *recommendation(result),
        *servers(result),
        *catalog(result),
        *cheapest(result),
        *break_evens(result),
        *resale(result),
        *open_work(result),
        *remarks(result),
        *robustness(result),
        *(f"Trace: {note}." for note in result.jobs.notes),
        *carbon.lines(result),
        *chargeback.line(result),
        *price_sources(result),
    ]
