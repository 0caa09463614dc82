"""The decision in its first lines, for the terminal and the report: what to choose and for how
much, the service level it meets, how sure that is, and what comes second; then the few
sentences a budget owner needs beside the table (``key_sentences``), the rest being details.
"""

from __future__ import annotations

import numpy as np

from tco.pricing import providers
from tco.pricing.records import BASIS_WORDS
from tco.reports import carbon
from tco.reports.answer import (
    caveats,
    headline,
    level_text,
    reference_label,
    usd,
)
from tco.reports.buying import capital, catalog, sale_of, servers
from tco.reports.decision import chosen, runner_up
from tco.reports.provenance import cloud_quotes
from tco.reports.robustness import lead_sensitivity
from tco.reports.taxes import beside, cash_words, tax_lines
from tco.reports.words import more_or_less, share
from tco.simulator.advice.composing import OVERFLOW
from tco.simulator.advice.decision import JOB_PLAYS_ENV
from tco.simulator.costs.money import Currency
from tco.simulator.engine.findings import Portfolio
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.engine.verdicts import meets
from tco.simulator.kinds import registry


def lead(result: Result) -> list[str]:
    """The recommendation, its cost, the level, how sure, and the runner-up: the first lines."""
    cur = result.scenario.money
    rec = result.recommendation
    odds = rec.odds
    if rec.option is None:
        lines = [headline(result)]
    else:
        what = rec.option
        mix = rec.portfolio
        if mix is not None and mix.added and mix.option == rec.option:
            what = mix_in_words(mix)
        mean = ""
        if odds is not None:
            mean = (
                f"; {usd(odds.chosen.cash_mean_usd, cur)} on average over {odds.futures:,} futures"
            )
        lines = [
            f"Recommended: {what}, {usd(rec.cash_usd or 0.0, cur)} cash {cash_words(result)}"
            f" over {result.scenario.horizon_months} months (NPV {usd(rec.npv_usd or 0.0, cur)})"
            f"{beside(result, rec.option)}{mean}.",
            f"Service level: {level_text(result)}.",
            f"Why: {rec.reason}.",
            *tax_lines(result),
            *carbon.price_line(result),
            *horizon_rule(result),
            *same_work(result),
            *capital(result),
            *bought_to_resell(result),
            *rented_from(result),
        ]
    if odds is not None:
        c = odds.chosen
        met = round(c.probability_meets_level * odds.streams)
        lines.append(
            f"How sure: meets the level in {met:,} of {odds.streams:,} job streams"
            f" ({c.probability_meets_level:.0%}); the best choice in"
            f" {round(c.probability_best * odds.futures):,} of {odds.futures:,} futures"
            f" ({share(c.probability_best, c.probability_best_se)}); cash"
            f" {usd(c.cash_p10_usd, cur)} to {usd(c.cash_p90_usd, cur)} (P10-P90){outside(result)};"
            f" expected regret {usd(c.regret_mean_usd, cur)}."
        )
        lines += budget_line(result)
    return lines + runner_up_line(result)


def mix_in_words(mix: Portfolio) -> str:
    """A mix the search found as the budget owner says it: the servers, what is rented and
    when, and its name in the table."""
    burst = next((p.option for p in mix.parts if p.role == OVERFLOW), None)
    if not mix.base_words or burst is None:
        return f"{mix.option} (a mix the portfolio search found)"
    return (
        f"{mix.base_words}, with {burst} for jobs that wait over {mix.wait_before_burst_h:g} h"
        f" and until the servers are in service (the search's mix, in the table as {mix.option})"
    )


def budget_line(result: Result) -> list[str]:
    """When the decision's budget stopped its search: what was not played to the end, and
    what was never played (none when every candidate was decided)."""
    odds = result.recommendation.odds
    s = None if odds is None else odds.search
    if s is None or not s.ran_out:
        return []
    cut = [d.candidate for d in s.dropped if d.why.startswith("the budget ran out")]
    parts = [f"{len(cut):,} not played on every job stream"] if cut else []
    parts += [f"{len(s.unplayed):,} never played"] if s.unplayed else []
    said = ": " + " and ".join(parts) + " (summary.json names them)" if parts else ""
    return [
        f"The search stopped on its budget of {s.budget_job_plays:,} job-plays ({JOB_PLAYS_ENV}"
        f" raises it){said}; the answer is the best of what it played."
    ]


