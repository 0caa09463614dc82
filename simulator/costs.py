"""What each option costs, month by month, from its simulated usage. Pure functions.

Two views, both in USD per calendar month:

- **cash**: when money leaves the bank. Servers are paid in the month they arrive; resale at the
  horizon comes back as a negative cost; Savings Plan upfront payments fall in the month a term
  starts.
- **accounting**: the expense recognised. Capex becomes depreciation from the month servers
  arrive; Savings Plan commitments are expensed hour by hour over the term.

Owned servers sold at the horizon fetch their book value (so cash and accounting totals agree),
unless ``sell_at_horizon`` is false. Costs that the model leaves out (storage, egress, software
licences, the cost of waiting) are listed in docs/MODEL.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tco.simulator import defaults
from tco.simulator.calendar import per_month
from tco.simulator.finance import depreciation
from tco.simulator.options import CloudPlan, Delivery, OwnedPlan
from tco.simulator.outcome import Outcome
from tco.simulator.scenario import SavingsPlan
from tco.simulator.usage import hourly

CASH_CATEGORIES = (
    "capex",
    "resale",
    "power",
    "facility",
    "support",
    "staff",
    "cloud_compute",
    "sp_commitment",
)
ACCOUNTING_CATEGORIES = (
    "depreciation",
    "power",
    "facility",
    "support",
    "staff",
    "cloud_compute",
    "sp_commitment_used",
    "sp_commitment_unused",
)


@dataclass(frozen=True)
class Ledger:
    """Monthly costs by category (USD), and monthly usage (GPU-hours, fractions; NaN when n/a)."""

    cash: dict[str, np.ndarray]
    accounting: dict[str, np.ndarray]
    gpu_hours_paid: np.ndarray  # GPU-hours available (owned) or billed (cloud)
    gpu_hours_busy: np.ndarray  # GPU-hours jobs actually used
    sp_utilisation: np.ndarray | None = None
    sp_coverage: np.ndarray | None = None
    notes: dict[str, float] = field(default_factory=dict)

    @property
    def gpu_utilisation(self) -> np.ndarray:
        return _ratio(self.gpu_hours_busy, self.gpu_hours_paid)

    def cash_total(self) -> np.ndarray:
        return np.asarray(np.sum(list(self.cash.values()), axis=0))

    def accounting_total(self) -> np.ndarray:
        return np.asarray(np.sum(list(self.accounting.values()), axis=0))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(len(num), np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _basis(plan: OwnedPlan, index: int, d: Delivery) -> float:
    """Capitalised cost of a tranche: servers, installation, and the network with the first."""
    o = plan.option
    basis = d.servers * (plan.price_usd_per_server + o.installation_usd_per_server)
    return basis + (o.network_usd if index == 0 else 0.0)


def owned_ledger(plan: OwnedPlan, out: Outcome, edges: np.ndarray) -> Ledger:
    """Cash and accounting ledgers of a purchased cluster."""
    o = plan.option
    months = len(edges) - 1
    hours = int(edges[-1])
    gps = plan.hardware.gpus_per_unit
    kw = plan.max_kw_per_server
    month_hours = np.diff(edges).astype(np.float64)

    arrived = [d for d in plan.deliveries if d.delivery_month is not None]
    server_hours = per_month(
        hourly(
            np.array([d.delivery_h for d in arrived], dtype=np.float64),
            np.full(len(arrived), float(hours)),
            np.array([d.servers for d in arrived], dtype=np.float64),
            hours,
        ),
        edges,
    )
    busy = per_month(hourly(out.start_h, out.end_h, out.gpus.astype(np.float64), hours), edges)

    capex = np.zeros(months)
    dep = np.zeros(months)
    resale = np.zeros(months)
    support = np.zeros(months)
    for i, d in enumerate(arrived):
        assert d.delivery_month is not None
        m0 = d.delivery_month
        basis = _basis(plan, i, d)
        capex[m0] += basis
        schedule = depreciation(
            o.depreciation.method,
            basis,
            basis * o.depreciation.salvage_fraction,
            o.depreciation.months,
            o.depreciation.declining_factor,
        )
        span = min(len(schedule), months - m0)
        dep[m0 : m0 + span] += schedule[:span]
        if o.sell_at_horizon:
            resale[-1] -= basis - schedule[:span].sum()  # sold at book value
        # The support contract runs from arrival, prorated by the hours in service.
        in_service = np.clip((edges[1:] - d.delivery_h) / month_hours, 0.0, 1.0)
        support += basis * o.support_pct_per_year / 100.0 / 12.0 * in_service

    it_kwh = server_hours * kw * o.power.idle_fraction + busy * (kw / gps) * (
        o.power.busy_fraction - o.power.idle_fraction
    )
    power = it_kwh * o.power.pue * o.power.usd_per_kwh
    facility = server_hours / month_hours * kw * o.facility.usd_per_kw_month
    first = min((d.delivery_month for d in arrived if d.delivery_month is not None), default=months)
    staff = np.where(np.arange(months) >= first, o.staff.fte * o.staff.usd_per_fte_year / 12.0, 0.0)
    shared = {"power": power, "facility": facility, "support": support, "staff": staff}
    return Ledger(
        cash={"capex": capex, "resale": resale, **shared},
        accounting={"depreciation": dep, **shared},
        gpu_hours_paid=server_hours * gps,
        gpu_hours_busy=busy,
    )


def billed_hours(run_h: np.ndarray, increment_s: float, minimum_s: float) -> np.ndarray:
    """Billed hours per instance for each run: rounded up to the increment, at least the minimum."""
    seconds = run_h * 3600.0
    # Rounding before ceil keeps 3600.0000000001 s (float noise) from billing a second hour.
    billed = np.ceil(np.round(seconds / increment_s, 9)) * increment_s
    return np.asarray(np.maximum(billed, minimum_s) / 3600.0)


def cloud_ledger(plan: CloudPlan, out: Outcome, edges: np.ndarray) -> Ledger:
    """Cash and accounting ledgers of an on-demand, Savings Plan or bare-metal option."""
    hours = int(edges[-1])
    bill_end = out.start_h + billed_hours(
        out.run_h, plan.billing_increment_s, plan.billing_minimum_s
    )
    inst_hourly = hourly(out.start_h, bill_end, out.units.astype(np.float64), hours)
    paid_gpu = per_month(inst_hourly, edges) * plan.hardware.gpus_per_unit
    used_gpu = per_month(hourly(out.start_h, out.end_h, out.gpus.astype(np.float64), hours), edges)
    od = plan.price.usd_per_hour
    if not isinstance(plan.option, SavingsPlan):
        compute = per_month(inst_hourly, edges) * od
        return Ledger(
            {"cloud_compute": compute},
            {"cloud_compute": compute.copy()},
            gpu_hours_paid=paid_gpu,
            gpu_hours_busy=used_gpu,
        )
    return _savings_plan(plan, plan.option, inst_hourly, edges, paid_gpu, used_gpu)


def savings_plan_hours(
    usage_instances: np.ndarray, commitment_usd: np.ndarray, rate: float, on_demand: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Clock hours under a Savings Plan: (instance-hours covered, used commitment USD, unused
    commitment USD, on-demand overflow USD) per hour. Usage up to the commitment is billed at the
    plan rate, the rest at on-demand, and the unused part of the commitment is paid anyway."""
    covered = np.minimum(usage_instances, commitment_usd / rate)
    used = covered * rate
    return covered, used, commitment_usd - used, (usage_instances - covered) * on_demand


