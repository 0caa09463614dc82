"""What every rented-instance kind shares: the instance (an EC2 type or a custom machine), its
price, billing by increments with a minimum, and elastic play with an optional quota.

Cloud options without a quota start every job on arrival (plus any provisioning delay) and need
no events; with a quota, jobs queue for instances (``simulator.scheduler``). Each job rents whole
instances. :class:`CloudKind` is not registered itself: on-demand, Savings Plan and bare metal
subclass it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, ClassVar, TypeVar

import numpy as np
from pydantic import Field, model_validator

from tco.pricing import hardware
from tco.pricing.errors import PricingError
from tco.pricing.records import Price
from tco.simulator import defaults
from tco.simulator.calendar import per_month
from tco.simulator.errors import ScenarioError
from tco.simulator.fields import Count, Date, Fraction, GpuCount, NonNeg, OptionModel, Strict
from tco.simulator.jobs import Jobs
from tco.simulator.kinds.registry import Context, Kind
from tco.simulator.ledger import Ledger
from tco.simulator.plan import Plan, price_quote, speed_quote
from tco.simulator.runs import JobRuns, feasibility
from tco.simulator.scheduler import QueueInput, simulate
from tco.simulator.speed import Hardware, run_hours
from tco.simulator.usage import hourly


class CustomInstance(Strict):
    """A rented machine not in the AWS price book (e.g. another provider's bare metal)."""

    gpu: str
    gpus: GpuCount
    usd_per_hour: NonNeg
    price_source: str = Field(min_length=1)
    price_as_of: Date
    intra_node: str = "nvswitch_a100"
    inter_node: str = "ib_hdr"


class CloudBase(OptionModel):
    """Fields every cloud option has; each kind adds ``kind`` (and its own fields)."""

    name: str = Field(min_length=1)
    instance_type: str | None = None
    instance: CustomInstance | None = None
    usd_per_hour: NonNeg | None = None  # overrides the price book
    price_source: str | None = None  # required with usd_per_hour
    quota_instances: Count | None = None
    provisioning_delay_minutes: NonNeg = 0.0
    virtualization_overhead: Fraction | None = None
    billing_increment_s: Annotated[float, Field(ge=1)] | None = None
    billing_minimum_s: NonNeg | None = None

    @model_validator(mode="after")
    def _one_machine(self) -> CloudBase:
        if self.instance_type is None and self.instance is None:
            raise ValueError(
                "give instance_type (an EC2 type, priced from AWS) or instance (a machine"
                " described in the scenario)"
            )
        if self.instance_type is not None and self.instance is not None:
            raise ValueError("give either instance_type (priced from AWS) or instance, not both")
        if self.usd_per_hour is not None and not self.price_source:
            raise ValueError("usd_per_hour needs price_source: say where the price comes from")
        return self


@dataclass(frozen=True, kw_only=True)
class CloudPlan(Plan):
    option: CloudBase
    price: Price  # per instance-hour
    quota_instances: int | None
    delay_h: float
    billing_increment_s: float
    billing_minimum_s: float


C = TypeVar("C", bound=CloudBase)
T = TypeVar("T")
CP = TypeVar("CP", bound=CloudPlan)


def guard(ctx: Context, field: str, look_up: Callable[..., T], *args: str) -> T:
    """A catalog or price-book look-up whose failure names the option's field."""
    try:
        return look_up(*args)
    except PricingError as exc:
        raise ScenarioError(ctx.file, f"{ctx.where}.{field}", str(exc)) from None


def billed_hours(run_h: np.ndarray, increment_s: float, minimum_s: float) -> np.ndarray:
    """Billed hours per instance for each run: rounded up to the increment, at least the minimum."""
    seconds = run_h * 3600.0
    # Rounding before ceil keeps 3600.0000000001 s (float noise) from billing a second hour.
    billed = np.ceil(np.round(seconds / increment_s, 9)) * increment_s
    return np.asarray(np.maximum(billed, minimum_s) / 3600.0)


@dataclass(frozen=True)
class Usage:
    """A cloud option's usage: instances billed per clock hour, GPU-hours billed and busy per
    month."""

    instances_hourly: np.ndarray
    paid_gpu_h: np.ndarray
    busy_gpu_h: np.ndarray


def usage(plan: CloudPlan, runs: JobRuns, edges: np.ndarray) -> Usage:
    """Billed instances per clock hour (each run rounded up by the plan's billing rules) and
    GPU-hours billed and busy per month."""
    hours = int(edges[-1])
    bill_end = runs.start_h + billed_hours(
        runs.run_h, plan.billing_increment_s, plan.billing_minimum_s
    )
    inst_hourly = hourly(runs.start_h, bill_end, runs.units.astype(np.float64), hours)
    paid_gpu = per_month(inst_hourly, edges) * plan.hardware.gpus_per_unit
    busy = per_month(hourly(runs.start_h, runs.end_h, runs.gpus.astype(np.float64), hours), edges)
    return Usage(inst_hourly, paid_gpu, busy)


class CloudKind(Kind[C, CP]):
    """Rented instances. Subclasses set the billing defaults and whether the machine is bare."""

    bare_metal: ClassVar[bool] = False
    billing_increment_s: ClassVar[float] = defaults.CLOUD_BILLING_INCREMENT_S
    billing_minimum_s: ClassVar[float] = defaults.CLOUD_BILLING_MINIMUM_S
    price_item: ClassVar[str] = "instance price (on-demand)"

    def check(self, option: C, ctx: Context) -> None:
        if option.instance is not None:
            i = option.instance
            guard(ctx, "instance.gpu", hardware.gpu, i.gpu)
            guard(ctx, "instance.intra_node", hardware.interconnect, i.intra_node)
            guard(ctx, "instance.inter_node", hardware.interconnect, i.inter_node)
            return
        assert option.instance_type is not None
        spec = guard(ctx, "instance_type", ctx.book.spec, option.instance_type, ctx.region)
        if spec.gpu_model is None:
            raise ScenarioError(
                ctx.file,
                f"{ctx.where}.instance_type",
                f"{option.instance_type} has {spec.aws_gpu_name} accelerators, which have no"
                " speed data in the GPU catalog; choose a GPU instance or describe the machine"
                " with instance:",
            )

    def machine(self, o: C, ctx: Context) -> tuple[Hardware, Price, str]:
        """Where jobs run, the instance's price and a label, from the book or the scenario."""
        bare = self.bare_metal
        if o.instance is not None:
            g = hardware.gpu(o.instance.gpu)
            price = Price(
                o.instance.usd_per_hour, "scenario", o.instance.price_as_of, o.instance.price_source
            )
            args = (g.name, g.memory_gb, o.instance.gpus, o.instance.intra_node)
            inter = o.instance.inter_node
            label = (
                f"custom instance: {o.instance.gpus} x {g.name} (price source in the prices table)"
            )
        else:
            assert o.instance_type is not None
            spec = ctx.book.spec(o.instance_type, ctx.region)
            assert spec.gpu_model is not None
            bare = bare or spec.bare_metal
            args = (spec.gpu_model, spec.gpu_memory_gib, spec.gpu_count, spec.intra_node)
            inter = spec.inter_node
            label = f"{o.instance_type} ({spec.gpu_count} x {spec.gpu_model}) in {ctx.region}"
            if o.usd_per_hour is None:
                try:
                    price = ctx.book.on_demand(o.instance_type, ctx.region)
                except PricingError as exc:
                    raise ScenarioError(ctx.file, f"{ctx.where}.usd_per_hour", str(exc)) from None
        if o.usd_per_hour is not None:
            assert o.price_source is not None
            price = Price(o.usd_per_hour, "scenario", "undated", o.price_source)
        virt = o.virtualization_overhead
        if virt is None:
            virt = 0.0 if bare else defaults.VIRTUALIZATION_OVERHEAD
        hw = Hardware(*args, inter, virtualization_overhead=virt, speed=ctx.speed(args[0]))
        return hw, price, label

    def cloud_plan(self, o: C, ctx: Context) -> CloudPlan:
        """The plan fields every cloud kind shares."""
        hw, price, label = self.machine(o, ctx)
        minimum = o.billing_minimum_s
        return CloudPlan(
            option=o,
            hardware=hw,
            quotes=(price_quote(self.price_item, price), speed_quote(ctx.speed(hw.gpu))),
            description=label,
            price=price,
            quota_instances=o.quota_instances,
            delay_h=o.provisioning_delay_minutes / 60.0,
            billing_increment_s=o.billing_increment_s or self.billing_increment_s,
            billing_minimum_s=self.billing_minimum_s if minimum is None else minimum,
        )

    def play(self, jobs: Jobs, plan: CP, horizon_h: float, rng: np.random.Generator) -> JobRuns:
        hw = plan.hardware
        run = run_hours(jobs, hw)
        start = np.full(len(jobs), np.nan)
        units = -(-jobs.gpus // hw.gpus_per_unit)  # whole instances
        quota = plan.quota_instances
        limit = quota * hw.gpus_per_unit if quota is not None else np.iinfo(np.int64).max
        reason, text = feasibility(jobs, hw, int(limit), "GPUs of the instance quota")
        idx = np.nonzero(reason == "")[0]
        if quota is None:
            start[idx] = jobs.arrival_h[idx] + plan.delay_h
        elif len(idx):
            acquired = simulate(
                QueueInput(
                    jobs.arrival_h[idx],
                    units[idx],
                    run[idx] + plan.delay_h,
                    [(0.0, quota)],
                    horizon_h,
                )
            )
            start[idx] = acquired + plan.delay_h
        start[start >= horizon_h] = np.nan
        return JobRuns(
            run_h=run,
            gpus=jobs.gpus,
            units=units,
            start_h=start,
            end_h=start + run,
            reason=reason,
            reason_text=text,
        )

    def ledger(self, plan: CP, runs: JobRuns, edges: np.ndarray) -> Ledger:
        """Every billed instance-hour at the instance price."""
        use = usage(plan, runs, edges)
        compute = per_month(use.instances_hourly, edges) * plan.price.usd_per_hour
        return Ledger(
            cash={"cloud_compute": compute},
            accounting={"cloud_compute": compute.copy()},
            gpu_hours_paid=use.paid_gpu_h,
            gpu_hours_busy=use.busy_gpu_h,
        )
