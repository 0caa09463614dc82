"""What the recommendation depends on beyond prices: inputs changed one at a time and the scenario
run again, on the same seed.

- workload volume and workload growth ±20 % (job classes' arrivals and growth, a trace's arrival
  scale and growth), by re-simulation;
- each kind's own inputs, as the kind declares them (``Kind.what_ifs``; the owned kind: lead
  time, resale value and depreciation life), applied to every option of that kind. A change
  that makes the scenario invalid (a longer lead time bringing a refresh past the horizon) is
  left out.

Each change gives the option recommended under it (the cheapest meeting the service level, the
clusters as typed), its cash, and the cheapest option regardless of the level with its lead (the
rows the price sensitivity has). For each numeric change that alters the recommendation the
break-even point is found by bisection between no change and that change: how
far the input must move for the answer to turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.findings import FlipPoint, WhatIf
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import repriced, revised, simulate_options
from tco.simulator.kinds import registry
from tco.simulator.kinds.registry import WhatIfInput

BISECTION_STEPS = 6  # the flip point to within 1/64 of the change


def _workload(field: str) -> Callable[[dict[str, Any], float | str], bool]:
    def apply(data: dict[str, Any], change: float | str) -> bool:
        for c in data["workload"]["job_classes"]:
            c[field] = c[field] * (1.0 + float(change))
        trace = data["workload"].get("trace")
        if trace is not None:
            key = "scale_arrivals" if field == "arrivals_per_month" else field
            trace[key] = trace[key] * (1.0 + float(change))
        return True

    return apply


# The workload's own inputs (job classes' arrivals and growth, a trace's arrival scale and
# growth): of the scenario, not of an option.
WORKLOAD = (
    WhatIfInput("workload volume", (-0.2, 0.2), _workload("arrivals_per_month")),
    WhatIfInput("workload growth", (-0.2, 0.2), _workload("growth_per_month")),
)


@dataclass(frozen=True)
class _Change:
    """One input to change: the workload's (applied to the scenario) or a kind's (applied to
    every option of that kind)."""

    input: WhatIfInput
    kind: str | None  # None: the workload's

    def apply(self, data: dict[str, Any], change: float | str) -> bool:
        """Whether the scenario has the input (no option of the kind: nothing to change)."""
        if self.kind is None:
            return self.input.apply(data, change)
        # Every option of the kind (a hybrid refers to one and changes with it).
        mine = [o for o in data["options"] if o["kind"] == self.kind]
        changed = [self.input.apply(o, change) for o in mine]
        return any(changed)


def inputs() -> dict[str, _Change]:
    """Every input the what-ifs change, by name: the workload's, then each kind's, in the
    order the kinds were registered (one per name)."""
    out = {i.name: _Change(i, None) for i in WORKLOAD}
    for name in registry.names():
        for i in registry.get(name).what_ifs():
            out.setdefault(i.name, _Change(i, name))
    return out


def changes() -> list[tuple[str, float | str]]:
    """Every (input, change) tried, in order."""
    return [(name, c) for name, ch in inputs().items() for c in ch.input.changes]


def unit(name: str) -> str | None:
    """The unit of an input's numeric changes (None: a fraction of its value)."""
    found = inputs().get(name)
    return None if found is None else found.input.unit


def describe(name: str, change: float | str) -> str:
    """One change in words, as the answer and the tornado chart show it."""
    found = inputs().get(name)
    words = {} if found is None else found.input.words
    if isinstance(change, str) or change in words:
        return f"{name}: {change if isinstance(change, str) else words[change]}"
    u = unit(name)
    return f"{name} {change:+.2g} {u.removesuffix('s')}" if u else f"{name} {change:+.0%}"


def _changed(
    base: Prepared, book: PriceBook, name: str, change: float | str, result: Result
) -> Result | None:
    """The run with one input changed (None: the scenario has no such input, or the change
    makes it invalid, e.g. a longer lead time bringing a refresh past the horizon); a change of
    money only reprices the base ``result``'s runs instead of playing them again."""
    found = inputs()[name]
    if not found.apply(base.scenario.model_dump(), change):
        return None
    try:
        prepared = revised(base, book, lambda data: found.apply(data, change))
    except ScenarioError:
        return None
    if not found.input.replays:
        return repriced(prepared, result)
    try:
        return simulate_options(prepared)
    except ScenarioError:
        return None


def _what_if(name: str, change: float | str, now: str | None, result: Result) -> WhatIf:
    rec = result.recommendation
    ranked = sorted(result.options, key=lambda o: o.total_cash_usd)
    gap = ranked[1].total_cash_usd - ranked[0].total_cash_usd if len(ranked) > 1 else 0.0
    return WhatIf(name, change, rec.option, rec.cash_usd, rec.option != now, ranked[0].name, gap)


def what_ifs(
    base: Prepared, result: Result, book: PriceBook
) -> tuple[list[WhatIf], list[FlipPoint]]:
    """Every change's recommendation, and for each change that alters it, the flip point
    (``book``: a frozen book, so re-runs never call AWS)."""
    frozen = book
    now = result.recommendation.option
    out: list[WhatIf] = []
    for name, change in changes():
        changed = _changed(base, frozen, name, change, result)
        if changed is not None:
            out.append(_what_if(name, change, now, changed))
    numeric = [w for w in out if w.flips and not isinstance(w.change, str)]  # (a basis: none)
    flips = [_flip_point(base, frozen, now, w, result) for w in numeric]
    return out, flips


def _flip_point(
    base: Prepared, book: PriceBook, now: str | None, w: WhatIf, result: Result
) -> FlipPoint:
    """Bisection on the size of the change: the recommendation is ``now`` at ``lo`` and another
    one at ``hi``."""
    lo, hi, to = 0.0, float(w.change), w.recommended
    for _ in range(BISECTION_STEPS):
        mid = (lo + hi) / 2
        changed = _changed(base, book, w.input, mid, result)
        assert changed is not None  # the same input applied at the full change
        option = changed.recommendation.option
        if option == now:
            lo = mid
        else:
            hi, to = mid, option
    return FlipPoint(w.input, hi, to)
