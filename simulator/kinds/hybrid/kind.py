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
from typing import Any, ClassVar

import numpy as np

from tco.simulator.core.fields import OptionModel
from tco.simulator.core.quote import Quote
from tco.simulator.costs import data
from tco.simulator.costs.ledger import Ledger
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.hybrid.model import (
    BUY_KNOB,
    POLICIES,
    REFERENCES,
    Hybrid,
    HybridPlan,
    parts,
    plans,
    queueing,
)
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.registry import (
    Context,
    Drawn,
    Kind,
    KnownInput,
    Mix,
    QueueingKind,
    Sale,
    UnitPrice,
    register,
)
from tco.simulator.kinds.rented.fleet import job_costs
from tco.simulator.kinds.runs import JobPlaces, JobRuns, Measure, count, declare_measure
from tco.simulator.workload.jobs import Jobs

# tco optimize: the policy's figure at these multiples of the scenario's, then this many halvings
# of the interval where the service level turns from met to missed.
SEARCH_MULTIPLES = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
SEARCH_BISECTIONS = 6

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
        Can.TABLES: "its servers' schedule is its owned option's, in that option's section",
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

    def gpus_of(self, plan: HybridPlan) -> set[str]:
        """Its servers' GPUs and its burst's."""
        return {g for p in plans(plan) for g in registry.of(p.option).gpus_of(p)}

    def providers_of(self, plan: HybridPlan) -> set[str]:
        """Who rents it its burst (its servers are on the premises)."""
        return {x for p in plans(plan) for x in registry.of(p.option).providers_of(p)}

    def uncertainties(self, plan: HybridPlan, where: str) -> list[KnownInput]:
        return []  # its parts are options of the scenario: their kinds declare what is unsure

    def caveats(
        self,
        option: Hybrid,
        options: tuple[OptionModel, ...],
        quotes: tuple[Any, ...],
        drawn: Drawn = (),
    ) -> list[str]:
        """What its parts rest on, in their kinds' words (a burst to spot: spot's prices of
        one moment; its servers: who replaces their failed GPUs, when they arrive)."""
        parts = [o for name in (option.owned, option.burst) for o in options if o.name == name]
        return [s for p in parts for s in registry.of(p).caveats(p, options, quotes, drawn)]

    def remarks(self, name: str, metrics: Any) -> list[str]:
        # Its figures mix owned and rented GPU-hours: a part's remark would misread them.
        return []

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
        parts(option, ctx)

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
        own, burst = (registry.of(o).plan(o, ctx.other(i)) for i, o in parts(option, ctx))
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
            assets=own.assets + cloud.assets,
            draws=own.draws + cloud.draws,
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
