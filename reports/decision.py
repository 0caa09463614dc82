"""Which options the decision is between: the one the answer names and its runner-up (shared
by the terminal, the report's sentences and its charts)."""

from __future__ import annotations

from tco.simulator.engine.result import Result
from tco.simulator.engine.verdicts import cheapest_of, choose
from tco.simulator.kinds import registry


def chosen(result: Result) -> str | None:
    """The option the answer names: the recommendation, else the closest to the level."""
    rec = result.recommendation
    return rec.option or rec.closest


def runner_up(result: Result) -> str | None:
    """What comes second: the odds' runner-up, else the cheapest other option that meets the
    level (else the cheapest other)."""
    rec = result.recommendation
    name = chosen(result)
    if rec.odds is not None and rec.odds.runner_up is not None:
        return rec.odds.runner_up.option
    if rec.runner_up is not None and rec.runner_up != name:  # a mix's: the best as listed
        return rec.runner_up
    return None if name is None else runner_up_of(result, name)


def runner_up_of(result: Result, chosen: str) -> str | None:
    """The option the answer would be without ``chosen``: by the rule among the others on the
    base job stream (the closest when none meets)."""
    others = [o for o in result.options if o.name != chosen]
    if not others:
        return None
    found = choose(others, result.verdicts).option
    if found is not None:
        return found
    cheapest = cheapest_of(others, lambda o: o.total_cash_usd, lambda o: True)
    return None if cheapest is None else cheapest.name


def options(result: Result) -> list[str]:
    """The options the decision is about: the recommendation, its runner-up, and the cheapest
    owned and the cheapest rented option (each once, in the scenario's order)."""
    named = {chosen(result), runner_up(result)}
    for owns in (True, False):
        side = [o for o in result.options if registry.get(o.kind).buys_hardware == owns]
        if side:
            found = cheapest_of(side, lambda o: o.total_cash_usd, lambda o: True)
            named.add(found.name if found is not None else side[0].name)
    return [o.name for o in result.options if o.name in named]