def horizon_rule(result: Result) -> list[str]:
    """Which rule the totals follow for what is contracted past the horizon (none when no
    option has anything there): counted in full when the project ends, apart when it continues."""
    cur = result.scenario.money
    every = {o.name: sum(o.ledger.owed_after_horizon.values()) for o in result.options}
    owed = {name: usd for name, usd in every.items() if usd > 0.005}  # (over half a cent)
    rec = result.recommendation
    decided = {rec.option, rec.runner_up}
    ends = result.scenario.after_horizon == "ends"
    if not owed or not (ends or decided & set(owed)):  # said where it moves the decision
        return []
    named = sorted(owed.items(), key=lambda kv: -kv[1])
    shown = ", ".join(f"{usd(v, cur)} in {name}" for name, v in named[:3])
    more = f" and {len(named) - 3} more" if len(named) > 3 else ""
    if result.scenario.after_horizon == "ends":
        return [
            f"The project ends with the horizon (after_horizon: ends): commitments and leases"
            f" running past it are counted in full ({shown}{more})."
        ]
    return [
        f"The horizon is a window on a continuing operation (after_horizon: continues): what is"
        f" committed past it ({shown}{more}) is the next window's cost, not in these totals; a"
        " project that ends here says after_horizon: ends."
    ]


def rented_from(result: Result) -> list[str]:
    """Where the recommendation's rented compute is bought, and on what prices, when it came
    from the catalog search or rests on anything but list prices: each provider's share of its
    compute and the basis of its prices (a marketplace's median listing says so). None else."""
    name = result.recommendation.option
    if name is None:
        return []
    places = result.option(name).places
    if places is None or places.bases is None or not len(places.usd):
        return []
    spend: dict[tuple[str, str], float] = {}
    for i, place in enumerate(places.names):
        usd = float(places.usd[places.where == i].sum())
        if usd > 0:
            key = (providers.split(place)[0], places.bases[i])
            spend[key] = spend.get(key, 0.0) + usd
    total = sum(spend.values())
    from_catalog = any(c.option == name for c in result.candidates)
    if total <= 0 or not (from_catalog or any(b != "list" for _, b in spend)):
        return []
    parts = [
        f"{provider} ({usd / total:.0%} of its compute, {BASIS_WORDS[basis]})"
        for (provider, basis), usd in sorted(spend.items(), key=lambda kv: -kv[1])
    ]
    shown = ", ".join(parts[:3]) + (f" and {len(parts) - 3} more" if len(parts) > 3 else "")
    return [f"It rents from {shown}."]


def bought_to_resell(result: Result) -> list[str]:
    """When the recommendation sells servers within a year of their delivery: what it buys,
    what comes back (a seller's price, after the months a sale takes) and how much of its lead
    over the runner-up rests on that sale (none otherwise)."""
    name = result.recommendation.option
    if name is None:
        return []
    o = result.option(name)
    sale = sale_of(result, name)
    if sale is None or sale.quick_usd <= 0:
        return []
    cur = result.scenario.money
    back = sale.quick_usd / sale.quick_bought_usd
    line = (
        f"It buys servers for {usd(sale.quick_bought_usd, cur)} and sells them within a year of"
        f" delivery for {usd(sale.quick_usd, cur)} back ({back:.0%}, what a seller receives"
        " after the months a sale takes)"
    )
    second = runner_up(result)
    lead = None if second is None else result.option(second).total_cash_usd - o.total_cash_usd
    if second is not None and lead is not None and lead > 0:
        if sale.quick_usd >= lead:  # the whole lead rests on it
            line += (
                f": its {usd(lead, cur)} lead over {second} rests on that resale (without it,"
                f" {usd(sale.quick_usd - lead, cur)} more than {second})"
            )
        else:
            rests = sale.quick_usd / lead
            line += f": {rests:.0%} of its {usd(lead, cur)} lead over {second} rests on it"
    return [line + "."]


# Finishing the unfinished work is said in the first lines when it is this share of an
# option's total or more (less is in the details: ``answer.open_work``).
MATERIAL_SHARE = 0.01


