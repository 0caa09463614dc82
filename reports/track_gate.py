"""``tco track --fail-if``: the conditions a build gates a tracked plan on, in the grammar of
``tco compare`` (``reports.gate``), read against the re-forecast rather than another run.

- ``forecast.cash``: the forecast's median total over the budget (USD, or a share of it).
- ``forecast.p95_delay`` and ``forecast.p95_wait``: the replay at the forecast's median volume
  against the plan's own figure (hours, or a share of the plan's).
- ``CLASS.p95_delay``: one job class's p95 delay the same way (a team's work is its class).

Another option of the plan is tracked with ``--option``: a gate names the forecast or a class,
so one run's gates hold one plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.reports.gate import UNITS, Gate, GateError, parse

__all__ = ["FORMS", "GateError", "Reading", "failed", "parsed", "reading"]
from tco.simulator.tracking.forecast import Forecast
from tco.simulator.tracking.plan_files import Plan

FORMS = (
    "forecast.cash, forecast.p95_delay, forecast.p95_wait or CLASS.p95_delay, then > or <"
    " AMOUNT (+5% of the budget or of the plan's figure, or 5000 USD or 12 hours); e.g."
    " 'forecast.cash > +5%', 'forecast.p95_delay > 24'"
)


def parsed(texts: tuple[str, ...]) -> list[Gate]:
    """Each condition's form checked before any work (the classes it names are checked against
    the plan by :func:`failed`); GateError naming the valid forms."""
    gates = [parse(t) for t in texts]
    for g in gates:
        if g.measure is None or g.scope is None or g.measure == "npv":
            raise GateError(f"--fail-if {g.text!r}: tco track knows {FORMS}")
        if g.scope != "forecast" and g.measure != "p95_delay":
            raise GateError(
                f"--fail-if {g.text!r}: a job class is held to its p95_delay; tco track knows"
                f" {FORMS}"
            )
    return gates


@dataclass(frozen=True)
class Reading:
    """What a gate reads: the forecast's figure against the line it is held to."""

    forecast: float
    against: float
    against_is: str  # "the budget" or "the plan's"
    unit: str


def reading(g: Gate, plan: Plan, f: Forecast) -> Reading:
    """The figures ``g`` compares; GateError when it names a class the plan does not have."""
    if g.measure == "cash":
        return Reading(f.total_usd, f.budget_usd, "a budget of", "USD")
    key = g.measure if g.scope == "forecast" else f"{g.scope}.{g.measure}"
    if key not in f.service_h or key not in plan.service_h:
        classes = sorted(k.split(".")[0] for k in plan.service_h if "." in k)
        raise GateError(
            f"--fail-if {g.text!r}: {g.scope!r} is not a job class of the plan; give forecast"
            f" or one of: {', '.join(classes)}"
        )
    return Reading(f.service_h[key][1], plan.service_h[key], "the plan's", "h")


def failed(gates: list[Gate], plan: Plan, f: Forecast) -> list[str]:
    """One line for each condition that holds (empty: the build passes)."""
    out = []
    for g in gates:
        r = reading(g, plan, f)
        moved = r.forecast - r.against
        share = moved / r.against if r.against > 0 else None
        m = g.moved(moved, share)
        if m is not None and m == m and g.crosses(m):  # NaN (no job ran): nothing to hold
            unit = UNITS[g.measure or "cash"]
            shown = "{:,.0f}" if unit == "USD" else "{:,.1f}"
            out.append(
                f"--fail-if {g.text}: forecast {shown.format(r.forecast)} {unit} against"
                f" {r.against_is} {shown.format(r.against)} {unit}"
            )
    return out
