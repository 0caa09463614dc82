"""The two numbers spreadsheet calculators give: at what utilisation, and how much work a month,
owning costs the same as renting.

Computed from the simulated ledgers, not a formula typed beside them: each option's job runs are
scaled by a factor k (GPUs and instances held, so work volume) and its kind's own ledger is
computed again; owned cost is then affine in busy GPU-hours (the same servers, more power), cloud
cost follows the billed instance-hours (a Savings Plan keeps its commitment). The k at which the
two totals are equal is found by bisection; the owned cluster's utilisation there, and the
reference GPU-hours of work a month, are the answer. Queueing is not re-simulated: this is the
cost of the same job timing at another volume (an owned cluster past full load would queue).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from tco.simulator.engine.findings import BreakEvenVolume
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.kinds import registry

MAX_SCALE = 50.0  # searched up to 50x the scenario's work


def _cost_at(prepared: Prepared, o: OptionResult, index: int, k: float) -> float:
    plan = prepared.plans[index]
    runs = o.runs.scaled(k)
    return float(registry.costs(plan, runs, prepared.edges).cash_total().sum())


def break_even_volumes(prepared: Prepared, result: Result) -> list[BreakEvenVolume]:
    """For each owned option against each rented one."""
    index = {p.option.name: i for i, p in enumerate(prepared.plans)}
    out = []
    for own in result.options:
        if not registry.get(own.kind).buys_hardware:
            continue
        for rent in result.options:
            if registry.get(rent.kind).buys_hardware:
                continue

            def gap(k: float, own: OptionResult = own, rent: OptionResult = rent) -> float:
                return _cost_at(prepared, own, index[own.name], k) - _cost_at(
                    prepared, rent, index[rent.name], k
                )

            out.append(_solve(prepared, own, rent, gap))
    return out


def _solve(
    prepared: Prepared, own: OptionResult, rent: OptionResult, f: Callable[[float], float]
) -> BreakEvenVolume:
    """``f(k)``: owned minus rented cost at k x the work (positive at small k: owning's fixed
    costs)."""
    lo, hi = 1e-6, MAX_SCALE
    if f(lo) <= 0:
        note = "owning costs less at every volume (renting's fixed commitment costs more)"
        return BreakEvenVolume(own.name, rent.name, None, None, None, note)
    if f(hi) >= 0:
        note = f"renting costs less up to {MAX_SCALE:g}x this work"
        return BreakEvenVolume(own.name, rent.name, None, None, None, note)
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    k = hi
    paid = float(own.ledger.gpu_hours_paid.sum())
    busy = float(own.ledger.gpu_hours_busy.sum()) * k
    months = len(prepared.months)
    return BreakEvenVolume(
        own.name,
        rent.name,
        k,
        busy / paid if paid > 0 else None,
        (own.work.demanded * k) / months,
        "",
    )
