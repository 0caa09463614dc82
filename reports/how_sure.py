"""How sure the answer is, in words: the odds of the recommendation and its runner-up over the
futures of its uncertain inputs, the frontier of cost against the chance of meeting the level,
and how the search spent its plays (``advice.decision``), for the terminal's details and the
report's answer."""

from __future__ import annotations

from tco.reports.answer import usd
from tco.reports.words import share
from tco.simulator.engine.findings import Odds
from tco.simulator.engine.result import Result
from tco.simulator.sweep.design import RENTAL_PATHS


def odds(result: Result) -> list[str]:
    """How sure the answer is, over the futures of its uncertain inputs: how often it meets the
    level and is the best choice, its spread of cash, its regret and the runner-up's; where the
    futures come from; what each confidence would buy; how the search stopped."""
    o = result.recommendation.odds
    if o is None:
        return []
    cur = result.scenario.money
    c = o.chosen
    n = o.futures
    line = (
        f"How sure: {c.option} meets the level in {c.probability_meets_level:.0%} of"
        f" {o.streams:,} job streams and is the best choice (the cheapest that meets the level)"
        f" in {round(c.probability_best * n):,} of {n:,} futures"
        f" ({share(c.probability_best, c.probability_best_se)}); it costs"
        f" {usd(c.cash_mean_usd, cur)} on average (± {usd(c.cash_mean_se_usd, cur)}),"
        f" {usd(c.cash_p10_usd, cur)} to {usd(c.cash_p90_usd, cur)} (P10-P90, P50"
        f" {usd(c.cash_p50_usd, cur)}); expected regret {usd(c.regret_mean_usd, cur)} (P90"
        f" {usd(c.regret_p90_usd, cur)})"
    )
    r = o.runner_up
    if r is not None:
        line += (
            f"; choosing {r.option} instead: meets the level in {r.probability_meets_level:.0%},"
            f" best in {r.probability_best:.0%}, regret {usd(r.regret_mean_usd, cur)} on"
            f" average (P90 {usd(r.regret_p90_usd, cur)})"
        )
    named = (c.option, r.option if r is not None else None)
    others = {k: v for k, v in o.best_shares.items() if k not in named}
    if others:
        top = sorted(others.items(), key=lambda kv: -kv[1])[:3]
        line += "; best instead: " + ", ".join(f"{k} in {v:.0%}" for k, v in top)
    line += (
        ". Regret is the cash above the best choice in each future; where an option misses the"
        " level, its late work is charged at the best choice's cost per GPU-hour there"
    )
    own = [path for path, known, _ in o.inputs if known]
    given = [path for path, known, _ in o.inputs if not known]
    parts = ([f"the scenario's {', '.join(given)}"] if given else []) + (
        [f"tco's own {', '.join(own)}"] if own else []
    )
    drawn = (
        f"Futures: {o.streams:,} job streams (the first is the base job stream) x"
        f" {o.money_draws:,} draws of prices each, a stream played once and priced under its"
        f" own draws; drawn from {len(o.inputs)} uncertain inputs: {'; '.join(parts)} (ranges"
        " and sources: summary.json, recommendation.odds)"
    )
    return [line + ".", drawn + ".", *spreads(result, o), *frontier(result, o), *searched(o)]


def spread_lines(result: Result) -> list[str]:
    """Each candidate's spread of cash where rental prices take paths (none without odds)."""
    o = result.recommendation.odds
    return [] if o is None else spreads(result, o)


def spreads(result: Result, o: Odds) -> list[str]:
    """Where rental prices take paths: each candidate's spread of cash, narrowest first (what
    a commitment's fixed rate buys is a narrower one)."""
    moving = any(p == RENTAL_PATHS for p, _, _ in o.inputs)
    if not moving or not o.spreads:
        return []
    cur = result.scenario.money
    ranked = sorted(o.spreads.items(), key=lambda kv: (kv[1][2] - kv[1][0]) / max(kv[1][1], 1.0))
    parts = [
        f"{n} {usd(p10, cur)} to {usd(p90, cur)} (P50 {usd(p50, cur)})"
        for n, (p10, p50, p90) in ranked
    ]
    return [
        "Cash over the futures, with rental prices on paths (P10 to P90, the narrowest spread"
        " for its median first; a commitment's rate does not move): " + "; ".join(parts) + "."
    ]


def frontier(result: Result, o: Odds) -> list[str]:
    """What each confidence would buy, and for how much on average."""
    if not o.frontier:
        return []
    cur = result.scenario.money
    points = []
    for f in o.frontier:
        mark = " (the scenario's)" if abs(f.confidence - o.confidence) < 1e-9 else ""
        if f.option is None or f.cash_mean_usd is None:
            points.append(f"at {f.confidence:.0%}{mark}: none of the candidates played")
            continue
        met = f.probability_meets_level or 0.0
        points.append(
            f"at {f.confidence:.0%}{mark}: {f.words}, {usd(f.cash_mean_usd, cur)} (meets it in"
            f" {met:.0%})"
        )
    return [
        "Cost against the chance of meeting the level (mean cash over the futures, among the"
        " candidates played on every future): " + "; ".join(points) + "."
    ]


def searched(o: Odds) -> list[str]:
    """How the decision's search spent its plays and why it stopped."""
    s = o.search
    if s is None:
        return []
    return [
        f"The decision raced {s.candidates:,} candidates in {s.plays:,} plays of a job stream"
        f" ({s.job_plays:,} job-plays of a budget of {s.budget_job_plays:,}); it stopped:"
        f" {s.stopped}; {len(s.dropped):,} candidates stopped early (summary.json,"
        " recommendation.odds.search)."
    ]


def searched_lines(result: Result) -> list[str]:
    """How the decision's search spent its plays (none without odds)."""
    o = result.recommendation.odds
    return [] if o is None else searched(o)
