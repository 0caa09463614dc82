"""How much the answer depends on the prices: one input group at a time, ±20 %.

Costs are linear in prices, so no re-simulation is needed: a group's cash categories are scaled
and the totals compared again. Groups and the categories in each are declared with the ledger
categories (``costs.ledger``): cloud prices (on-demand and Savings Plan charges), server prices
(capex, its resale and the support contract, which is a share of capex), electricity, facility,
staff. The workload itself is not varied here (that needs new runs).
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.simulator.costs import ledger
from tco.simulator.engine.result import Result
from tco.simulator.engine.verdicts import cents, standing

CHANGE = 0.20  # a plain "what if prices were 20 % off" band, not an estimate of uncertainty


@dataclass(frozen=True)
class Swing:
    """The effect of changing one input group by ``change`` (e.g. +0.2) on the ranking."""

    group: str
    change: float
    cheapest: str
    gap_usd: float  # runner-up total minus cheapest total, after the change


def _totals(result: Result, group: str | None, factor: float) -> dict[str, float]:
    """Each option's cash as the rule judges it (``engine.verdicts.standing``: over the futures
    when drawn), the group's cash on the base job stream scaled by ``factor``."""
    out = {}
    for o in result.options:
        total = standing(result, o.name).cash_usd
        if group is not None and o.ledger.cash:
            total += float(ledger.scaled(o.ledger.cash, {group: factor}).sum()) - float(
                o.ledger.cash_total().sum()
            )
        out[o.name] = total
    return out


def swings(result: Result, among: set[str] | None = None) -> list[Swing]:
    """For every group and direction: the cheapest option and its lead after the change
    (``among``: of these options only, e.g. those that meet the service level)."""
    out = []
    for group in ledger.groups():
        for change in (-CHANGE, CHANGE):
            totals = _totals(result, group, 1.0 + change)
            names = [n for n in totals if among is None or n in among]
            ranked = sorted(names, key=lambda n: cents(totals[n]))  # stable: the rule's ties
            if not ranked:
                continue
            gap = totals[ranked[1]] - totals[ranked[0]] if len(ranked) > 1 else 0.0
            out.append(Swing(group, change, ranked[0], gap))
    return out


def lead_moves(result: Result, best: str, runner: str) -> tuple[str, float] | None:
    """(group, USD): the group whose ±20 % moves ``best``'s lead over ``runner`` most, and by
    how much (None when no group moves it)."""
    base = _totals(result, None, 1.0)
    moves = {}
    for group in ledger.groups():
        deltas = []
        for change in (-CHANGE, CHANGE):
            t = _totals(result, group, 1.0 + change)
            deltas.append(abs((t[runner] - t[best]) - (base[runner] - base[best])))
        moves[group] = max(deltas)
    group = max(moves, key=lambda g: moves[g])
    return (group, moves[group]) if moves[group] > 0 else None


def most_sensitive(result: Result) -> tuple[str, str, float] | None:
    """(runner-up, group, USD): the group whose ±20 % moves the cheapest option's lead over the
    runner-up most, and by how much."""
    if len(result.options) < 2:
        return None
    base = _totals(result, None, 1.0)
    best = min(base, key=lambda n: base[n])
    runner = min((n for n in base if n != best), key=lambda n: base[n])
    found = lead_moves(result, best, runner)
    return None if found is None else (runner, *found)
