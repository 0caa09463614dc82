"""A plan against what was used and billed, month by month, over the whole months every input
covers (a month to date after them shown apart, planned pro rata). What no record holds (an
owned cluster's capex, power, staff) is taken as planned and said so; a bill replaces what the
plan had for each part of the budget its rows belong to, never adds to it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.simulator.tracking.focus import Bill, cover
from tco.simulator.tracking.plan_files import Plan
from tco.simulator.tracking.usage import Usage


@dataclass(frozen=True)
class Month:
    month: str
    planned_jobs: float
    actual_jobs: float
    planned_gpu_hours: float
    actual_gpu_hours: float
    planned_p95_wait_h: float
    actual_p95_wait_h: float
    planned_billed_usd: float
    actual_billed_usd: float | None  # None: no bill given
    unbilled_usd: float  # as planned: no record of it
    planned_cash_usd: float
    actual_cash_usd: float

    @property
    def variance_usd(self) -> float:
        return self.actual_cash_usd - self.planned_cash_usd


@dataclass(frozen=True)
class Tracked:
    plan: Plan
    usage: Usage
    bill: Bill | None
    months: tuple[Month, ...]  # the whole months every input covers
    # The month after them, to date (a log that ends inside it), planned pro rata; None: none.
    tail: Month | None = None
    notes: tuple[str, ...] = ()  # what the inputs cover, when they differ; what was left out

    @property
    def recorded(self) -> int:
        return len(self.months)

    def actual_cash_to_date(self) -> float:
        return float(sum(m.actual_cash_usd for m in self.months))

    def planned_cash_to_date(self) -> float:
        return float(sum(m.planned_cash_usd for m in self.months))


def _covered(usage: Usage, bill: Bill | None, plan: Plan) -> tuple[int, tuple[str, ...]]:
    """The whole months every input covers, and what to say when they differ."""
    months = plan.months
    if bill is None or bill.whole == usage.recorded:
        return usage.recorded, ()
    n = min(usage.recorded, bill.whole)

    def span(k: int) -> str:
        return f"{months[0]} to {months[k - 1]}" if k else "no whole month"

    return n, (
        f"The usage log covers {span(usage.recorded)} whole, the bill {span(bill.whole)}: the"
        f" months both cover ({span(n)}) are held against the plan, the rest forecast.",
    )


def track(plan: Plan, usage: Usage, bill: Bill | None) -> Tracked:
    """The whole months every input covers, each planned against actual, and the month to date
    after them. A bill's rows replace what the plan had for the parts of the budget they belong
    to (``focus.cover``), never add to it: what no row of the bill covers is taken as planned."""
    n, notes = _covered(usage, bill, plan)
    parts = plan.by_cover()
    covered = set() if bill is None else set(bill.by_cover)
    zero = np.zeros(len(plan.months))
    if bill is None:
        billed, unbilled = plan.billed(), plan.unbilled()
        actual = None
    else:
        billed = sum((parts.get(c, zero) for c in covered), zero)
        unbilled = sum((v for c, v in parts.items() if c not in covered), zero)
        actual = sum((bill.by_cover[c] for c in covered), zero)

    def month(i: int, share: float = 1.0) -> Month:
        got = None if actual is None else float(actual[i])
        spent = float(unbilled[i]) * share + (float(billed[i]) * share if got is None else got)
        return Month(
            plan.months[i],
            float(plan.jobs[i]) * share,
            float(usage.jobs[i]),
            float(plan.gpu_hours[i]) * share,
            float(usage.gpu_hours[i]),
            float(plan.p95_wait_h[i]),
            float(usage.p95_wait_h[i]),
            float(billed[i]) * share,
            got,
            float(unbilled[i]) * share,
            float(billed[i] + unbilled[i]) * share,
            spent,
        )

    tail = None
    if n == usage.recorded and usage.to_date > 0 and n < len(plan.months):
        tail = month(n, usage.to_date)
    if usage.beyond_gap:
        notes += (
            f"{usage.beyond_gap:,} jobs of the usage log come after a month with no record"
            f" ({plan.months[usage.recorded]}) where the plan expects work: left out as strays"
            " (give --through YYYY-MM to count them)",
        )
    return Tracked(plan, usage, bill, tuple(month(i) for i in range(n)), tail, notes)


def price_ratio(t: Tracked) -> float:
    """What the bill charged per GPU-hour used over what the plan charged per GPU-hour planned,
    over the months recorded (1 without a bill, or where either side used nothing); a
    commitment's unused part is left out (the forecast carries it on as waste)."""
    if t.bill is None or not t.months:
        return 1.0
    r = t.recorded
    unused = sum(float(u[:r].sum()) for u in t.bill.unused.values())
    compute = cover(False, "Compute")  # GPU-hours are bought as compute: storage apart
    billed = float(t.bill.by_cover.get(compute, np.zeros(r))[:r].sum()) - unused
    planned = float(t.plan.by_cover().get(compute, np.zeros(r))[:r].sum())
    used = sum(m.actual_gpu_hours for m in t.months)
    hours = sum(m.planned_gpu_hours for m in t.months)
    if min(billed, used, planned, hours) <= 0:
        return 1.0
    return float((billed / used) / (planned / hours))
