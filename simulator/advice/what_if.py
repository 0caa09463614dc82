"""What the recommendation depends on beyond prices: inputs changed one at a time and the scenario
run again, on the same seed.

- workload volume and workload growth ±20 % (job classes' arrivals and growth, a trace's arrival
  scale and growth), by re-simulation;
- owned clusters: lead time ±1 month (re-simulation); resale value at the horizon on the other
  basis ("market" curve or "book" value, whichever the scenario does not use), or -100 % (none);
  depreciation life ±25 % (it moves cash only where resale is at book value). The ledgers
  change, the runs do not, but the engine is simply run again. A change that makes the scenario
  invalid (a longer lead time bringing a refresh past the horizon) is left out.

Each change gives the option recommended under it (the cheapest meeting the service level, the
clusters as typed), its cash, and the cheapest option regardless of the level with its lead (the
rows the price sensitivity has). For each numeric change that alters the recommendation the
break-even point is found by bisection between no change and that change: how
far the input must move for the answer to turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tco.pricing.book import PriceBook
from tco.simulator.advice.recommendation import recommend_without_resizes
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.findings import FlipPoint, WhatIf
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import prepare, simulate_options
from tco.simulator.kinds import registry
from tco.simulator.scenario.model import validate

BISECTION_STEPS = 6  # the flip point to within 1/64 of the change
UNITS = {"lead time": "months"}  # every other change is a fraction of the input's value

# apply(scenario data, change) -> whether the scenario has the input (no owned option: no lead time)
Apply = Callable[[dict[str, Any], float], bool]


def _workload(field: str) -> Apply:
    def apply(data: dict[str, Any], change: float) -> bool:
        for c in data["workload"]["job_classes"]:
            c[field] = c[field] * (1.0 + change)
        trace = data["workload"].get("trace")
        if trace is not None:
            key = "scale_arrivals" if field == "arrivals_per_month" else field
            trace[key] = trace[key] * (1.0 + change)
        return True

    return apply


def _owned(change_one: Callable[[dict[str, Any], float], None]) -> Apply:
    def apply(data: dict[str, Any], change: float) -> bool:
        # Options that buy servers themselves (a hybrid refers to one and changes with it).
        owned = [
            o
            for o in data["options"]
            if registry.get(o["kind"]).buys_hardware
            and "depreciation" in registry.get(o["kind"]).model.model_fields
        ]
        for o in owned:
            change_one(o, change)
        return bool(owned)

    return apply


def _lead(o: dict[str, Any], change: float) -> None:
    o["lead_time_months"] = max(0.0, o["lead_time_months"] + change)


def _life(o: dict[str, Any], change: float) -> None:
    o["depreciation"]["months"] = max(1, round(o["depreciation"]["months"] * (1.0 + change)))


def _resale(o: dict[str, Any], change: float) -> None:
    o["resale_scale"] = o["resale_scale"] * (1.0 + change)


def _basis(word: str) -> Apply:
    """Resale on ``word``'s basis (market or book) for every owned option; False when every one
    already uses it (nothing to change)."""

    def apply(data: dict[str, Any], change: float) -> bool:
        changed = []
        _owned(lambda o, _: changed.append(o.get("resale_value") != word))(data, change)
        if not any(changed):
            return False
        return _owned(lambda o, _: o.update(resale_value=word))(data, change)

    return apply


INPUTS: dict[str, Apply] = {
    "workload volume": _workload("arrivals_per_month"),
    "workload growth": _workload("growth_per_month"),
    "lead time": _owned(_lead),
    "resale value": _owned(_resale),
    "depreciation life": _owned(_life),
}
BASES = ("market", "book")  # the changes that are words: resale on the market curve or at book
CHANGES: list[tuple[str, float | str]] = [
    ("workload volume", -0.2),
    ("workload volume", 0.2),
    ("workload growth", -0.2),
    ("workload growth", 0.2),
    ("lead time", -1.0),
    ("lead time", 1.0),
    ("resale value", "market"),
    ("resale value", "book"),
    ("resale value", -1.0),
    ("depreciation life", -0.25),
    ("depreciation life", 0.25),
]


def describe(name: str, change: float | str) -> str:
    """One change in words, as the answer and the tornado chart show it."""
    if isinstance(change, str) or (name == "resale value" and change == -1.0):
        return f"{name}: {'none' if change == -1.0 else change}"
    return f"{name} {change:+.2g} month" if name in UNITS else f"{name} {change:+.0%}"


def _rerun(base: Prepared, book: PriceBook, data: dict[str, Any]) -> Result:
    scenario = validate(data, base.file, book, check=False)
    return simulate_options(prepare(scenario, book, base.file, base.sha256, base.trace))


def _changed(base: Prepared, book: PriceBook, name: str, change: float | str) -> Result | None:
    data = base.scenario.model_dump()
    if isinstance(change, str):
        applied = _basis(change)(data, 0.0)
    else:
        applied = INPUTS[name](data, float(change))
    if not applied:
        return None
    try:
        return _rerun(base, book, data)
    except ScenarioError:  # e.g. a longer lead time brings a refresh past the horizon
        return None


def _what_if(name: str, change: float | str, now: str | None, result: Result) -> WhatIf:
    rec = recommend_without_resizes(result)
    ranked = sorted(result.options, key=lambda o: o.total_cash_usd)
    gap = ranked[1].total_cash_usd - ranked[0].total_cash_usd if len(ranked) > 1 else 0.0
    return WhatIf(name, change, rec.option, rec.cash_usd, rec.option != now, ranked[0].name, gap)


def what_ifs(
    base: Prepared, result: Result, book: PriceBook
) -> tuple[list[WhatIf], list[FlipPoint]]:
    """Every change's recommendation, and for each change that alters it, the flip point
    (``book``: a frozen book, so re-runs never call AWS)."""
    frozen = book
    now = recommend_without_resizes(result).option
    out: list[WhatIf] = []
    for name, change in CHANGES:
        changed = _changed(base, frozen, name, change)
        if changed is not None:
            out.append(_what_if(name, change, now, changed))
    flips = [_flip_point(base, frozen, now, w) for w in out if w.flips and w.change not in BASES]
    return out, flips


def _flip_point(base: Prepared, book: PriceBook, now: str | None, w: WhatIf) -> FlipPoint:
    """Bisection on the size of the change: the recommendation is ``now`` at ``lo`` and another
    one at ``hi``."""
    lo, hi, to = 0.0, float(w.change), w.recommended
    for _ in range(BISECTION_STEPS):
        mid = (lo + hi) / 2
        changed = _changed(base, book, w.input, mid)
        assert changed is not None  # the same input applied at the full change
        option = recommend_without_resizes(changed).option
        if option == now:
            lo = mid
        else:
            hi, to = mid, option
    return FlipPoint(w.input, hi, to)
