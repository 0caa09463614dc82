"""Savings Plans: a $/hour commitment for 1 or 3 years over on-demand instances.

Usage up to the commitment is billed at the plan rate, the rest at on-demand, and the unused part
of the commitment is paid anyway. Terms are AWS's 8,760 h per year and renew back to back when
``renew`` is set; an upfront payment (all, or the partial share) falls in the month a term starts.

A term that runs past the horizon: its hours beyond the horizon are not the horizon's cost. Monthly
payments for them fall after the horizon anyway; the part of an upfront payment that prepaid them
is credited back in the last month (``sp_prepaid_carried``), as an owned server's value at the
horizon is, so that a fully used plan costs exactly its rate x the horizon's hours whatever the
payment option. (The alternative, not starting a term the horizon cannot use, would bill the
horizon's last hours on demand: a plan renewed for the last day of a 36-month horizon is still
cheaper than on-demand for that day.) Both amounts are also reported in the notes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import model_validator

from tco.pricing.errors import PricingError
from tco.pricing.records import Price
from tco.simulator.core import defaults
from tco.simulator.core.calendar import month_index, per_month
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Fraction, Pos
from tco.simulator.core.quote import price_quote
from tco.simulator.costs.ledger import Category, Ledger, Series, declare, ratio
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.registry import Context, register
from tco.simulator.kinds.rented.billing import savings_plan_hours, usage
from tco.simulator.kinds.rented.cloud import CloudKind
from tco.simulator.kinds.rented.model import CloudBase
from tco.simulator.kinds.rented.plan import CloudPlan
from tco.simulator.kinds.runs import JobRuns

declare(
    Category(
        "sp_commitment",
        "Savings Plan commitment",
        "cloud prices",
        "#c44e52",
        charge="Purchase",
        commitment="purchase",
    ),
    Category("sp_commitment_used", "commitment used", "cloud prices", "#c44e52", commitment="used"),
    Category(
        "sp_commitment_unused", "commitment unused", "cloud prices", "#ffb3b3", commitment="unused"
    ),
    Category(
        "sp_prepaid_carried",
        "prepaid commitment carried past the horizon",
        "cloud prices",
        "#e8a0a0",
        credit=True,
    ),
    Category(
        "sp_commitment_after_end",
        "Savings Plan commitment for after the project ends",
        "cloud prices",
        "#8c1c1f",
        charge="Purchase",
        commitment="purchase",
    ),
    Series("sp_utilisation", "commitment utilisation", chart_label="commitment used"),
    Series("sp_coverage", "commitment coverage"),
)
UPFRONT_SHARE = {
    "No Upfront": 0.0,
    "Partial Upfront": defaults.PARTIAL_UPFRONT_FRACTION,
    "All Upfront": 1.0,
}


class SavingsPlan(CloudBase):
    """On-demand instances under a Savings Plan commitment ($/hour, paid whether used or not)."""

    kind: Literal["savings_plan"]
    plan: Literal["Compute", "EC2Instance"] = "Compute"
    term_years: Literal[1, 3] = 1
    payment: Literal["No Upfront", "Partial Upfront", "All Upfront"] = "No Upfront"
    commitment_usd_per_hour: Pos | None = None
    commitment_instances: Pos | None = None  # commitment = this many instances at the plan rate
    rate_usd_per_hour: Pos | None = None
    discount: Fraction | None = None  # off the on-demand price
    rate_source: str | None = None
    renew: bool = True

    @model_validator(mode="after")
    def _commitment(self) -> SavingsPlan:
        if (self.commitment_usd_per_hour is None) == (self.commitment_instances is None):
            raise ValueError("give either commitment_usd_per_hour or commitment_instances")
        if self.rate_usd_per_hour is not None and self.instance_types is not None:
            raise ValueError(
                "rate_usd_per_hour prices one instance_type; for a fleet give discount"
            )
        if self.rate_usd_per_hour is not None and self.discount is not None:
            raise ValueError("give rate_usd_per_hour or discount, not both")
        if (
            self.rate_usd_per_hour is not None or self.discount is not None
        ) and not self.rate_source:
            raise ValueError("a Savings Plan rate or discount needs rate_source")
        others = sorted({t.split(":")[0] for t in self.types() if ":" in t})
        if others and self.rate_usd_per_hour is None and self.discount is None:
            # No per-instance commitment rate of another provider is public in the bundled
            # data (shared clouds commitment_prices.csv: GCP "up to 57 %", Azure "up to 72 %",
            # CoreWeave "up to 60 %" are ceilings, not quotes).
            raise ValueError(
                f"a Savings Plan is AWS's; {', '.join(others)} has no sourced commitment rate"
                " (providers with one: aws). Give rate_usd_per_hour or discount with"
                " rate_source (a quote), or rent it on demand"
            )
        return self


@dataclass(frozen=True, kw_only=True)
class SavingsPlanPlan(CloudPlan):
    option: SavingsPlan
    sp_rate: Price  # $/instance-hour of the first shape under the plan
    sp_rates: tuple[Price | None, ...]  # per shape; None: not covered (EC2 Instance plan)


# Offline, no Savings Plan rate table is bundled: the reserved-instance rate of the same term and
# payment stands in (EC2 Instance SP ~ standard RI, Compute SP ~ convertible RI; a GUESS recorded
# in shared/data/aws/README.md "Not found in this pass"), labelled as such wherever it appears.
STAND_IN_OFFERING = {"EC2Instance": "standard", "Compute": "convertible"}


def newsvendor_instances(plan: SavingsPlanPlan, runs: JobRuns, edges: np.ndarray) -> float:
    """The newsvendor commitment, in instances of the plan's first shape (to the hundredth):
    one more instance of commitment costs (1 - d) x the price every hour and saves the price in
    each hour usage reaches it, so the best level is the d-quantile of hourly usage (d: the
    plan's discount off on-demand)."""
    inst = usage(plan, runs, edges).instances_hourly
    rates = np.array([r.usd_per_hour if r else 0.0 for r in plan.sp_rates])
    # Usage at plan rates, in instances of the first shape (its discount is the plan's).
    hourly = rates @ inst / plan.sp_rate.usd_per_hour
    discount = 1.0 - plan.sp_rate.usd_per_hour / plan.price.usd_per_hour
    return round(float(np.quantile(hourly, discount)), 2)


def family(instance_type: str) -> str:
    """An EC2 instance family: the type's name before the size (p4d.24xlarge -> p4d)."""
    return instance_type.split(".", 1)[0]


def _rate(o: SavingsPlan, ctx: Context, itype: str | None, on_demand: Price) -> Price:
    """The plan rate of one instance type: the scenario's rate or discount, else the price
    book's, else the reserved-instance stand-in (never invented)."""
    if o.rate_usd_per_hour is not None:
        assert o.rate_source is not None
        return Price(o.rate_usd_per_hour, "scenario", "undated", o.rate_source, "scenario")
    if o.discount is not None:
        assert o.rate_source is not None
        return Price(
            on_demand.usd_per_hour * (1 - o.discount),
            "scenario",
            on_demand.as_of,
            f"{o.discount:.0%} off {on_demand.label()}; discount from {o.rate_source}",
            "scenario",
        )
    field = f"{ctx.where}.rate_usd_per_hour"
    if itype is None:
        msg = "a Savings Plan on a custom instance needs rate_usd_per_hour or discount"
        raise ScenarioError(ctx.file, field, msg)
    try:
        return ctx.book.savings_plan(itype, ctx.region, o.plan, o.term_years, o.payment)
    except PricingError as exc:
        missing = str(exc)
    offering = STAND_IN_OFFERING[o.plan]
    try:
        ri = ctx.book.reserved(itype, ctx.region, o.term_years, offering, o.payment)
    except PricingError:
        raise ScenarioError(
            ctx.file,
            field,
            f"{missing}, and no {offering} reserved-instance rate stands in for it. To fix: set"
            " rate_usd_per_hour or discount (with rate_source)",
        ) from None
    return Price(
        ri.usd_per_hour,
        ri.source,
        ri.as_of,
        f"STAND-IN for the {o.plan} Savings Plan rate (not bundled, not published): the"
        f" {offering} RI {o.term_years}yr {o.payment} effective rate ({ri.detail}); EC2 Instance"
        " SP ~ standard RI, Compute SP ~ convertible RI is an approximation",
        "estimate",
    )


def fleet_hours(
    instances: np.ndarray,
    commitment_usd: np.ndarray,
    rates: tuple[float | None, ...],
    on_demand: tuple[float, ...],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A plan over several shapes (rows of ``instances``): AWS applies the commitment to the
    usage with the highest discount first. Returns per hour (on-demand USD covered, used
    commitment USD, on-demand overflow USD)."""
    remaining = np.asarray(commitment_usd, dtype=np.float64).copy()
    covered_od = np.zeros(instances.shape[1])
    overflow = np.zeros(instances.shape[1])
    covered = [s for s, r in enumerate(rates) if r is not None]
    for s in sorted(covered, key=lambda s: (rates[s] or 0.0) / on_demand[s]):
        rate = rates[s]
        assert rate is not None
        cov, _, left, over = savings_plan_hours(instances[s], remaining, rate, on_demand[s])
        remaining = left
        covered_od += cov * on_demand[s]
        overflow += over
    for s in set(range(len(rates))) - set(covered):
        overflow += instances[s] * on_demand[s]
    return covered_od, commitment_usd - remaining, overflow


@register
class SavingsPlanKind(CloudKind[SavingsPlan, SavingsPlanPlan]):
    can_do = frozenset({Can.SEARCH, Can.FIT, Can.FINISH, Can.PLACES})
    cannot: ClassVar[Mapping[Can, str]] = {
        **CloudKind.cannot,
        Can.PROPOSE: "a commitment is fitted to usage a proposal does not have yet: the catalog"
        " proposes on-demand rentals, and a mix fits a plan to what they leave",
    }
    name = "savings_plan"
    model = SavingsPlan
    label = "Savings Plan"
    knobs = ("commitment_instances", "term_years", "payment")
    # The commitment and its rate price the hours; which instance runs a job follows the
    # on-demand prices (the fleet rule), so none of these changes the play.
    money_fields = (
        "commitment_usd_per_hour",
        "commitment_instances",
        "term_years",
        "payment",
        "rate_usd_per_hour",
        "discount",
        "renew",
    )

    def cannot_rent(self, o: SavingsPlan, ctx: Context, itype: str) -> str:
        """Also: a plan rate for the type (another provider's only from a rate or discount
        the scenario gives with its source)."""
        why = super().cannot_rent(o, ctx, itype)
        if why:
            return why
        if ":" in itype and o.rate_usd_per_hour is None and o.discount is None:
            return "no sourced commitment rate outside AWS"
        try:
            _rate(o, ctx, itype, ctx.book.on_demand(itype, ctx.region))
        except (ScenarioError, PricingError):
            return "no Savings Plan rate, nor a reserved rate to stand in for it"
        return ""

    def plan(self, option: SavingsPlan, ctx: Context) -> SavingsPlanPlan:
        base = self.cloud_plan(option, ctx)
        item = f"{option.plan} Savings Plan rate ({option.term_years}yr, {option.payment})"
        types = [] if option.instance is not None else [s.name for s in base.shapes]
        covers = family(types[0]) if types and option.plan == "EC2Instance" else None
        rates: list[Price | None] = []
        quotes = list(base.quotes)
        for n, sh in enumerate(base.shapes):
            if covers is not None and family(sh.name) != covers:
                rates.append(None)  # an EC2 Instance plan covers one family in one region
                continue
            rates.append(_rate(option, ctx, types[n] if types else None, sh.price))
            label = item if len(base.shapes) == 1 else f"{sh.name} {item}"
            quotes.append(price_quote(label, rates[-1]))  # type: ignore[arg-type]
        shared = {f: getattr(base, f) for f in CloudPlan.__dataclass_fields__}
        shared["quotes"] = tuple(quotes)
        first = rates[0]
        assert first is not None
        return SavingsPlanPlan(**shared, sp_rate=first, sp_rates=tuple(rates))

    def search(
        self, option: SavingsPlan, prepared: Any, index: int, evaluate: Callable[..., Any]
    ) -> list[Any]:
        """The newsvendor commitment: one more instance of commitment costs (1 - d) x the price
        every hour and saves the price in each hour usage reaches it, so the best commitment is
        the level hourly usage reaches with probability 1 - d (d: the plan's discount), i.e. the
        d-quantile of the option's own hourly instance usage. Around it, half and one and a half
        times it; at it, every term and payment option."""
        plan = prepared.plans[index]
        runs = self.play(prepared.jobs, plan, prepared.horizon_h, np.random.default_rng(0))
        best = newsvendor_instances(plan, runs, prepared.edges)
        out = []
        for c in sorted({best, round(best / 2, 2), round(best * 1.5, 2)}):
            if c > 0:
                variant = option.model_copy(
                    update={"commitment_instances": c, "commitment_usd_per_hour": None}
                )
                grid = {"commitment_instances": c, "term_years": option.term_years}
                out.append(evaluate(variant, {**grid, "payment": option.payment}))
        # A rate the scenario gives prices one term and payment: the others would be priced at
        # it too, which no one can buy (their own rates are not known), so they are not tried.
        if best > 0 and option.rate_usd_per_hour is None and option.discount is None:
            for term in (1, 3):
                for payment in UPFRONT_SHARE:
                    variant = option.model_copy(
                        update={
                            "commitment_instances": best,
                            "commitment_usd_per_hour": None,
                            "term_years": term,
                            "payment": payment,
                        }
                    )
                    knobs: dict[str, Any] = {
                        "commitment_instances": best,
                        "term_years": term,
                        "payment": payment,
                    }
                    out.append(evaluate(variant, knobs))
        return out

    def with_knobs(self, option: SavingsPlan, knobs: Mapping[str, Any]) -> SavingsPlan:
        """A commitment in instances replaces one in $/hour."""
        if "commitment_instances" in knobs:
            option = option.model_copy(update={"commitment_usd_per_hour": None})
        return super().with_knobs(option, knobs)

    def fit_to_usage(
        self, plan: SavingsPlanPlan, runs: JobRuns, edges: np.ndarray
    ) -> dict[str, Any] | None:
        """The newsvendor commitment of the usage it got (a mix's residual, say); None when
        that is no commitment at all (a plan of none is no plan: on-demand is the option)."""
        best = newsvendor_instances(plan, runs, edges)
        return {"commitment_instances": best} if best > 0 else None

    def ledger(self, plan: SavingsPlanPlan, runs: JobRuns, edges: np.ndarray) -> Ledger:
        sp = plan.option
        use = usage(plan, runs, edges)
        hours = int(edges[-1])
        rate = plan.sp_rate.usd_per_hour
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
        covered_od, used_commit, overflow = fleet_hours(
            use.instances_hourly,
            commit_h,
            tuple(r.usd_per_hour if r else None for r in plan.sp_rates),
            tuple(sh.price.usd_per_hour for sh in plan.shapes),
        )
        unused_commit = commit_h - used_commit
        upfront = UPFRONT_SHARE[sp.payment]
        cash_commit = per_month(commit_h, edges) * (1.0 - upfront)
        for t0 in term_starts:
            month = month_index(edges, t0)
            cash_commit[month] += upfront * commit * term_h
        beyond_h = max(0, term_starts[-1] + term_h - hours)
        compute = per_month(overflow, edges)
        used = per_month(used_commit, edges)
        billed = per_month(use.on_demand_usd_hourly(plan), edges)
        cash = {"cloud_compute": compute, "sp_commitment": cash_commit}
        if upfront > 0:  # the prepaid hours beyond the horizon are credited, like resale
            carried = np.zeros(len(edges) - 1)
            carried[-1] = -upfront * commit * beyond_h
            cash["sp_prepaid_carried"] = carried
        return Ledger(
            cash=cash,
            accounting={
                "cloud_compute": compute.copy(),
                "sp_commitment_used": used,
                "sp_commitment_unused": per_month(unused_commit, edges),
            },
            gpu_hours_paid=use.paid_gpu_h,
            draws=use.draws(plan),
            gpu_hours_busy=use.busy_gpu_h,
            series={
                "sp_utilisation": ratio(used, per_month(commit_h, edges)),
                "sp_coverage": ratio(per_month(covered_od, edges), billed),
            },
            notes={
                "commitment_usd_per_hour": commit,
                "commitment_beyond_horizon_usd": commit * beyond_h,
                "prepaid_beyond_horizon_usd": upfront * commit * beyond_h,
            },
            # All of it when the project ends: the prepaid part was credited back above.
            owed_after_horizon={"sp_commitment_after_end": commit * beyond_h},
        )
