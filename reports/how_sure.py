"""How sure the answer is, in words: the odds of the recommendation over the futures of its
uncertain inputs (``sweep.odds``), for the terminal's first lines and the report's answer."""

from __future__ import annotations

from tco.reports.answer import usd
from tco.simulator.engine.result import Result


def odds(result: Result) -> list[str]:
    """How sure the answer is, over the futures of its uncertain inputs: how often it is the
    best choice, its spread of cash, its regret and the runner-up's."""
    o = result.recommendation.odds
    if o is None:
        return []
    cur = result.scenario.money
    c = o.chosen
    n = o.futures
    best = round(c.probability_best * n)
    line = (
        f"How sure: {c.option} is the best choice (the cheapest that meets the level) in"
        f" {best:,} of {n:,} futures ({c.probability_best:.0%} ± {c.probability_best_se:.0%}),"
        f" meets the level in {c.probability_meets_level:.0%} of them, and costs"
        f" {usd(c.cash_p10_usd, cur)} to {usd(c.cash_p90_usd, cur)} (P10-P90, P50"
        f" {usd(c.cash_p50_usd, cur)}); expected regret {usd(c.regret_mean_usd, cur)} (P90"
        f" {usd(c.regret_p90_usd, cur)})"
    )
    r = o.runner_up
    if r is not None:
        line += (
            f"; choosing {r.option} instead: best in {r.probability_best:.0%}, meets the level"
            f" in {r.probability_meets_level:.0%}, regret {usd(r.regret_mean_usd, cur)} on"
            f" average (P90 {usd(r.regret_p90_usd, cur)})"
        )
    named = (c.option, r.option if r is not None else None)
    others = {k: v for k, v in o.best_shares.items() if k not in named}
    if others:
        top = sorted(others.items(), key=lambda kv: -kv[1])[:3]
        line += "; best instead: " + ", ".join(f"{k} in {v:.0%}" for k, v in top)
    own = [path for path, known, _ in o.inputs if known]
    given = [path for path, known, _ in o.inputs if not known]
    parts = ([f"the scenario's {', '.join(given)}"] if given else []) + (
        [f"tco's own {', '.join(own)}"] if own else []
    )
    drawn = f"Futures drawn from {len(o.inputs)} uncertain inputs: {'; '.join(parts)}"
    return [line + ".", drawn + " (ranges and sources: summary.json, recommendation.odds)."]
