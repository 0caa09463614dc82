"""Spot instances: the spot price, interrupted as a Poisson process per instance, and capacity
that is not always there.

Price: the mean over the region's availability zones by default (``spot_price``): an instance
lands where capacity is, not where the price is lowest, and the lowest zone is where every
price-first request goes first; ``lowest_zone`` and ``highest_zone`` are the bounds.

The rate is the scenario's ``interruptions_per_instance_month`` or, when absent, the one the
Spot Instance Advisor bucket of the type and region stands for (``defaults.SPOT_BUCKET_SHARE``;
the scenario's ``market.spot_interruption_quantile`` places it within the bucket instead).
An interrupted job loses the work since its last checkpoint, waits for capacity, restarts and
resumes (``cluster.interruptions``); after ``fallback_to_on_demand_after`` interruptions the
rest of it runs on-demand. A job on k instances is interrupted at k x the per-instance rate.
Each launch finds no capacity with a chance that grows with the instance's size and then waits
for it (``defaults.SPOT_CAPACITY``, an assumption, scaled by ``market.spot_scarcity``); after
``fallback_to_on_demand_after_wait_hours`` of waiting the rest runs on-demand. Checkpoint
writes pause the job for one copy of its state over the store's bandwidth
(``defaults.CHECKPOINT_STORES``; ``Jobs.checkpoint_gb``) and are paid as instance-hours.
There is no quota.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Annotated, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.pricing.errors import PricingError
from tco.pricing.records import Price
from tco.simulator.cluster.interruptions import Checkpointing, check_interruptions, run_jobs
from tco.simulator.core import defaults
from tco.simulator.core.calendar import per_month
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Count, NonNeg, OptionModel, Pos
from tco.simulator.core.limits import MAX_EVENTS
from tco.simulator.core.quote import Quote, price_quote
from tco.simulator.costs.ledger import Category, Ledger, declare
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.registry import Context, Drawn, KnownInput, register
from tco.simulator.kinds.rented import spot_odds
from tco.simulator.kinds.rented.billing import usage
from tco.simulator.kinds.rented.cloud import CloudKind
from tco.simulator.kinds.rented.fleet import Shape, place
from tco.simulator.kinds.rented.model import CloudBase
from tco.simulator.kinds.rented.plan import CloudPlan
from tco.simulator.kinds.rented.spot_odds import Zone
from tco.simulator.kinds.runs import JobRuns, Rentals
from tco.simulator.workload.jobs import Jobs

declare(
    Category(
        "spot_compute",
        "spot compute",
        "cloud prices",
        "#2f8f5b",
        subgroup="spot prices",
        finishes=True,
        rental=True,
    ),
    Category(
        "spot_fallback_compute",
        "on-demand after spot interruptions",
        "cloud prices",
        "#8c6d31",
        subgroup="on_demand prices",
        rental=True,
    ),
)
SPOT_PRICES = {"zone_average": "average", "lowest_zone": "lowest", "highest_zone": "highest"}


class Spot(CloudBase):
    """Spot instances, interrupted and resumed from checkpoints."""

    kind: Literal["spot"]
    # At most one an hour (720 a month): the Spot Instance Advisor's worst bucket, ">20 %" a
    # month, is about 0.25; a rate above one an hour is a typo, not a market.
    interruptions_per_instance_month: Annotated[float, Field(ge=0, le=720)] | None = None
    spot_price: Literal["zone_average", "lowest_zone", "highest_zone"] = "zone_average"
    checkpoint_interval_hours: Pos = defaults.CHECKPOINT_INTERVAL_HOURS
    # Where jobs write checkpoints (defaults.CHECKPOINT_STORES) and, to replace its figure, the
    # GB/s a job gets there; a write takes the job's checkpoint (Jobs.checkpoint_gb) over it.
    checkpoint_store: Literal["object_store", "shared_fs", "local_nvme"] = "object_store"
    checkpoint_write_gb_per_s: Annotated[float, Field(gt=0, le=10_000)] | None = None
    # A fixed write time instead, the same for every job.
    checkpoint_write_minutes: NonNeg | None = None
    restart_overhead_minutes: NonNeg = defaults.RESTART_OVERHEAD_MINUTES
    # A launch finds no capacity with this chance and then waits capacity_wait_hours on average
    # (exponential); None: defaults.SPOT_CAPACITY for the instance's size.
    capacity_short_probability: Annotated[float, Field(ge=0, le=0.99)] | None = None
    capacity_wait_hours: NonNeg | None = None
    fallback_to_on_demand_after: Count | None = None
    fallback_to_on_demand_after_wait_hours: NonNeg | None = None

    @model_validator(mode="after")
    def _spot(self) -> Spot:
        if self.quota_instances is not None:
            raise ValueError("spot runs without a quota here; drop quota_instances")
        if self.shared_instances:
            raise ValueError("shared instances under spot interruptions are not modelled")
        fallback = (self.fallback_to_on_demand_after, self.fallback_to_on_demand_after_wait_hours)
        if self.instance is not None and fallback != (None, None):
            raise ValueError("a custom instance has no on-demand price to fall back to")
        return self


RATE_FIELD = "interruptions_per_instance_month"


@dataclass(frozen=True, kw_only=True)
class SpotPlan(CloudPlan):
    option: Spot
    on_demand: tuple[Price | None, ...]  # per shape, for the fallback
    rate_per_instance_h: tuple[float, ...]  # per shape
    checkpointing: Checkpointing  # capacity per shape in ``capacity``, set when played
    capacity: tuple[tuple[float, float], ...]  # per shape: (chance short, mean wait h)
    write_h_per_gb: float = 0.0  # checkpoint write hours per GB of job state (0: fixed write_h)
    # per instance type: (lowest, highest) spot price over AZs / the price used (empty: unknown)
    zone_spread: tuple[Zone, ...] = ()


def _rate(o: Spot, ctx: Context, itype: str | None) -> tuple[float, Quote]:
    """Interruptions per instance-month, and the quote saying where the figure comes from."""
    item = f"{itype or 'instance'} spot interruptions"
    if o.interruptions_per_instance_month is not None:
        rate = o.interruptions_per_instance_month
        return rate, Quote(item, rate, "per instance-month", "scenario", "undated", "set")
    bucket = None if itype is None else ctx.book.spot_interruption_bucket(itype, ctx.region)
    if bucket is None:
        raise ScenarioError(
            ctx.file,
            f"{ctx.where}.interruptions_per_instance_month",
            f"no interruption figure is known for {itype or 'a custom'} instance in"
            f" {ctx.region} (the Spot Instance Advisor covers AWS only); give"
            " interruptions_per_instance_month (e.g. 0.3)",
        )
    q = ctx.market.spot_interruption_quantile
    rate = defaults.spot_rate_per_month(bucket, q)
    low, high = defaults.SPOT_BUCKET_RANGE[bucket]
    where = (
        f"taken as {defaults.SPOT_BUCKET_SHARE[bucket]:.1%} (bucket midpoint; >20% taken as"
        " 25%, a guess)"
        if q is None
        else f"taken at {q:.2f} of the way from {low:.0%} to {high:.0%} (market:)"
    )
    detail = (
        f"AWS Spot Instance Advisor bucket {bucket} of instances interrupted a month in"
        f" {ctx.region}, {where}, as a Poisson rate -ln(1-p)"
    )
    return rate, Quote(
        item, round(rate, 4), "per instance-month", "bundled snapshot", "2025-11-30", detail
    )


def _zone_spread(ctx: Context, types: list[str], shapes: tuple[Shape, ...]) -> list[Zone]:
    """Per instance type: its lowest and highest spot price over the region's AZs over the
    price the option pays (types whose zone prices are not known are left out)."""
    out = []
    for itype, shape in zip(types, shapes, strict=False):
        paid = shape.price.usd_per_hour
        try:
            low = ctx.book.spot(itype, ctx.region, "lowest").usd_per_hour
            high = ctx.book.spot(itype, ctx.region, "highest").usd_per_hour
        except PricingError:
            continue
        if paid > 0:
            out.append((itype, low / paid, high / paid))
    return out


def _capacity(o: Spot, ctx: Context, gpus_per_instance: int) -> tuple[float, float]:
    """(chance a launch finds no capacity, mean wait h) for one instance size: the option's
    figures, else the assumed ones for the size scaled by the market's scarcity."""
    short, wait = defaults.spot_capacity(gpus_per_instance)
    k = ctx.market.spot_scarcity
    short = (
        min(0.99, short * k)
        if o.capacity_short_probability is None
        else o.capacity_short_probability
    )
    wait = wait * k if o.capacity_wait_hours is None else o.capacity_wait_hours
    return short, wait


