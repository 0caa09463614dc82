"""How far the answer moves: with prices (one group at a time, ±20 %: ``advice.sensitivity``;
the recommendation's lead over its runner-up) and with the other inputs (``advice.what_if``), in
sentences."""

from __future__ import annotations

from tco.reports.decision import chosen, runner_up
from tco.reports.words import usd
from tco.simulator.advice import sensitivity, what_if
from tco.simulator.engine import verdicts
from tco.simulator.engine.result import Result


def robustness(result: Result) -> list[str]:
    """How far the answer moves with prices and with the other inputs."""
    return lead_sensitivity(result) + _what_ifs(result)


def lead_sensitivity(result: Result) -> list[str]:
    """Which price group the recommendation's lead over its runner-up rests on most, and
    whether ±20 % of any group alone changes the answer (the cheapest that meets the level)."""
    best, second = chosen(result), runner_up(result)
    if best is None or second is None:
        return []
    cur = result.scenario.money
    meets = {o.name for o in result.options if verdicts.meets(result, o.name)}
    flips = sorted(
        {
            f"{s.group} {s.change:+.0%} ({s.cheapest})"
            for s in sensitivity.swings(result, meets or None)
            if s.cheapest != best
        }
    )
    found = sensitivity.lead_moves(result, best, second)
    line = ""
    if found is not None:
        group, moved = found
        line = (
            f"The lead of {best} over {second} rests most on {group}: ±{sensitivity.CHANGE:.0%}"
            f" there moves it by {usd(moved, cur)}. "
        )
    if flips:
        return [line + "These alone would change the answer: " + "; ".join(flips) + "."]
    return [
        line + f"No ±{sensitivity.CHANGE:.0%} change in one price group alone changes the answer."
    ]


def _what_ifs(result: Result) -> list[str]:
    """Which inputs beyond prices change the recommendation, and how far each must move."""
    if not result.what_ifs:
        return []
    tried = sorted({w.input for w in result.what_ifs})
    if not result.flip_points:
        return [
            "Beyond prices: no single change in " + ", ".join(tried) + " changes the"
            " recommendation (what_ifs in summary.json)."
        ]
    turns = [
        f"{'at most ' if f.within >= 1 else ''}{what_if.describe(f.input, f.change)}"
        f" ({f.to or 'no option meets the level'})"
        for f in result.flip_points
    ]
    return [
        "Beyond prices, the recommendation turns at: " + "; ".join(turns) + " (flip_points in"
        " summary.json)."
    ]