def _savings_plan(
    plan: CloudPlan,
    sp: SavingsPlan,
    inst_hourly: np.ndarray,
    edges: np.ndarray,
    paid_gpu: np.ndarray,
    used_gpu: np.ndarray,
) -> Ledger:
    hours = int(edges[-1])
    assert plan.sp_rate is not None
    rate = plan.sp_rate.usd_per_hour
    od = plan.price.usd_per_hour
    commit = (
        sp.commitment_usd_per_hour
        if sp.commitment_usd_per_hour is not None
        else float(sp.commitment_instances or 0) * rate
    )
    # AWS terms are 31,536,000 s (1 year) or 94,608,000 s (3 years): 8,760 h per year.
    term_h = int(sp.term_years * defaults.HOURS_PER_YEAR)
    term_starts = list(range(0, hours, term_h)) if sp.renew else [0]
    active = np.zeros(hours)
    for t0 in term_starts:
        active[t0 : min(hours, t0 + term_h)] = 1.0
    commit_h = commit * active
    covered, used_commit, unused_commit, overflow = savings_plan_hours(
        inst_hourly, commit_h, rate, od
    )
    upfront = {
        "No Upfront": 0.0,
        "Partial Upfront": defaults.PARTIAL_UPFRONT_FRACTION,
        "All Upfront": 1.0,
    }[sp.payment]
    cash_commit = per_month(commit_h, edges) * (1.0 - upfront)
    for t0 in term_starts:
        month = int(np.searchsorted(edges, t0, side="right") - 1)
        cash_commit[month] += upfront * commit * term_h
    beyond_h = max(0, term_starts[-1] + term_h - hours)
    compute = per_month(overflow, edges)
    return Ledger(
        cash={"cloud_compute": compute, "sp_commitment": cash_commit},
        accounting={
            "cloud_compute": compute.copy(),
            "sp_commitment_used": per_month(used_commit, edges),
            "sp_commitment_unused": per_month(unused_commit, edges),
        },
        gpu_hours_paid=paid_gpu,
        gpu_hours_busy=used_gpu,
        sp_utilisation=_ratio(per_month(used_commit, edges), per_month(commit_h, edges)),
        sp_coverage=_ratio(per_month(covered, edges), per_month(inst_hourly, edges)),
        notes={
            "commitment_usd_per_hour": commit,
            "commitment_beyond_horizon_usd": commit * beyond_h,
            "prepaid_beyond_horizon_usd": upfront * commit * beyond_h,
        },
    )