def _capacity_quotes(
    o: Spot, ctx: Context, shapes: tuple[Shape, ...], capacity: tuple[tuple[float, float], ...]
) -> list[Quote]:
    set_here = o.capacity_short_probability is not None and o.capacity_wait_hours is not None
    out = []
    for (short, wait), size in sorted(
        {(c, s.hardware.gpus_per_unit) for c, s in zip(capacity, shapes, strict=True)},
        key=lambda x: x[1],
    ):
        detail = (
            "set in the scenario"
            if set_here
            else "ASSUMPTION per instance size (no public measurement of GPU spot capacity;"
            f" 8-GPU instances the scarce ones), x {ctx.market.spot_scarcity:g} (market:)"
        )
        out.append(
            Quote(
                f"spot capacity, {size}-GPU instances",
                round(short, 4),
                f"chance a launch waits (mean {wait:g} h)",
                "scenario" if set_here else "assumption",
                "undated",
                detail,
            )
        )
    return out


@register
class SpotKind(CloudKind[Spot, SpotPlan]):
    name = "spot"
    model = Spot
    cannot: ClassVar[Mapping[Can, str]] = {
        **CloudKind.cannot,
        Can.PROPOSE: "interruption figures exist for AWS's Spot Instance Advisor only: the"
        " catalog proposes on-demand rentals",
    }
    label = "cloud spot"
    price_item: ClassVar[str] = "spot price"
    finishes_at: ClassVar[str] = "spot_compute"

    def caveats(
        self,
        option: Spot,
        options: tuple[OptionModel, ...],
        quotes: tuple[Quote, ...],
        drawn: Drawn = (),
    ) -> list[str]:
        name = option.name
        rates = sorted({f"{q.value:g}" for q in quotes if q.unit == "per instance-month"})
        dates = sorted({q.as_of for q in quotes if q.unit == "USD/h" and "spot" in q.item})
        return [
            f"{name} rests on spot prices of one moment (as of {', '.join(dates) or 'undated'}),"
            " which move: the lowest-AZ p4d.24xlarge spot price in us-east-1 was $2.47/h in one"
            " 2025 source and $8.05/h in another; on interruption rates of"
            f" {', '.join(rates)} per instance-month from the Spot Instance Advisor's buckets"
            " (a share of instances interrupted a month, '>20%' taken as 25%, a guess); and on"
            " assumed spot capacity (a launch waits for an instance, longer for 8-GPU ones: no"
            " measurement found). The odds draw all three. Compare the on-demand cost of the"
            " same jobs before committing to it."
        ]

    def uncertainties(self, plan: SpotPlan, where: str) -> list[KnownInput]:
        o = plan.option
        return spot_odds.uncertainties(
            plan.zone_spread,
            rate_given=o.interruptions_per_instance_month is not None,
            capacity_given=None not in (o.capacity_short_probability, o.capacity_wait_hours),
            falls_back=(o.fallback_to_on_demand_after, o.fallback_to_on_demand_after_wait_hours)
            != (None, None),
        )

    def instance_price(self, o: Spot, ctx: Context, itype: str, field: str) -> Price:
        try:
            return ctx.book.spot(itype, ctx.region, SPOT_PRICES[o.spot_price])
        except PricingError as exc:
            raise ScenarioError(
                ctx.file, f"{ctx.where}.{field}", f"{exc}; or give usd_per_hour"
            ) from None

    def cannot_rent(self, o: Spot, ctx: Context, itype: str) -> str:
        """Also: an interruption rate known for the type (or given in the scenario)."""
        why = super().cannot_rent(o, ctx, itype)
        if why or o.interruptions_per_instance_month is not None:
            return why
        if ctx.book.spot_interruption_bucket(itype, ctx.region) is None:
            return "no interruption figure (the Spot Instance Advisor covers AWS only)"
        return ""

    def plan(self, option: Spot, ctx: Context) -> SpotPlan:
        ctx = self.at(option, ctx)
        base = self.cloud_plan(option, ctx)
        types = [] if option.instance is not None else [s.name for s in base.shapes]
        rates, on_demand, quotes = [], [], list(base.quotes)
        o = option
        falls_back = (o.fallback_to_on_demand_after, o.fallback_to_on_demand_after_wait_hours)
        for n, _ in enumerate(base.shapes):
            itype = types[n] if types else None
            rate, quote = _rate(option, ctx, itype)
            rates.append(rate / defaults.HOURS_PER_MONTH)
            quotes.append(quote)
            od = None
            if itype is not None and falls_back != (None, None):
                od = super().instance_price(option, ctx, itype, "fallback_to_on_demand_after")
                quotes.append(price_quote(f"{itype} on-demand price (fallback)", od))
            on_demand.append(od)
        spread = tuple(_zone_spread(ctx, types, base.shapes))
        capacity = tuple(_capacity(o, ctx, s.hardware.gpus_per_unit) for s in base.shapes)
        quotes += _capacity_quotes(o, ctx, base.shapes, capacity)
        write = o.checkpoint_write_minutes
        c = Checkpointing(
            interval_h=o.checkpoint_interval_hours,
            write_h=0.0 if write is None else write / 60.0,
            restart_h=o.restart_overhead_minutes / 60.0,
            wait_h=base.delay_h,
            fallback_after=o.fallback_to_on_demand_after,
            fallback_wait_h=o.fallback_to_on_demand_after_wait_hours,
        )
        bandwidth, said = defaults.CHECKPOINT_STORES[o.checkpoint_store]
        if o.checkpoint_write_gb_per_s is not None:
            bandwidth, said = o.checkpoint_write_gb_per_s, "set in the scenario"
        if write is None:
            quotes.append(
                Quote(
                    f"checkpoint write ({o.checkpoint_store.replace('_', ' ')})",
                    bandwidth,
                    "GB/s",
                    "scenario" if o.checkpoint_write_gb_per_s is not None else "assumption",
                    "undated",
                    "one copy of a job's model state (its weights and optimizer states where"
                    " its work is a model, else one GPU's memory) written every"
                    f" {o.checkpoint_interval_hours:g} h of work (ASSUMED interval); {said}",
                )
            )
        shared = {f: getattr(base, f) for f in CloudPlan.__dataclass_fields__}
        shared["quotes"] = tuple(quotes)
        return SpotPlan(
            **shared,
            on_demand=tuple(on_demand),
            rate_per_instance_h=tuple(rates),
            checkpointing=c,
            capacity=capacity,
            zone_spread=spread,
            write_h_per_gb=0.0 if write is not None else 1 / bandwidth / 3600,
        )

    def play(
        self, jobs: Jobs, plan: SpotPlan, horizon_h: float, rng: np.random.Generator
    ) -> JobRuns:
        at = place(jobs, plan.shapes, np.iinfo(np.int64).max, "GPUs", False)
        n = len(jobs)
        start, end = np.full(n, np.nan), np.full(n, np.nan)
        interrupted, lost = np.zeros(n, np.int64), np.zeros(n)
        ok = np.nonzero(at.reason == "")[0]
        rates = at.units[ok] * np.asarray(plan.rate_per_instance_h)[at.shape[ok]]
        # A checkpoint holds one copy of the job's state, however many GPUs share it.
        write_h = (
            jobs.checkpoint_gb * plan.write_h_per_gb
            if plan.write_h_per_gb > 0
            else np.full(n, plan.checkpointing.write_h)
        )
        check_interruptions(at.run_h[ok], rates, plan.checkpointing, RATE_FIELD, write_h[ok])
        # Jobs on spot do not interact (each holds its own instances): every job's attempts
        # at once, as arrays (interruptions.run_jobs).
        go = ok[jobs.arrival_h[ok] + plan.delay_h < horizon_h]
        shape = at.shape[go]
        p_short = np.array([p for p, _ in plan.capacity] or [0.0])[shape]
        w_short = np.array([w for _, w in plan.capacity] or [0.0])[shape]
        tries = run_jobs(
            jobs.arrival_h[go] + plan.delay_h,
            at.run_h[go],
            at.units[go] * np.asarray(plan.rate_per_instance_h)[shape],
            write_h[go],
            p_short,
            w_short,
            plan.checkpointing,
            rng,
            MAX_EVENTS.value(),
        )
        job = go[tries.job]
        first = np.ones(len(job), bool)
        first[1:] = job[1:] != job[:-1]
        last = np.ones(len(job), bool)
        last[:-1] = first[1:]
        start[job[first]], end[job[last]] = tries.start_h[first], tries.end_h[last]
        np.add.at(interrupted, job, 1)
        interrupted[job[last]] -= 1  # every attempt but the last was cut short
        np.add.at(lost, job, tries.lost_h)
        lost *= jobs.gpus
        rentals = Rentals(
            shape=at.shape[job].astype(np.int64),
            start_h=tries.start_h,
            end_h=tries.end_h,
            count=at.units[job].astype(np.float64),
            fallback=tries.fallback,
            busy_gpus=jobs.gpus[job].astype(np.float64),
        )
        return JobRuns(
            run_h=np.where(np.isnan(end), at.run_h, end - start),
            clean_run_h=at.run_h,
            gpus=jobs.gpus,
            units=at.units,
            start_h=start,
            end_h=end,
            reason=at.reason,
            reason_text=at.reason_text,
            shape=at.shape,
            rentals=rentals,
            interruptions=interrupted,
            lost_gpu_h=lost,
        )

    def ledger(self, plan: SpotPlan, runs: JobRuns, edges: np.ndarray) -> Ledger:
        """Spot instance-hours at the spot price; fallback instance-hours at on-demand."""
        r = runs.rentals
        assert r is not None and r.fallback is not None
        spot = usage(plan, replace(runs, rentals=r.subset(~r.fallback)), edges)
        cash = {"spot_compute": per_month(spot.on_demand_usd_hourly(plan), edges)}
        paid = spot.paid_gpu_h
        every = usage(plan, runs, edges)  # billed spot or fallback, busy while held
        if r.fallback.any():
            back = usage(plan, replace(runs, rentals=r.subset(r.fallback)), edges)
            prices = np.array([p.usd_per_hour if p else 0.0 for p in plan.on_demand])
            cash["spot_fallback_compute"] = per_month(prices @ back.instances_hourly, edges)
            paid = paid + back.paid_gpu_h
        return Ledger(
            cash=cash,
            accounting={k: v.copy() for k, v in cash.items()},
            gpu_hours_paid=paid,
            gpu_hours_busy=every.busy_gpu_h,
            draws=every.draws(plan),
        )
