"""What the recommendation depends on beyond prices: inputs changed one at a time and the scenario
run again, on the same seed.

- workload volume and workload growth ±20 % (job classes' arrivals and growth, a trace's arrival
  scale and growth), by re-simulation;
- each kind's own inputs, as the kind declares them (``Kind.what_ifs``; the owned kind: lead
  time, resale value and depreciation life), applied to every option of that kind. A change
  that makes the scenario invalid (a longer lead time bringing a refresh past the horizon) is
  left out.

Each change gives the option recommended under it and the cheapest option regardless of the level
with its lead (the rows the price sensitivity has). The change is measured on the base job
stream and applied to each option as the rule judged it over the futures (``engine.verdicts``:
its mean cash there moved by what the change moves its cash on the base stream; meeting the
level in enough futures, and on the changed base stream too), so with no change the answer is
the run's own. For each numeric change that alters the recommendation the
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
from tco.simulator.engine.simulate import replayed, repriced, reused, revised
from tco.simulator.engine.verdicts import answer, by_cash
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.registry import WhatIfInput

BISECTION_STEPS = 4  # the flip point to within 1/16 of the change (each step replays)
# The flip points' bisections share this many job-plays (jobs played again, summed over the
# options each step plays): a ceiling, as the searches' are. A scenario too large for four
# halvings of every flip gets fewer (each flip point says to within what share it is found).
FLIP_JOB_PLAYS = 1_000_000
# A change played again is played on the options that could be the answer under it: the answer,
# and every option meeting the level whose cash (as the rule judged it) is within this share of
# the answer's. The others keep their base run (a +-20 % change of the work does not bring an
# option 60 % dearer to the answer); the what-if's cheapest option is read among those played.
REACH = 0.6


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
VOLUME = WhatIfInput("workload volume", (-0.2, 0.2), _workload("arrivals_per_month"))
WORKLOAD = (VOLUME, WhatIfInput("workload growth", (-0.2, 0.2), _workload("growth_per_month")))


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
        kind = registry.get(name)
        for i in kind.what_ifs() if kind.can(Can.WHAT_IFS) else ():
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
    if u == "months" and abs(change) < 1:  # a part of a month reads in days
        days = change * 365.25 / 12
        return f"{name} {days:+.1f} day{'' if abs(days) == 1 else 's'}"
    if u:
        return f"{name} {change:+.2g} {u if abs(change) != 1 else u.removesuffix('s')}"
    return f"{name} {change:+.0%}"


def _changed(
    base: Prepared, book: PriceBook, name: str, change: float | str, result: Result
) -> Result | None:
    """The run with one input changed (None: the scenario has no such input, or the change
    makes it invalid, e.g. a longer lead time bringing a refresh past the horizon); a change of
    money only reprices the base ``result``'s runs instead of playing them again."""
    found = inputs()[name]
    data = base.scenario.model_dump()
    if not found.apply(data, change):
        return None
    if data == base.scenario.model_dump():
        # The change changes nothing (a growth of 0 grown by 20 %): the same inputs play the
        # same runs on the same seed, so the base's stand for them, played again by no one.
        prepared = base
    else:
        try:
            prepared = revised(base, book, lambda data: found.apply(data, change))
        except ScenarioError:
            return None
    if not found.input.replays:  # every option priced again: each one is in the what-if
        return repriced(prepared, result)
    if prepared is base:
        return reused(base, result, contenders(result))
    try:
        return replayed(prepared, result, contenders(result))
    except ScenarioError:
        return None


def contenders(result: Result) -> set[str]:
    """The options a change is played again on: the answer, the next by the rule, and those
    within ``REACH`` of the answer's cash."""
    now = answer(result)
    if now is None:
        return {o.name for o in result.options}
    second = answer(result, among=[o.name for o in result.options if o.name != now])
    top = result.standing(now).cash_usd
    return {now, *([second] if second else [])} | {
        o.name
        for o in result.options
        if result.standing(o.name).meets and result.standing(o.name).cash_usd <= top * (1 + REACH)
    }


def _what_if(
    name: str, change: float | str, now: str | None, base: Result, changed: Result
) -> WhatIf:
    rec = _answer(base, changed)
    o = None if rec is None else changed.option(rec)
    kept = {x.name for x in changed.options if x is base.option(x.name)}  # not played again
    ranked = by_cash((x for x in changed.options if x.name not in kept), lambda x: x.total_cash_usd)
    gap = ranked[1].total_cash_usd - ranked[0].total_cash_usd if len(ranked) > 1 else 0.0
    cash = None if o is None else o.total_cash_usd
    return WhatIf(name, change, rec, cash, rec != now, ranked[0].name, gap)


def _answer(base: Result, changed: Result) -> str | None:
    """The rule's pick under a change: each option as it stands over the futures, its cash
    moved by the change on the base job stream, and meeting the level there too."""
    shift = {o.name: o.total_cash_usd - base.option(o.name).total_cash_usd for o in changed.options}
    ok = {o.name: changed.verdicts[o.name].meets for o in changed.options}
    return answer(base, shift, ok)


def most_job_plays(prepared: Prepared) -> int:
    """The most job-plays the what-ifs may spend (``advice.ahead``): each change that replays,
    on every option at most, and the flip points' ceiling."""
    replaying = sum(len(c.input.changes) for c in inputs().values() if c.input.replays)
    return len(prepared.jobs) * len(prepared.plans) * replaying + FLIP_JOB_PLAYS


def what_ifs(
    base: Prepared, result: Result, book: PriceBook
) -> tuple[list[WhatIf], list[FlipPoint]]:
    """Every change's recommendation, and for each change that alters it, the flip point
    (``book``: a frozen book, so re-runs never call AWS)."""
    frozen = book
    now = answer(result)
    out: list[WhatIf] = []
    for name, change in changes():
        changed = _changed(base, frozen, name, change, result)
        if changed is not None:
            out.append(_what_if(name, change, now, result, changed))
    numeric = [w for w in out if w.flips and not isinstance(w.change, str)]  # (a basis: none)
    step = len(base.jobs) * len(contenders(result))  # job-plays of one step of a played change
    flips: list[tuple[FlipPoint, int]] = []
    for i, w in enumerate(numeric):
        plays = step if inputs()[w.input].input.replays else 0  # a money change plays nothing
        left = FLIP_JOB_PLAYS - sum(f[1] for f in flips)
        steps = BISECTION_STEPS if plays == 0 else left // (plays * (len(numeric) - i))
        steps = max(0, min(BISECTION_STEPS, steps))  # 0: the budget allows no halving
        flips.append((_flip_point(base, frozen, now, w, result, steps), plays * steps))
    return out, [f for f, _ in flips]


def _flip_point(
    base: Prepared, book: PriceBook, now: str | None, w: WhatIf, result: Result, steps: int
) -> FlipPoint:
    """Bisection on the size of the change (``steps`` halvings): the recommendation is ``now``
    at ``lo`` and another one at ``hi``."""
    lo, hi, to = 0.0, float(w.change), w.recommended
    for _ in range(steps):
        mid = (lo + hi) / 2
        changed = _changed(base, book, w.input, mid, result)
        assert changed is not None  # the same input applied at the full change
        option = _answer(result, changed)
        if option == now:
            lo = mid
        else:
            hi, to = mid, option
    return FlipPoint(w.input, hi, to, 0.5**steps)
