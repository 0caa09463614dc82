"""What the recommendation depends on beyond prices: inputs changed one at a time and the scenario
run again, on the same seed.

- by re-simulation (the jobs or the clusters change): workload volume and workload growth +-20 %
  (job classes' arrivals and growth, a trace's arrival scale and growth), owned lead time +-1 month;
- by the ledgers alone (the same runs): resale at the horizon (none instead of book value) and
  depreciation life +-25 % (resale is at book value, so its life moves cash).

Each change gives the option recommended under it (the cheapest meeting the service level) and
its cash. For the first continuous input whose change alters the recommendation, the break-even
point is found by bisection between no change and that change: how far the input must move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tco.pricing.book import PriceBook
from tco.simulator.advice import FlipPoint, WhatIf
from tco.simulator.engine import prepare, simulate_options
from tco.simulator.prepared import Prepared
from tco.simulator.recommendation import recommend_without_resizes
from tco.simulator.result import Result
from tco.simulator.scenario import validate

BISECTION_STEPS = 6  # the flip point to within 1/64 of the change


def _workload(data: dict[str, Any], field: str, factor: float) -> bool:
    for c in data["workload"]["job_classes"]:
        c[field] = c[field] * factor
    trace = data["workload"].get("trace")
    if trace is not None:
        key = "scale_arrivals" if field == "arrivals_per_month" else field
        trace[key] = trace[key] * factor
    return True


def _owned(data: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> bool:
    touched = False
    for o in data["options"]:
        if "lead_time_months" in o and "depreciation" in o:  # the fields of owned clusters
            change(o)
            touched = True
    return touched


def _lead(delta: float) -> Callable[[dict[str, Any]], None]:
    def change(o: dict[str, Any]) -> None:
        o["lead_time_months"] = max(0.0, o["lead_time_months"] + delta)

    return change


def _life(factor: float) -> Callable[[dict[str, Any]], None]:
    def change(o: dict[str, Any]) -> None:
        o["depreciation"]["months"] = max(1, round(o["depreciation"]["months"] * factor))

    return change


def _no_resale(o: dict[str, Any]) -> None:
    o["sell_at_horizon"] = False


CHANGES: list[tuple[str, float | str, Callable[[dict[str, Any]], bool]]] = [
    ("workload volume", -0.2, lambda d: _workload(d, "arrivals_per_month", 0.8)),
    ("workload volume", 0.2, lambda d: _workload(d, "arrivals_per_month", 1.2)),
    ("workload growth", -0.2, lambda d: _workload(d, "growth_per_month", 0.8)),
    ("workload growth", 0.2, lambda d: _workload(d, "growth_per_month", 1.2)),
    ("lead time", -1.0, lambda d: _owned(d, _lead(-1.0))),
    ("lead time", 1.0, lambda d: _owned(d, _lead(1.0))),
    ("resale value", "none", lambda d: _owned(d, _no_resale)),
    ("depreciation life", -0.25, lambda d: _owned(d, _life(0.75))),
    ("depreciation life", 0.25, lambda d: _owned(d, _life(1.25))),
]
CONTINUOUS = {"workload volume": "arrivals_per_month", "workload growth": "growth_per_month"}


def _rerun(base: Prepared, book: PriceBook, data: dict[str, Any]) -> Result:
    scenario = validate(data, base.file, book, check=False)
    return simulate_options(prepare(scenario, book, base.file, base.sha256, base.trace))


def _recommended(result: Result) -> tuple[str | None, float | None]:
    rec = recommend_without_resizes(result)
    return rec.option, rec.cash_usd


def what_ifs(
    base: Prepared, result: Result, book: PriceBook
) -> tuple[list[WhatIf], FlipPoint | None]:
    """Every change's recommendation, and the flip point of the first continuous input that
    changes it."""
    frozen = book.frozen()
    now, _ = _recommended(result)
    out: list[WhatIf] = []
    for name, change, apply in CHANGES:
        data = base.scenario.model_dump()
        if not apply(data):
            continue  # no owned option to change
        option, cash = _recommended(_rerun(base, frozen, data))
        out.append(WhatIf(name, change, option, cash, option != now))
    flip = next((w for w in out if w.flips and w.input in CONTINUOUS), None)
    return out, None if flip is None else _flip_point(base, frozen, now, flip)


def _flip_point(base: Prepared, book: PriceBook, now: str | None, w: WhatIf) -> FlipPoint:
    field, step = CONTINUOUS[w.input], float(w.change)
    lo, hi = 1.0, 1.0 + step  # the recommendation is `now` at lo and changes by hi
    to = w.recommended
    for _ in range(BISECTION_STEPS):
        mid = (lo + hi) / 2
        data = base.scenario.model_dump()
        _workload(data, field, mid)
        option, _ = _recommended(_rerun(base, book, data))
        if option == now:
            lo = mid
        else:
            hi, to = mid, option
    return FlipPoint(w.input, hi, to)