def same_work(result: Result) -> list[str]:
    """Whether the options are compared on the same work: when the operation continues, what
    finishing the work unfinished at the horizon adds to an option's totals; when the project
    ends, how much of the work the options that leave some undone deliver by the end (said
    when an option's figure is material; a few at most)."""
    cur = result.scenario.money
    end_h = result.horizon_h
    if result.scenario.after_horizon == "ends":
        short = [o for o in result.options if o.work.finished_share < 1 - 1e-6 and o.work.overdue]
        if not short:
            return []
        named = ", ".join(
            f"{o.name} {o.work.finished_share:.0%}{_last_end(o, end_h)}" for o in short[:3]
        )
        more = f" and {len(short) - 3} more" if len(short) > 3 else ""
        return [
            f"Work finished by the end (after_horizon: ends): {named}{more}; work not done by"
            " the end is late, so an option that leaves it undone misses the level whatever it"
            " costs."
        ]
    added = [(o, o.ledger.notes.get("to_finish_after_horizon_usd", 0.0)) for o in result.options]
    big = [(o, x) for o, x in added if x > MATERIAL_SHARE * max(o.total_cash_usd, 1.0)]
    if not big:
        return []
    big.sort(key=lambda ox: -ox[1])
    # (when the last job ends is in jobs.csv: the first screen keeps to the money)
    named = "; ".join(f"{usd(x, cur)} of {o.name}'s {_before_tax(o, cur)}" for o, x in big[:3])
    more = f"; and {len(big) - 3} more" if len(big) > 3 else ""
    return [
        "Totals include finishing the work running or queued at the horizon at each option's"
        f" prices (after_horizon: continues): {named}{more}."
    ]


def _before_tax(o: OptionResult, cur: Currency) -> str:
    """An option's total before tax (the figure a cost to finish its work is a part of)."""
    t = o.metrics.tax
    if t is None or not t.after_tax:
        return usd(o.total_cash_usd, cur)
    return f"{usd(t.before_usd, cur)} before tax"


def _last_end(o: OptionResult, horizon_h: float) -> str:
    """Where an option's last job would end, when past the horizon ('' otherwise)."""
    ends = o.runs.end_h[~np.isnan(o.runs.end_h)]
    last = float(ends.max()) if len(ends) else 0.0
    if last <= horizon_h:
        return ""
    return f" (its last job ends at hour {last:,.0f} of {horizon_h:,.0f})"


def replaced_lines(result: Result) -> list[str]:
    """The base job stream's pick when the futures pick another (none otherwise)."""
    rec = result.recommendation
    if rec.odds is None or rec.odds.replaced is None or rec.option is None:
        return []
    return [replaced_line(result)]


def replaced_line(result: Result) -> str:
    """What the base job stream alone would have picked, and why the futures do not."""
    odds = result.recommendation.odds
    assert odds is not None and odds.replaced is not None
    cur = result.scenario.money
    head = f"On the base job stream alone the rule picks {odds.replaced}"
    share, n = odds.replaced_meets, odds.replaced_streams
    if share is None or n == 0:
        return head + "; over the futures another meets the level for less."
    met = round(share * n)
    if share < odds.confidence:
        return (
            f"{head}; over the futures it meets the level in {met} of the {n} job streams it was"
            f" played on ({share:.0%}, {odds.confidence:.0%} needed)."
        )
    more = more_or_less((odds.replaced_cash_mean_usd or 0.0) - odds.chosen.cash_mean_usd, cur)
    return (
        f"{head}; over the futures it meets the level in {met} of {n} job streams but costs"
        f" {more} on average."
    )


def outside(result: Result) -> str:
    """Where the base run's cash lies when the futures' P10-P90 does not hold it (its inputs as
    written sit at one end of their ranges), so the two figures are not read as contradicting
    each other."""
    rec, odds = result.recommendation, result.recommendation.odds
    if rec.cash_usd is None or odds is None:
        return ""
    c, cur = odds.chosen, result.scenario.money
    if rec.cash_usd > c.cash_p90_usd:
        side = "more"
    elif rec.cash_usd < c.cash_p10_usd:
        side = "less"
    else:
        return ""
    return (
        f"; the base run's {usd(rec.cash_usd, cur)}, every input as written, costs {side} than"
        " nine futures in ten"
    )


