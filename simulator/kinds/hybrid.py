"""Hybrid: an owned cluster first, the cloud when the queue is long.

The option names an owned option and a cloud option of the same scenario (``owned``, ``burst``).
Jobs queue on the owned cluster; a queued job leaves for the cloud exactly when its wait reaches
``burst_after_wait_hours``, wherever it stands in the queue (Starburst's constant waiting
policy: Luo et al., ATC '24), and starts there after the cloud option's provisioning delay. Jobs
the cluster can never run (too large, too little memory) go to the cloud on arrival. One ledger
holds both parts; the burst jobs and their GPU-hours are reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Name, NonNeg, OptionModel
from tco.simulator.core.quote import Quote
from tco.simulator.costs import data
from tco.simulator.costs.data import DataSpec
from tco.simulator.costs.ledger import Ledger
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.registry import (
    Context,
    Kind,
    Mix,
    QueueingKind,
    Sale,
    UnitPrice,
    register,
)
from tco.simulator.kinds.rented.fleet import job_costs
from tco.simulator.kinds.runs import JobPlaces, JobRuns, Measure, count, declare_measure
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


# tco optimize: the policy's figure at these multiples of the scenario's, then this many halvings
# of the interval where the service level turns from met to missed.
SEARCH_MULTIPLES = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
SEARCH_BISECTIONS = 6

BUY_KNOB = "buy_month"
# The fields naming other options: the one it owns first (a queueing kind), then the cloud
# option it bursts to. (Its own fields: that the first is named like a kind is the scenario's
# wording, not a switch on that kind.)
REFERENCES = ("owned", "burst")


def queueing(option: OptionModel) -> QueueingKind[Any, Any]:
    """The kind of the option a hybrid owns (``_referenced`` checked it queues)."""
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


def _parts(option: Hybrid, ctx: Context) -> list[tuple[int, OptionModel]]:
    """The owned option (bought from ``buy_month`` when given) and the cloud option, with their
    positions in the scenario."""
    (i, own), (j, burst) = (_referenced(option, ctx, f, n == 0) for n, f in enumerate(REFERENCES))
    own = _with(own, option.owned_knobs, ctx, "owned_knobs")
    burst = _with(burst, option.burst_knobs, ctx, "burst_knobs")
    if option.buy_month is not None:
        own = queueing(own).bought_from(own, option.buy_month, ctx, BUY_KNOB)
    return [(i, own), (j, burst)]


def _with(o: OptionModel, knobs: dict[str, Any], ctx: Context, field: str) -> OptionModel:
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


def _referenced(o: Hybrid, ctx: Context, field: str, owned: bool) -> tuple[int, OptionModel]:
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


declare_measure(
    Measure(
        "burst_jobs",
        "jobs a hybrid option sent to the cloud",
        count("burst_jobs"),
        integer=True,
        order=80,
    ),
    Measure(
        "burst_gpu_hours",
        "GPU-hours those jobs ran in the cloud within the horizon",
        count("burst_gpu_hours"),
        order=90,
    ),
)


def _gpu_hours(
    start: np.ndarray, end: np.ndarray, gpus: np.ndarray, sent: np.ndarray, horizon_h: float
) -> float:
    """GPU-hours the jobs ``sent`` ran within the horizon."""
    if not sent.any():
        return 0.0
    held = np.minimum(end[sent], horizon_h) - start[sent]
    return float((held * gpus[sent]).sum())


@register
class HybridKind(Kind[Hybrid, HybridPlan]):
    can_do = frozenset({Can.SEARCH, Can.COMPOSE, Can.SELL, Can.UNIT_PRICES, Can.PLACES})
    cannot: ClassVar[Mapping[Can, str]] = {
        Can.FINISH: "its servers and its burst finish the work at its own cost per GPU-hour (its"
        " share of its cash)",
        Can.SIZE: "sized by its owned option, which the search grows",
        Can.FIT: "its rental is fitted as that option's own kind fits it",
        Can.WHAT_IFS: "its parts' inputs are their kinds' what-ifs",
        Can.PROPOSE: "the portfolio search composes mixes of what the catalog proposes",
        Can.EXISTING: "runs its owned option's servers: existing: goes there",
    }
    name = "hybrid"
    model = Hybrid
    label = "owned + cloud burst"
    buys_hardware = True
    data_site = "premises"
    knobs = (*(figure for figure, _ in POLICIES.values()), BUY_KNOB)

    def resale_basis(self, option: Hybrid, options: tuple[OptionModel, ...]) -> str | None:
        own = next(o for o in options if o.name == option.owned)
        return registry.of(own).resale_basis(own, options)

    def servers_of(self, plan: HybridPlan) -> tuple[int, int] | None:
        return registry.of(plan.owned_plan.option).servers_of(plan.owned_plan)

    def keeps_existing(self, option: Hybrid, options: Mapping[str, OptionModel]) -> bool:
        own = options.get(option.owned)
        return own is not None and registry.of(own).keeps_existing(own, options)

    def sale(self, option: Hybrid, options: tuple[OptionModel, ...], ledger: Ledger) -> Sale | None:
        """What its owned option sells (the hybrid's ledger holds the owned part's)."""
        own = next(o for o in options if o.name == option.owned)
        return registry.of(own).sale(own, options, ledger)

    def search(
        self, option: Hybrid, prepared: Any, index: int, evaluate: Callable[..., Any]
    ) -> list[Any]:
        """The waiting threshold of the option's policy (``POLICIES``): waiting longer bursts
        fewer jobs, so it costs less and the waits grow. Multiples of the scenario's figure are
        tried, then the boundary between the largest that meets the service level and the next
        that misses is bisected (the wait grows with the threshold: Starburst's bound, at most
        the threshold plus the cloud's delay). Then, at the scenario's threshold, the month the
        servers are bought in (``buy_month``: renting until then), every half year."""
        field = POLICIES[option.burst_policy][0]
        given = float(getattr(option, field))
        base = given or float(prepared.scenario.service_level.allowed_h)

        def at(x: float) -> Any:
            x = float(f"{x:.3g}")  # a figure a person would type
            return evaluate(option.model_copy(update={field: x}), {field: x})

        seen = [at(base * k) for k in SEARCH_MULTIPLES]
        meets = [c for c in seen if c.meets_service_level]
        if meets and not seen[-1].meets_service_level:
            lo = max(c.knobs[field] for c in meets)
            hi = min(c.knobs[field] for c in seen if c.knobs[field] > lo)
            for _ in range(SEARCH_BISECTIONS):
                mid = at((lo + hi) / 2)
                if mid.knobs[field] in (lo, hi):
                    break  # the rounding stops it
                seen.append(mid)
                lo, hi = (
                    (mid.knobs[field], hi) if mid.meets_service_level else (lo, mid.knobs[field])
                )
        own = next(o for o in prepared.scenario.options if o.name == option.owned)
        for m in queueing(own).months_to_buy(own, prepared.scenario.horizon_months):
            if m != option.buy_month:
                seen.append(evaluate(option.model_copy(update={BUY_KNOB: m}), {BUY_KNOB: m}))
        return seen

    def check(self, option: Hybrid, ctx: Context) -> None:
        _parts(option, ctx)

    def compose(self, mix: Mix, name: str) -> Hybrid | None:
        """The base load on a queueing option, bursting to a cloud option after ``wait_h``
        (the constant policy) and from the start until the base's servers are in service."""
        base, target = registry.of(mix.base), registry.of(mix.target)
        if not isinstance(base, QueueingKind) or target.buys_hardware:
            return None
        if target.data_site != "cloud":
            return None
        return Hybrid(
            kind="hybrid",
            name=name,
            owned=mix.base.name,
            burst=mix.target.name,
            burst_after_wait_hours=float(mix.wait_h),
            owned_knobs=dict(mix.base_knobs),
            burst_knobs=dict(mix.target_knobs),
            buy_month=mix.order_month,
        )

    def parts_of(self, plan: HybridPlan, runs: JobRuns) -> list[tuple[Plan, JobRuns]]:
        assert runs.parts is not None
        own, burst = (runs.parts[f] for f in REFERENCES)
        return [(plan.owned_plan, own), (plan.burst_plan, burst)]

    def plan(self, option: Hybrid, ctx: Context) -> HybridPlan:
        own, burst = (registry.of(o).plan(o, ctx.other(i)) for i, o in _parts(option, ctx))
        bought = (
            ""
            if option.buy_month is None
            else f" ordered from month {option.buy_month + 1} (the cloud until they arrive)"
        )
        copy = ctx.data if ctx.data is not None and ctx.data.any() else None
        storage: np.ndarray | None = None
        extra: tuple[Quote, ...] = ()
        if copy is not None:
            cloud_costs, quotes = data.cloud(copy, ctx.horizon_months, ctx.region)
            storage, extra = cloud_costs["storage"], tuple(quotes)
        return HybridPlan(
            data=copy,
            copy_storage=storage,
            option=option,
            hardware=own.hardware,
            quotes=(*own.quotes, *burst.quotes, *extra),
            description=f"{own.description}{bought}; jobs waiting {option.policy_text()}"
            f" burst to {burst.description}",
            owned_plan=own,
            burst_plan=burst,
        )

    def play(
        self, jobs: Jobs, plan: HybridPlan, horizon_h: float, rng: np.random.Generator
    ) -> JobRuns:
        owned_kind = queueing(plan.owned_plan.option)
        waits = plan.option.waits_h(jobs, lambda: cloud_cost_usd(jobs, plan.burst_plan))
        # A job the cloud cannot run never leaves for it (a wait past the horizon).
        waits = np.where(np.isfinite(waits), waits, horizon_h + 1.0)
        # A job that would give up before the first servers arrive leaves at once: nothing can
        # start on the cluster before then (it is bought later, or still on its way).
        first = owned_kind.in_service_from_h(plan.owned_plan)
        waits = np.where(jobs.arrival_h + waits < first, 0.0, waits)
        own, left = owned_kind.queue(jobs, plan.owned_plan, horizon_h, rng, waits)
        away = np.where(own.reason != "", jobs.arrival_h, left)  # never fits: at once
        idx = np.nonzero(~np.isnan(away) & (away < horizon_h))[0]
        idx = idx[np.argsort(away[idx], kind="stable")]
        burst_kind = registry.of(plan.burst_plan.option)
        cloud = burst_kind.play(jobs.take(idx, away[idx]), plan.burst_plan, horizon_h, rng)
        start, end, run = own.start_h.copy(), own.end_h.copy(), own.run_h.copy()
        units, reason = own.units.copy(), own.reason.copy()
        start[idx], end[idx], run[idx] = cloud.start_h, cloud.end_h, cloud.run_h
        clean = None
        if own.clean_run_h is not None or cloud.clean_run_h is not None:
            clean = own.uninterrupted_h.copy()
            clean[idx] = cloud.uninterrupted_h
        units[idx], reason[idx] = cloud.units, cloud.reason
        burst = np.zeros(len(jobs), bool)
        burst[idx] = ~np.isnan(cloud.start_h)
        return JobRuns(
            run_h=run,
            gpus=jobs.gpus,
            units=units,
            start_h=start,
            end_h=end,
            reason=reason,
            reason_text={**own.reason_text, **cloud.reason_text},
            interruptions=_sum(own.interruptions, cloud.interruptions, idx, len(jobs)),
            lost_gpu_h=_sum(own.lost_gpu_h, cloud.lost_gpu_h, idx, len(jobs)),
            gaps=own.gaps,  # a job that bursts never started on the cluster: no gap of it
            clean_run_h=clean,
            counts={
                **own.counts,
                "burst_jobs": int(burst.sum()),
                "burst_gpu_hours": _gpu_hours(start, end, jobs.gpus, burst, horizon_h),
            },
            parts=dict(zip(REFERENCES, (own, cloud), strict=True)),
            burst=burst,
        )

    def unit_prices(
        self, option: Hybrid, others: Mapping[str, OptionModel]
    ) -> tuple[UnitPrice, ...]:
        """Its owned part's: the running costs it multiplies are the owned servers' alone (a
        0.13.0 spreadsheet kept a hybrid's electricity fixed when its price changed)."""
        own = others.get(option.owned)
        return () if own is None else registry.of(own).unit_prices(own, others)

    def job_places(self, plan: HybridPlan, runs: JobRuns, ledger: Ledger) -> JobPlaces | None:
        """On the owned servers, or burst to the cloud option; the option's cash shared out
        by GPU-hours used (the servers are paid for whether or not a job bursts)."""
        names = (plan.owned_plan.option.name, f"burst: {plan.burst_plan.option.name}")
        ran = ~np.isnan(runs.start_h)
        burst = np.zeros(len(ran), bool) if runs.burst is None else runs.burst
        where = np.where(ran, burst.astype(np.int64), -1)
        return JobPlaces.shared(names, where, runs, float(ledger.cash_total().sum()))

    def ledger(self, plan: HybridPlan, runs: JobRuns, edges: np.ndarray) -> Ledger:
        """Both parts' ledgers in one: categories of the same name add up."""
        assert runs.parts is not None
        own_runs, burst_runs = (runs.parts[f] for f in REFERENCES)
        own = registry.of(plan.owned_plan.option).ledger(plan.owned_plan, own_runs, edges)
        cloud = registry.of(plan.burst_plan.option).ledger(plan.burst_plan, burst_runs, edges)
        moved: dict[str, np.ndarray] = {}
        if plan.data is not None and plan.copy_storage is not None:
            moved = data.burst_copy(plan.data, plan.copy_storage, cloud.gpu_hours_busy)
        cash, acc = dict(own.cash), dict(own.accounting)
        for mine, theirs in (
            (cash, cloud.cash),
            (acc, cloud.accounting),
            (cash, moved),
            (acc, moved),
        ):
            for k, v in theirs.items():
                mine[k] = mine[k] + v if k in mine else v
        notes = {**own.notes, **{f"burst_{k}": v for k, v in cloud.notes.items()}}
        notes["burst_cash_usd"] = float(cloud.cash_total().sum())
        return Ledger(
            cash=cash,
            accounting=acc,
            gpu_hours_paid=own.gpu_hours_paid + cloud.gpu_hours_paid,
            gpu_hours_busy=own.gpu_hours_busy + cloud.gpu_hours_busy,
            notes=notes,
            owed_after_horizon={
                k: own.owed_after_horizon.get(k, 0.0) + cloud.owed_after_horizon.get(k, 0.0)
                for k in {**own.owed_after_horizon, **cloud.owed_after_horizon}
            },
            # Unfinished work at the option's share of its whole cost (``costing``): a
            # job queued for the servers at the horizon may yet burst, so neither part's
            # price alone is what finishing it costs.
        )


def _sum(a: np.ndarray | None, b: np.ndarray | None, idx: np.ndarray, n: int) -> np.ndarray | None:
    """Per job: the owned part's counts plus the cloud part's (which covers jobs ``idx``)."""
    if a is None and b is None:
        return None
    out = np.zeros(n) if a is None else a.astype(np.float64)
    if b is not None:
        out[idx] += b
    return out


def cloud_cost_usd(jobs: Jobs, plan: Plan) -> np.ndarray:
    """Each job's cost on a cloud plan at list price (``rented.fleet.job_costs``)."""
    shapes = getattr(plan, "shapes", None)
    if not shapes:
        raise ValueError(f"{plan.option.name} has no instance types to price a job on")
    return job_costs(jobs, shapes)
