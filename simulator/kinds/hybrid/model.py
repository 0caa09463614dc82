"""The hybrid's scenario section and plan: an owned option and a cloud option of the same
scenario (``owned``, ``burst``), resolved with the knobs it sets on each (``parts``), and the
waiting policy that sends a queued job to the cloud.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Name, NonNeg, OptionModel
from tco.simulator.costs.data import DataSpec
from tco.simulator.kinds import registry
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.registry import Context, QueueingKind
from tco.simulator.workload.jobs import Jobs

# Each waiting policy: the field holding its figure, and the figure's unit in words.
POLICIES = {
    "constant": ("burst_after_wait_hours", "h"),
    "by_size": ("burst_wait_hours_per_gpu_hour", "h per GPU-hour of work"),
    "by_cost": ("burst_wait_hours_per_usd", "h per USD of its cloud cost"),
}


class Hybrid(OptionModel):
    """An owned option of the scenario, bursting to one of its cloud options."""

    kind: Literal["hybrid"]
    name: Name
    owned: str = Field(min_length=1)
    burst: str = Field(min_length=1)
    # Starburst's waiting policies (Luo et al., ATC '24): ``constant``, every job bursts after
    # burst_after_wait_hours; ``by_size``, a job bursts after burst_wait_hours_per_gpu_hour x its
    # work in reference GPU-hours (their compute-weighted wait: large jobs, dear in the cloud,
    # wait longer for the owned cluster); ``by_cost``, after burst_wait_hours_per_usd x what the
    # job would cost on the burst option (its cheapest instance type, list price).
    burst_policy: Literal["constant", "by_size", "by_cost"] = "constant"
    burst_after_wait_hours: NonNeg | None = None
    burst_wait_hours_per_gpu_hour: NonNeg | None = None
    burst_wait_hours_per_usd: NonNeg | None = None
    # Rent until then, buy from then: the owned option's orders begin in this month (its earlier
    # tranches are ordered in it, later ones keep their months); until its first servers arrive,
    # every job runs in the cloud. Empty: bought when the owned option says.
    buy_month: Annotated[int, Field(ge=0, le=1200)] | None = None
    # The owned and the cloud option with some of the knobs their kinds declare set otherwise
    # (e.g. ``owned_knobs: {servers: 3}``, ``burst_knobs: {commitment_instances: 2}``), so a
    # mix need not repeat its parts as options of their own (the portfolio search writes them).
    owned_knobs: dict[str, int | float | str] = Field(default_factory=dict)
    burst_knobs: dict[str, int | float | str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _policy_has_its_figure(self) -> Hybrid:
        need = POLICIES[self.burst_policy][0]
        if getattr(self, need) is None:
            raise ValueError(f"burst_policy {self.burst_policy} needs {need} (hours)")
        return self

    def waits_h(self, jobs: Jobs, cloud_usd: Callable[[], np.ndarray]) -> np.ndarray:
        """How long each job waits for the owned cluster before it bursts (``cloud_usd``: each
        job's cost on the burst option, asked for only by the cost policy)."""
        if self.burst_policy == "by_size":
            return float(self.burst_wait_hours_per_gpu_hour or 0.0) * jobs.work_ref_gpu_h
        if self.burst_policy == "by_cost":
            return float(self.burst_wait_hours_per_usd or 0.0) * cloud_usd()
        return np.full(len(jobs), float(self.burst_after_wait_hours or 0.0))

    def policy_text(self) -> str:
        figure, unit = POLICIES[self.burst_policy]
        return f"{getattr(self, figure):g} {unit}"


BUY_KNOB = "buy_month"
# The fields naming other options: the one it owns first (a queueing kind), then the cloud
# option it bursts to. (Its own fields: that the first is named like a kind is the scenario's
# wording, not a switch on that kind.)
REFERENCES = ("owned", "burst")


def queueing(option: OptionModel) -> QueueingKind[Any, Any]:
    """The kind of the option a hybrid owns (``referenced`` checked it queues)."""
    kind = registry.of(option)
    assert isinstance(kind, QueueingKind)
    return kind


@dataclass(frozen=True, kw_only=True)
class HybridPlan(Plan):
    option: Hybrid
    owned_plan: Plan
    burst_plan: Plan
    # The scenario's data (on the premises): jobs that burst need a copy in the cloud, kept
    # there at ``copy_storage`` a month (the cloud option's storage prices, priced once here).
    data: DataSpec | None = None
    copy_storage: np.ndarray | None = None

    def rented_gpu(self) -> str:
        return self.burst_plan.rented_gpu()


def plans(plan: HybridPlan) -> tuple[Plan, Plan]:
    """Its owned option's plan and its burst's."""
    return plan.owned_plan, plan.burst_plan


def parts(option: Hybrid, ctx: Context) -> list[tuple[int, OptionModel]]:
    """The owned option (bought from ``buy_month`` when given) and the cloud option, with their
    positions in the scenario."""
    (i, own), (j, burst) = (referenced(option, ctx, f, n == 0) for n, f in enumerate(REFERENCES))
    own = with_knobs(own, option.owned_knobs, ctx, "owned_knobs")
    burst = with_knobs(burst, option.burst_knobs, ctx, "burst_knobs")
    if option.buy_month is not None:
        own = queueing(own).bought_from(own, option.buy_month, ctx, BUY_KNOB)
    return [(i, own), (j, burst)]


def with_knobs(o: OptionModel, knobs: dict[str, Any], ctx: Context, field: str) -> OptionModel:
    if not knobs:
        return o
    kind = registry.of(o)
    try:
        changed: OptionModel = kind.with_knobs(o, knobs)
    except ValueError as exc:  # pydantic's ValidationError is one
        words = str(exc).splitlines()
        valid = f"; knobs of {o.name}: {', '.join(kind.knobs) or 'none'}"
        raise ScenarioError(ctx.file, f"{ctx.where}.{field}", words[0] + valid) from None
    return changed


def referenced(o: Hybrid, ctx: Context, field: str, owned: bool) -> tuple[int, OptionModel]:
    name = getattr(o, field)
    found = ctx.options.get(name)
    want = "an owned option" if owned else "a cloud option"
    if found is None or found[1].kind == o.kind:
        names = [n for n, (_, x) in ctx.options.items() if x.kind != o.kind]
        raise ScenarioError(
            ctx.file, f"{ctx.where}.{field}", f"no option {name!r}; valid: {', '.join(names)}"
        )
    kind = registry.of(found[1])
    # The first side must be a kind whose jobs queue for hardware it buys (``QueueingKind``);
    # the second a cloud option.
    if (owned and not isinstance(kind, QueueingKind)) or (
        not owned and (kind.buys_hardware or kind.data_site != "cloud")
    ):
        raise ScenarioError(
            ctx.file, f"{ctx.where}.{field}", f"{name!r} is a {kind.label}; name {want}"
        )
    return found