def runner_up_line(result: Result) -> list[str]:
    """What comes second, how much more or less it costs, and its odds (none without a
    recommendation)."""
    rec, cur = result.recommendation, result.scenario.money
    second = runner_up(result)
    if second is None or rec.option is None:
        return []
    r = result.option(second)
    gap = more_or_less(r.total_cash_usd - (rec.cash_usd or 0.0), cur)
    odds = rec.odds
    if odds is not None and odds.runner_up is not None and odds.runner_up.option == second:
        ro = odds.runner_up
        mean = more_or_less(ro.cash_mean_usd - odds.chosen.cash_mean_usd, cur)
        return [
            f"Runner-up: {second}, {usd(r.total_cash_usd, cur)} ({gap} on the base job stream,"
            f" {mean} on average over the futures); meets the level in"
            f" {ro.probability_meets_level:.0%} of the job streams, the best choice in"
            f" {ro.probability_best:.0%} of the futures."
        ]
    line = f"Runner-up: {second}, {usd(r.total_cash_usd, cur)} ({gap})"
    if not meets(result, second):
        line += "; it misses the level"
    return [line + "."]


def decision_break_even(result: Result) -> list[str]:
    """When the answer and its runner-up are one owned and one rented option: the month owning
    breaks even and the utilisation at which both cost the same (only within 0-100 %)."""
    best, second = chosen(result), runner_up(result)
    if best is None or second is None:
        return []
    pair = [result.option(best), result.option(second)]
    owned = [o for o in pair if registry.get(o.kind).buys_hardware]
    if len(owned) != 1:
        return []
    own = owned[0]
    rent = pair[1] if own is pair[0] else pair[0]
    m = own.break_even.get(rent.name)
    when = (
        f"breaks even against {rent.name} in {result.months[m - 1]}"
        if m is not None
        else f"does not break even against {rent.name} within the horizon"
    )
    line = f"Owning ({own.name}) {when}"
    for v in result.break_even_volumes:
        if v.owned == own.name and v.rented == rent.name and v.scale is not None:
            u = v.utilisation
            if u is None or u > 1.0 or u < 0.0:
                line += "; at no utilisation from 0 to 100 % do the two cost the same (never)"
            else:
                line += (
                    f"; the two cost the same at {u:.0%} utilisation"
                    f" ({v.gpu_hours_per_month or 0.0:,.0f} {reference_label(result)} GPU-hours"
                    " a month)"
                )
    return [line + "."]


# Price sources in a few words each, for the default terminal (``provenance`` has the long ones).
SHORT_SOURCES = {
    "snapshot": "AWS snapshot",
    "bundled snapshot": "AWS snapshot",
    "clouds-snapshot": "other clouds' list prices",
    "live": "AWS live",
    "cache": "AWS, fetched earlier",
    "scenario": "the scenario's",
}


def short_sources(result: Result) -> list[str]:
    """Where the cloud prices come from and as of when, in one short sentence: a source's
    dates as a range ("by" a date, as the long form says, left to summary.json)."""
    dates: dict[str, set[str]] = {}
    for q in cloud_quotes(result):
        when = dates.setdefault(SHORT_SOURCES.get(q.source, q.source), set())
        if q.as_of != "undated":
            when.add(q.as_of.removeprefix("by "))
    if not dates:
        return []
    found = [
        label + ("" if not d else f" {min(d)}" if len(d) == 1 else f" {min(d)} to {max(d)}")
        for label, d in sorted(dates.items())
    ]
    return [f"Prices: {'; '.join(found)} (every source: summary.json)."]


def key_sentences(result: Result) -> list[str]:
    """What the default terminal says below the table: what the answer rests on (guessed rates,
    doubtful prices), the decision's break-even, the lead's sensitivity, and where the prices
    come from. A mix the search found is in the lead; what else it tried is a detail."""
    return [
        *caveats(result),
        *servers(result, compact=True),
        *catalog(result),
        *decision_break_even(result),
        *lead_sensitivity(result),
        *short_sources(result),
    ]
