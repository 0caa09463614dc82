"""Spot instances: the spot price, interrupted as a Poisson process per instance.

The rate is the scenario's ``interruptions_per_instance_month`` or, when absent, the one the
Spot Instance Advisor bucket of the type and region stands for (``defaults.SPOT_BUCKET_SHARE``).
An interrupted job loses the work since its last checkpoint, waits for capacity, restarts and
resumes (``cluster.interruptions``); after ``fallback_to_on_demand_after`` interruptions the
rest of it runs on-demand. A job on k instances is interrupted at k x the per-instance rate.
Capacity is otherwise unlimited, so there is no quota.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.pricing.errors import PricingError
from tco.pricing.records import Price
from tco.simulator.cluster.interruptions import Checkpointing, check_interruptions, run_job
from tco.simulator.core import defaults
from tco.simulator.core.calendar import per_month
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Count, NonNeg, Pos
from tco.simulator.core.limits import MAX_EVENTS
from tco.simulator.core.quote import Quote, price_quote
from tco.simulator.costs.ledger import Category, Ledger, declare
from tco.simulator.kinds.cloud import CloudBase, CloudKind, CloudPlan, usage
from tco.simulator.kinds.fleet import place
from tco.simulator.kinds.registry import Context, register
from tco.simulator.kinds.runs import JobRuns, Rentals
from tco.simulator.workload.jobs import Jobs

declare(
    Category(
        "spot_fallback_compute",
        "on-demand after spot interruptions",
        "cloud prices",
        "#8c6d31",
    )
)


class Spot(CloudBase):
    """Spot instances, interrupted and resumed from checkpoints."""

    kind: Literal["spot"]
    # At most one an hour (720 a month): the Spot Instance Advisor's worst bucket, ">20 %" a
    # month, is about 0.25; a rate above one an hour is a typo, not a market.
    interruptions_per_instance_month: Annotated[float, Field(ge=0, le=720)] | None = None
    checkpoint_interval_hours: Pos = defaults.CHECKPOINT_INTERVAL_HOURS
    checkpoint_write_minutes: NonNeg = defaults.CHECKPOINT_WRITE_MINUTES
    restart_overhead_minutes: NonNeg = defaults.RESTART_OVERHEAD_MINUTES
    capacity_wait_hours: NonNeg = 0.0  # after an interruption, before an instance is back
    fallback_to_on_demand_after: Count | None = None

    @model_validator(mode="after")
    def _spot(self) -> Spot:
        if self.quota_instances is not None:
            raise ValueError("spot runs without a quota here; drop quota_instances")
        if self.shared_instances:
            raise ValueError("shared instances under spot interruptions are not modelled")
        if self.instance is not None and self.fallback_to_on_demand_after is not None:
            raise ValueError("a custom instance has no on-demand price to fall back to")
        return self


RATE_FIELD = "interruptions_per_instance_month"


@dataclass(frozen=True, kw_only=True)
class SpotPlan(CloudPlan):
    option: Spot
    on_demand: tuple[Price | None, ...]  # per shape, for the fallback
    rate_per_instance_h: tuple[float, ...]  # per shape
    checkpointing: Checkpointing


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
            f"the Spot Instance Advisor has no interruption figure for {itype or 'a custom'}"
            f" instance in {ctx.region}; give interruptions_per_instance_month (e.g. 0.3)",
        )
    rate = defaults.spot_rate_per_month(bucket)
    detail = (
        f"AWS Spot Instance Advisor bucket {bucket} of instances interrupted a month in"
        f" {ctx.region}, taken as {defaults.SPOT_BUCKET_SHARE[bucket]:.1%} (bucket midpoint;"
        " >20% taken as 25%, a guess), as a Poisson rate -ln(1-p)"
    )
    return rate, Quote(
        item, round(rate, 4), "per instance-month", "bundled snapshot", "2025-11-30", detail
    )


@register
class SpotKind(CloudKind[Spot, SpotPlan]):
    name = "spot"
    model = Spot
    label = "cloud spot"
    price_item: ClassVar[str] = "spot price (lowest AZ)"

    def caveats(self, name: str, quotes: tuple[Quote, ...]) -> list[str]:
        rates = sorted({f"{q.value:g}" for q in quotes if q.unit == "per instance-month"})
        dates = sorted({q.as_of for q in quotes if q.unit == "USD/h" and "spot" in q.item})
        return [
            f"{name} rests on spot prices of one moment (as of {', '.join(dates) or 'undated'}),"
            " which move: the lowest-AZ p4d.24xlarge spot price in us-east-1 was $2.47/h in one"
            " 2025 source and $8.05/h in another; and on interruption rates of"
            f" {', '.join(rates)} per instance-month from the Spot Instance Advisor's buckets"
            " (a share of instances interrupted a month, '>20%' taken as 25%, a guess). Compare"
            " the on-demand cost of the same jobs before committing to it."
        ]

    def instance_price(self, o: Spot, ctx: Context, itype: str, field: str) -> Price:
        try:
            return ctx.book.spot(itype, ctx.region)
        except PricingError as exc:
            raise ScenarioError(
                ctx.file, f"{ctx.where}.{field}", f"{exc}; or give usd_per_hour"
            ) from None

    def plan(self, option: Spot, ctx: Context) -> SpotPlan:
        base = self.cloud_plan(option, ctx)
        types = option.types()
        rates, on_demand, quotes = [], [], list(base.quotes)
        for n, _ in enumerate(base.shapes):
            itype = types[n] if types else None
            rate, quote = _rate(option, ctx, itype)
            rates.append(rate / defaults.HOURS_PER_MONTH)
            quotes.append(quote)
            od = None
            if itype is not None and option.fallback_to_on_demand_after is not None:
                od = super().instance_price(option, ctx, itype, "fallback_to_on_demand_after")
                quotes.append(price_quote(f"{itype} on-demand price (fallback)", od))
            on_demand.append(od)
        o = option
        c = Checkpointing(
            interval_h=o.checkpoint_interval_hours,
            write_h=o.checkpoint_write_minutes / 60.0,
            restart_h=o.restart_overhead_minutes / 60.0,
            wait_h=o.capacity_wait_hours + base.delay_h,
            fallback_after=o.fallback_to_on_demand_after,
        )
        shared = {f: getattr(base, f) for f in CloudPlan.__dataclass_fields__}
        shared["quotes"] = tuple(quotes)
        return SpotPlan(
            **shared, on_demand=tuple(on_demand), rate_per_instance_h=tuple(rates), checkpointing=c
        )

    def play(
        self, jobs: Jobs, plan: SpotPlan, horizon_h: float, rng: np.random.Generator
    ) -> JobRuns:
        at = place(jobs, plan.shapes, np.iinfo(np.int64).max, "GPUs", False)
        n = len(jobs)
        start, end = np.full(n, np.nan), np.full(n, np.nan)
        interrupted, lost = np.zeros(n, np.int64), np.zeros(n)
        rows: list[tuple[int, float, float, float, bool, float]] = []
        ok = np.nonzero(at.reason == "")[0]
        rates = at.units[ok] * np.asarray(plan.rate_per_instance_h)[at.shape[ok]]
        check_interruptions(at.run_h[ok], rates, plan.checkpointing, RATE_FIELD)
        cap = MAX_EVENTS.value()
        for j in ok.tolist():
            s, k = int(at.shape[j]), int(at.units[j])
            t0 = float(jobs.arrival_h[j]) + plan.delay_h
            if t0 >= horizon_h:
                continue
            rate = k * plan.rate_per_instance_h[s]
            tries = run_job(t0, float(at.run_h[j]), rate, plan.checkpointing, rng, cap)
            start[j], end[j] = tries[0].start_h, tries[-1].end_h
            interrupted[j] = len(tries) - 1  # every attempt but the last was cut short
            lost[j] = sum(a.lost_h for a in tries) * jobs.gpus[j]
            rows.extend((s, a.start_h, a.end_h, k, a.fallback, jobs.gpus[j]) for a in tries)
        cols: list[tuple[object, ...]] = list(zip(*rows, strict=True)) if rows else [()] * 6
        rentals = Rentals(
            shape=np.asarray(cols[0], np.int64),
            start_h=np.asarray(cols[1], np.float64),
            end_h=np.asarray(cols[2], np.float64),
            count=np.asarray(cols[3], np.float64),
            fallback=np.asarray(cols[4], bool),
            busy_gpus=np.asarray(cols[5], np.float64),
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
        cash = {"cloud_compute": per_month(spot.on_demand_usd_hourly(plan), edges)}
        paid = spot.paid_gpu_h
        if r.fallback.any():
            back = usage(plan, replace(runs, rentals=r.subset(r.fallback)), edges)
            prices = np.array([p.usd_per_hour if p else 0.0 for p in plan.on_demand])
            cash["spot_fallback_compute"] = per_month(prices @ back.instances_hourly, edges)
            paid = paid + back.paid_gpu_h
        return Ledger(
            cash=cash,
            accounting={k: v.copy() for k, v in cash.items()},
            gpu_hours_paid=paid,
            gpu_hours_busy=usage(plan, runs, edges).busy_gpu_h,
        )
