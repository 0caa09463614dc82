"""A plan against what was used and billed, month by month, over the months recorded so far.
What no record holds (an owned cluster's capex, power, staff) is taken as planned and said so;
a rented option's bill replaces the plan's billed categories where a bill is given."""

from __future__ import annotations

from dataclasses import dataclass

from tco.simulator.tracking.focus import Bill
from tco.simulator.tracking.plan import Plan
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
    months: tuple[Month, ...]  # the months recorded so far

    @property
    def recorded(self) -> int:
        return len(self.months)

    def actual_cash_to_date(self) -> float:
        return float(sum(m.actual_cash_usd for m in self.months))

    def planned_cash_to_date(self) -> float:
        return float(sum(m.planned_cash_usd for m in self.months))


def track(plan: Plan, usage: Usage, bill: Bill | None) -> Tracked:
    """The months recorded by the usage or the bill, each planned against actual."""
    n = max(usage.recorded, bill.recorded if bill is not None else 0)
    billed, unbilled = plan.billed(), plan.unbilled()
    out = []
    for i in range(n):
        actual_billed = None if bill is None else float(bill.billed[i])
        spent = float(unbilled[i]) + (float(billed[i]) if actual_billed is None else actual_billed)
        out.append(
            Month(
                plan.months[i],
                float(plan.jobs[i]),
                float(usage.jobs[i]),
                float(plan.gpu_hours[i]),
                float(usage.gpu_hours[i]),
                float(plan.p95_wait_h[i]),
                float(usage.p95_wait_h[i]),
                float(billed[i]),
                actual_billed,
                float(unbilled[i]),
                float(billed[i] + unbilled[i]),
                spent,
            )
        )
    return Tracked(plan, usage, bill, tuple(out))


def price_ratio(t: Tracked) -> float:
    """What the bill charged per GPU-hour used over what the plan charged per GPU-hour planned,
    over the months recorded (1 without a bill, or where either side used nothing); a
    commitment's unused part is left out (the forecast carries it on as waste)."""
    if t.bill is None or not t.months:
        return 1.0
    unused = sum(float(u[: t.recorded].sum()) for u in t.bill.unused.values())
    billed = sum(m.actual_billed_usd or 0.0 for m in t.months) - unused
    used = sum(m.actual_gpu_hours for m in t.months)
    planned = sum(m.planned_billed_usd for m in t.months)
    hours = sum(m.planned_gpu_hours for m in t.months)
    if min(billed, used, planned, hours) <= 0:
        return 1.0
    return float((billed / used) / (planned / hours))
