"""AWS Capacity Blocks for ML: instances of one type reserved for windows the scenario states
(``blocks``), each paid in full in the month it starts (AWS charges the fee when a block is
bought, up to eight weeks ahead, and refunds nothing); jobs run on the reserved instances while
a block lasts, and on demand beyond them or outside the blocks. The bridge for the months
before servers arrive (a hybrid whose burst is a block), or a short run's capacity.

The play is on demand's (every job starts when it arrives, as on demand is taken to): a block
prices the hours, and its capacity guarantee, which on-demand capacity is assumed to match, is
not modelled. Rates: the scenario's, or the bundled copy of AWS's page (``pricing
.capacity_blocks``: prices that held until 2025-01-01, said doubtful in the answer).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from tco.pricing import capacity_blocks
from tco.pricing.errors import PricingError
from tco.pricing.records import Price
from tco.simulator.core.calendar import month_edges_h, per_month
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import OptionModel, Pos, Strict
from tco.simulator.core.quote import Quote, price_quote
from tco.simulator.costs.ledger import Category, Ledger, Series, declare, ratio
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.registry import Context, Drawn, register
from tco.simulator.kinds.rented.billing import savings_plan_hours, usage
from tco.simulator.kinds.rented.cloud import CloudKind
from tco.simulator.kinds.rented.model import CloudBase
from tco.simulator.kinds.rented.plan import CloudPlan
from tco.simulator.kinds.runs import JobRuns

declare(
    Category(
        "cb_fee",
        "Capacity Block fee",
        "cloud prices",
        "#8172b2",
        charge="Purchase",
        commitment="purchase",
    ),
    Category(
        "cb_hours_used", "Capacity Block hours used", "cloud prices", "#8172b2", commitment="used"
    ),
    Category(
        "cb_hours_unused",
        "Capacity Block hours unused",
        "cloud prices",
        "#c9bfe6",
        commitment="unused",
    ),
    Series("cb_utilisation", "Capacity Block hours used", chart_label="reserved hours used"),
)
RATE_ITEM = "Capacity Block rate"


class Block(Strict):
    """Instances reserved from the start of ``month`` (0: the scenario's first) for ``days``."""

    month: Annotated[int, Field(ge=0, le=119)]
    instances: Annotated[int, Field(ge=1, le=capacity_blocks.MAX_INSTANCES_PER_BLOCK)]
    days: Annotated[int, Field(ge=1, le=capacity_blocks.LONGEST_DAYS)]

    @field_validator("days")
    @classmethod
    def _sold(cls, v: int) -> int:
        if not capacity_blocks.valid_days(v):
            raise ValueError("AWS sells 1 to 14 days, or 7 to 182 days in steps of 7")
        return v


class CapacityBlock(CloudBase):
    """One AWS instance type reserved in blocks, on demand beyond them."""

    kind: Literal["capacity_block"]
    blocks: list[Block] = Field(min_length=1)
    rate_usd_per_hour: Pos | None = None  # per instance-hour; default: the bundled rate
    rate_source: str | None = None

    @model_validator(mode="after")
    def _one_aws_type(self) -> CapacityBlock:
        if self.instance_type is None or ":" in self.instance_type or self.provider != "aws":
            raise ValueError(
                "a Capacity Block reserves one AWS instance_type (e.g. p5.48xlarge); other"
                " providers' reservations have no bundled terms"
            )
        if self.rate_usd_per_hour is not None and not self.rate_source:
            raise ValueError("rate_usd_per_hour needs rate_source: say where the rate comes from")
        return self


@dataclass(frozen=True, kw_only=True)
class CapacityBlockPlan(CloudPlan):
    option: CapacityBlock
    rate: Price  # per instance-hour reserved
    reserved: np.ndarray  # instances reserved in each clock hour of the horizon


def reserved_hours(blocks: list[Block], start: str, months: int) -> np.ndarray:
    """Instances reserved in each clock hour of the horizon."""
    edges = month_edges_h(start, months)
    out = np.zeros(int(edges[-1]))
    for b in blocks:
        h0 = int(edges[b.month])
        out[h0 : h0 + 24 * b.days] += b.instances
    return out


@register
class CapacityBlockKind(CloudKind[CapacityBlock, CapacityBlockPlan]):
    name = "capacity_block"
    model = CapacityBlock
    label = "Capacity Blocks"
    cannot: ClassVar[Mapping[Can, str]] = {
        **CloudKind.cannot,
        Can.SEARCH: "its blocks are the scenario's (when and how many): no search sizes them",
        Can.FIT: "its blocks are the scenario's: no search sizes them",
        Can.PROPOSE: "a block is bought for known windows: the catalog proposes on-demand rentals",
    }
    money_fields = ("rate_usd_per_hour",)

    def check(self, option: CapacityBlock, ctx: Context) -> None:
        super().check(option, ctx)
        where = f"{ctx.where}.blocks"
        edges = month_edges_h(ctx.start, ctx.horizon_months)
        for i, b in enumerate(option.blocks):
            if b.month >= ctx.horizon_months or edges[b.month] + 24 * b.days > edges[-1]:
                raise ScenarioError(
                    ctx.file,
                    f"{where}[{i}]",
                    f"the block ({b.days} days from month {b.month}) must end by the"
                    f" {ctx.horizon_months}-month horizon",
                )
        most = reserved_hours(option.blocks, ctx.start, ctx.horizon_months).max()
        if most > capacity_blocks.MAX_INSTANCES_RESERVED:
            raise ScenarioError(
                ctx.file,
                where,
                f"{most:g} instances reserved at once; AWS allows at most"
                f" {capacity_blocks.MAX_INSTANCES_RESERVED} across blocks",
            )

    def plan(self, option: CapacityBlock, ctx: Context) -> CapacityBlockPlan:
        base = self.cloud_plan(option, ctx)
        region = self.at(option, ctx).region
        if option.rate_usd_per_hour is not None:
            assert option.rate_source is not None
            rate = Price(
                option.rate_usd_per_hour, "scenario", "undated", option.rate_source, "scenario"
            )
        else:
            assert option.instance_type is not None
            try:
                rate = capacity_blocks.rate(option.instance_type, region)
            except PricingError as exc:
                msg = f"{exc}. To fix: set rate_usd_per_hour with rate_source (a quote)"
                raise ScenarioError(ctx.file, f"{ctx.where}.rate_usd_per_hour", msg) from None
        shared = {f: getattr(base, f) for f in CloudPlan.__dataclass_fields__}
        shared["quotes"] = (*base.quotes, price_quote(RATE_ITEM, rate))
        blocks = ", ".join(
            f"{b.instances} from month {b.month + 1} for {b.days} days" for b in option.blocks
        )
        shared["description"] = f"{base.description}; Capacity Blocks: {blocks}"
        reserved = reserved_hours(option.blocks, ctx.start, ctx.horizon_months)
        return CapacityBlockPlan(**shared, rate=rate, reserved=reserved)

    def caveats(
        self,
        option: CapacityBlock,
        options: tuple[OptionModel, ...],
        quotes: tuple[Quote, ...],
        drawn: Drawn = (),
    ) -> list[str]:
        """A bundled rate is of 2024's page: said doubtful."""
        said = [q for q in quotes if q.item == RATE_ITEM and q.source != "scenario"]
        return [
            f"{option.name} rests on a Capacity Block rate of ${q.value:,.2f} an instance-hour"
            f" from AWS's page as it stood until {q.as_of}, before the June 2025 on-demand"
            " cuts: doubtful (AWS sets these prices by supply and demand); give"
            " rate_usd_per_hour with its source for today's."
            for q in said
        ]

    def ledger(self, plan: CapacityBlockPlan, runs: JobRuns, edges: np.ndarray) -> Ledger:
        use = usage(plan, runs, edges)
        rate, price = plan.rate.usd_per_hour, plan.price.usd_per_hour
        # Reserved hours are a commitment billed at the block's rate: a Savings Plan's hours
        # (used first, the rest on demand, the unused paid anyway), paid up front instead.
        _, used_h, idle_h, beyond_h = savings_plan_hours(
            use.instances_hourly[0], plan.reserved * rate, rate, price
        )
        fee = np.zeros(len(edges) - 1)
        for b in plan.option.blocks:
            fee[b.month] += b.instances * 24 * b.days * rate  # bought for its first hour
        compute = per_month(beyond_h, edges)
        used = per_month(used_h, edges)
        return Ledger(
            cash={"cloud_compute": compute, "cb_fee": fee},
            accounting={
                "cloud_compute": compute.copy(),
                "cb_hours_used": used,
                "cb_hours_unused": per_month(idle_h, edges),
            },
            gpu_hours_paid=use.paid_gpu_h,
            draws=use.draws(plan),
            gpu_hours_busy=use.busy_gpu_h,
            series={"cb_utilisation": ratio(used, per_month(plan.reserved * rate, edges))},
            notes={"reserved_instance_hours": float(plan.reserved.sum())},
        )
