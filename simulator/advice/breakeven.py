"""The two numbers spreadsheet calculators give: at what utilisation, and how much work a month,
owning costs the same as renting.

Computed from the simulated ledgers, not a formula typed beside them: each option's job runs are
scaled by a factor k (GPUs and instances held, so work volume) and its kind's own ledger is
computed again; owned cost is then affine in busy GPU-hours (the same servers, more power), cloud
cost follows the billed instance-hours (a Savings Plan keeps its commitment). The k at which the
two totals are equal is found by Brent's method on k (the 0.10.0 geometric bisection took 60
steps of two ledgers each; Brent's on log k about fourteen; on k, where the gap is affine or
nearly, about five, each option's ledger at the search's ends computed once); the owned cluster's
utilisation there, and the reference GPU-hours of work a month, are the answer. Queueing is not
re-simulated: this is the cost of the same job timing at another volume (an owned cluster past
full load would queue).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from tco.simulator.engine.findings import BreakEvenVolume
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.kinds import costing, registry

MIN_SCALE, MAX_SCALE = 1e-6, 50.0  # searched from a millionth to 50x the scenario's work
X_TOLERANCE = 1e-12  # on k: to a relative 1e-12 at the scenario's volume
MAX_STEPS = 200  # Brent's method converges in tens; a bound, never reached on a bracketed root


def brent(f: Callable[[float], float], a: float, b: float) -> float:
    """A root of ``f`` in [a, b], where f(a) and f(b) have opposite signs: Brent's method
    (inverse quadratic interpolation, the secant, or bisection, whichever keeps the bracket;
    Brent 1973, as in Press et al., Numerical Recipes, 9.3). Tested against scipy's brentq."""
    fa, fb = f(a), f(b)
    c, fc = a, fa
    d = e = b - a
    for _ in range(MAX_STEPS):
        if fb * fc > 0:  # keep the root between b and c
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = 2 * sys.float_info.epsilon * abs(b) + 0.5 * X_TOLERANCE
        m = 0.5 * (c - b)
        if abs(m) <= tol or fb == 0:
            return b
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:  # the secant
                p, q = 2 * m * s, 1 - s
            else:  # inverse quadratic interpolation
                q, r = fa / fc, fb / fc
                p = s * (2 * m * q * (q - r) - (b - a) * (r - 1))
                q = (q - 1) * (r - 1) * (s - 1)
            if p > 0:
                q = -q
            p = abs(p)
            if 2 * p < min(3 * m * q - abs(tol * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = m  # bisection
        else:
            d = e = m
        a, fa = b, fb
        b += d if abs(d) > tol else (tol if m > 0 else -tol)
        fb = f(b)
    return b


def break_even_volumes(prepared: Prepared, result: Result) -> list[BreakEvenVolume]:
    """For each owned option against each rented one."""
    index = {p.option.name: i for i, p in enumerate(prepared.plans)}
    known: dict[tuple[str, float], float] = {}

    def cost(o: OptionResult, k: float) -> float:
        """The option's cash at k x the work, each computed once: the search's ends are the
        same for every pair, and Brent's method starts from them."""
        if (o.name, k) not in known:
            plan, runs = prepared.plans[index[o.name]], o.runs.scaled(k)
            known[o.name, k] = float(costing.costs(plan, runs, prepared.edges).cash_total().sum())
        return known[o.name, k]

    out = []
    for own in result.options:
        if not registry.get(own.kind).buys_hardware:
            continue
        for rent in result.options:
            if registry.get(rent.kind).buys_hardware:
                continue

            def gap(k: float, own: OptionResult = own, rent: OptionResult = rent) -> float:
                return cost(own, k) - cost(rent, k)

            out.append(_solve(prepared, own, rent, gap))
    return out


def _solve(
    prepared: Prepared, own: OptionResult, rent: OptionResult, f: Callable[[float], float]
) -> BreakEvenVolume:
    """``f(k)``: owned minus rented cost at k x the work (positive at small k: owning's fixed
    costs)."""
    lo, hi = MIN_SCALE, MAX_SCALE
    if f(lo) <= 0:
        note = "owning costs less at every volume (renting's fixed commitment costs more)"
        return BreakEvenVolume(own.name, rent.name, None, None, None, note)
    if f(hi) >= 0:
        note = f"renting costs less up to {MAX_SCALE:g}x this work"
        return BreakEvenVolume(own.name, rent.name, None, None, None, note)
    k = brent(f, lo, hi)
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
