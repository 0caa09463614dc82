"""The owned cluster: identical servers bought (at once or in tranches), a fixed pool that jobs
queue for, and an owner's costs.

Capex is paid in the month servers arrive and depreciated from then (straight-line, declining
balance or sum-of-years' digits, to a salvage value); power is idle and busy draw x PUE x $/kWh;
the facility is billed per provisioned kW; support is a yearly share of capex from arrival; staff
from the first arrival. Servers sold at the horizon fetch their used-market value by default, or
their book value (so cash and accounting totals agree), unless ``sell_at_horizon`` is false.
A ``refresh:`` replaces every server by a newer generation (``generations``). The section and
plan are in ``owned.model``, the ledger in ``owned.costs``, the queue in ``owned.queue``.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tco.pricing import hardware
from tco.pricing.errors import PricingError
from tco.simulator.core import defaults
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import OptionModel
from tco.simulator.core.limits import MAX_EVENTS
from tco.simulator.core.quote import Quote
from tco.simulator.costs.ledger import Ledger
from tco.simulator.kinds.owned import generations, offers
from tco.simulator.kinds.owned import queue as owned_queue
from tco.simulator.kinds.owned.costs import owned_ledger
from tco.simulator.kinds.owned.financing import Financing, financing_quotes
from tco.simulator.kinds.owned.model import Owned, OwnedPlan
from tco.simulator.kinds.owned.parts import (
    SEARCH_STEP_MONTHS,
    Delivery,
    decline_quote,
    deliveries_of,
    latest_order_month,
    order_decline,
    server_hardware,
    smallest_meeting,
)
from tco.simulator.kinds.owned.quotes import plan_quotes
from tco.simulator.kinds.owned.resale import basis_word, check_quote
from tco.simulator.kinds.plan import speed_quote
from tco.simulator.kinds.registry import (
    Context,
    KnownInput,
    QueueingKind,
    Sale,
    UnitPrice,
    WhatIfInput,
    register,
)
from tco.simulator.kinds.runs import JobPlaces, JobRuns
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware

__all__ = ["Owned", "OwnedKind", "OwnedPlan", "owned_ledger"]

if typing.TYPE_CHECKING:
    import pandas as pd

MAX_SERVERS_FACTOR = 64  # the search stops at 64x the servers the scenario gave
TRANCHE_KNOB = offers.TRANCHE_KNOB
REFRESH_KNOB = offers.REFRESH_KNOB


def _returned_in_service(
    f: Financing | None,
    deliveries: tuple[Delivery, ...],
    ctx: Context,
    successor: generations.Successor | None,
) -> None:
    """A lease ending in a return must run as long as its servers serve: past the horizon, or
    until a refresh's successor takes over (the model keeps a cluster's size)."""
    if f is None or f.end_of_term != "return":
        return
    cut = None if successor is None else successor.delivery.delivery_month
    served = [(d, cut if cut is not None else ctx.horizon_months) for d in deliveries]
    if successor is not None:
        served.append((successor.delivery, ctx.horizon_months))
    for d, until in served:
        if d.delivery_month is not None and d.delivery_month + f.term_months < until:
            what = (
                "before the horizon"
                if until == ctx.horizon_months
                else "before the refresh's successor takes over"
            )
            raise ScenarioError(
                ctx.file,
                f"{ctx.where}.financing.term_months",
                f"servers delivered in month {d.delivery_month + 1} would be returned"
                f" after {f.term_months} months, {what}; the model keeps a"
                " cluster's size: make the term at least"
                f" {until - d.delivery_month} months or choose"
                " end_of_term: fmv_buyout or dollar_buyout",
            )


def _in_service_within_horizon(
    option: Owned, deliveries: tuple[Delivery, ...], ctx: Context
) -> None:
    """Refuse servers that are ordered within the horizon but arrive after it (paid for, never
    used: the model would leave them out of the costs and the capacity alike) and a cluster
    none of whose servers arrives within it (its jobs would never start)."""
    latest = latest_order_month(option.lead_time_months, ctx.horizon_months)
    field = "tranches" if option.tranches is not None else "lead_time_months"
    fix = (
        f"valid order months: 0 to {latest}"
        if latest >= 0
        else f"a lead time of at most {ctx.horizon_months - 1} months, or a longer horizon"
    )
    n = option.lead_time_months
    lead = f"lead time {n:g} month{'' if n == 1 else 's'}"
    for d in deliveries:
        if d.delivery_month is None and d.order_month < ctx.horizon_months:
            raise ScenarioError(
                ctx.file,
                f"{ctx.where}.{field}",
                f"{option.name}'s servers ordered in month {d.order_month} arrive after the"
                f" {ctx.horizon_months}-month horizon ({lead}): they would be paid for and"
                f" never run a job; {fix}",
            )
    if all(d.delivery_month is None for d in deliveries):
        raise ScenarioError(
            ctx.file,
            f"{ctx.where}.{field}",
            f"none of {option.name}'s servers is ordered within the {ctx.horizon_months}-month"
            f" horizon, so none of its jobs would run; {fix}",
        )


def _failures_bounded(
    option: Owned,
    deliveries: tuple[Delivery, ...],
    models: tuple[Hardware, ...],
    successor: generations.Successor | None,
    ctx: Context,
) -> None:
    """Refuse failure rates that would ask for more events than ``TCO_MAX_EVENTS``."""
    f = option.failures
    if f is None:
        return
    servers = sum(d.servers for d in deliveries)
    gpus = sum(d.servers * models[d.generation].gpus_per_unit for d in deliveries)
    if successor is not None:
        servers, gpus = servers + successor.servers, gpus + successor.gpus
    expected = f.expected_events(gpus, servers, ctx.horizon_months * defaults.HOURS_PER_MONTH)
    if expected > MAX_EVENTS.value():
        found = f"about {expected:,.3g} failures and repairs are expected at these rates"
        raise ScenarioError(ctx.file, f"{ctx.where}.failures", MAX_EVENTS.exceeded(found))


def _description(
    server: hardware.ServerModel,
    deliveries: tuple[Delivery, ...],
    successor: generations.Successor | None,
    mix: tuple[generations.Generation, ...],
) -> str:
    """The cluster in one line: its servers, a refresh's successor, servers of other models."""
    n = sum(d.servers for d in deliveries if d.generation == 0)
    out = f"{n} x {server.name} ({n * server.gpus_per_server} x {server.gpu})"
    if successor is not None:
        out += (
            f", then {successor.servers} x {successor.server} ({successor.gpus} x"
            f" {successor.hardware.gpu}) from month {successor.first_month + 1}"
        )
    for k, g in enumerate(mix, start=1):
        m = sum(d.servers for d in deliveries if d.generation == k)
        first = min(d.order_month for d in deliveries if d.generation == k)
        out += (
            f" and {m} x {g.server} ({m * g.hardware.gpus_per_unit} x {g.hardware.gpu})"
            f" ordered from month {first + 1}"
        )
    return out


@register
class OwnedKind(QueueingKind[Owned, OwnedPlan]):
    name = "owned"
    model = Owned
    label = "owned cluster"
    buys_hardware = True
    data_site = "premises"
    knobs = (offers.SERVERS_KNOB, TRANCHE_KNOB, REFRESH_KNOB)
    sizes = (offers.SERVERS_KNOB, TRANCHE_KNOB)
    money_fields = offers.MONEY_FIELDS

    def size_words(self, knob: str, value: int) -> str:
        return offers.size_words(knob, value)

    def size(self, option: Owned) -> tuple[str, int, int, int] | None:
        """Servers bought at once (floor 0), or servers added to every tranche (floor: one
        server fewer than would leave a tranche empty); up to MAX_SERVERS_FACTOR x."""
        if option.servers:
            return offers.SERVERS_KNOB, option.servers, 0, MAX_SERVERS_FACTOR * option.servers
        plan = option.purchase_plan()
        least = min(t.servers for t in plan)
        return TRANCHE_KNOB, 0, -least, MAX_SERVERS_FACTOR * max(t.servers for t in plan)

    def with_knobs(self, option: Owned, knobs: Mapping[str, Any]) -> Owned:
        """Servers, servers added to every tranche (the months stay as given), or the
        refresh's month ("none": no refresh)."""
        rest = dict(knobs)
        if TRANCHE_KNOB in rest:
            k = int(rest.pop(TRANCHE_KNOB))
            more = [t.model_copy(update={"servers": t.servers + k}) for t in option.purchase_plan()]
            if any(t.servers < 1 for t in more):
                raise ValueError(f"{TRANCHE_KNOB} {k} leaves a tranche with no server")
            option = option.model_copy(update={"tranches": more})
        if REFRESH_KNOB in rest:
            m = rest.pop(REFRESH_KNOB)
            r = option.refresh
            if m == "none" or r is None:
                option = option.model_copy(update={"refresh": None})
            else:
                option = option.model_copy(update={"refresh": r.model_copy(update={"month": m})})
        return super().with_knobs(option, rest) if rest else option

    def what_ifs(self) -> tuple[WhatIfInput, ...]:
        return offers.WHAT_IFS

    def sale(self, option: Owned, options: tuple[OptionModel, ...], ledger: Ledger) -> Sale | None:
        return offers.sale(option, ledger)

    def unit_prices(
        self, option: Owned, others: Mapping[str, OptionModel]
    ) -> tuple[UnitPrice, ...]:
        return offers.unit_prices(option)

    def search(
        self, option: Owned, prepared: Any, index: int, evaluate: Callable[..., Any]
    ) -> list[Any]:
        """The wait falls as servers are added, so the smallest cluster meeting the service level
        is found by doubling, then bisection; its neighbours are evaluated too (the frontier).
        Servers bought at once: their number. Tranches: servers added to every tranche (0 = the
        scenario's plan; the months stay as given). With a refresh, its month too, at the
        scenario's size, and no refresh at all."""
        when: list[Any] = []
        r = option.refresh
        if r is not None:
            when.append(
                evaluate(option.model_copy(update={"refresh": None}), {REFRESH_KNOB: "none"})
            )
            last = max(t.month for t in option.purchase_plan())
            horizon = prepared.scenario.horizon_months
            for m in generations.months_to_try(r, last, option.lead_time_months, horizon):
                moved = option.model_copy(update={"refresh": r.model_copy(update={"month": m})})
                when.append(evaluate(moved, {REFRESH_KNOB: m}))
        size = self.size(option)
        assert size is not None
        knob, start, floor, limit = size

        def at(n: int) -> Any:
            try:
                return evaluate(self.with_knobs(option, {knob: n}), {knob: n})
            except (ValueError, ScenarioError):  # past a limit on sizes or on events drawn
                return None

        floor = 0 if knob == offers.SERVERS_KNOB else -1  # (tranches: as before, not below)
        return smallest_meeting(at, start, floor, limit) + when

    def check(self, option: Owned, ctx: Context) -> None:
        try:
            hardware.server(option.server)
        except PricingError as exc:
            raise ScenarioError(ctx.file, f"{ctx.where}.server", str(exc)) from None
        if option.refresh is not None:
            generations.check_refresh(option.refresh, ctx)
        for i, t in enumerate(option.tranches or option.purchase_plan()):  # as written
            try:
                hardware.server(t.server or option.server)
            except PricingError as exc:
                raise ScenarioError(
                    ctx.file, f"{ctx.where}.tranches[{i}].server", str(exc)
                ) from None

    def plan(self, option: Owned, ctx: Context) -> OwnedPlan:
        f = option.financing
        server = hardware.server(option.server)
        dated = server.price_date if option.price_usd is None else "undated"
        deliveries = deliveries_of(
            option.purchase_plan(),
            option.lead_time_months,
            order_decline(option.price_decline_per_year, server.gpu),
            ctx.start,
            ctx.horizon_months,
            dated,
        )
        _in_service_within_horizon(option, deliveries, ctx)
        gpu = hardware.gpu(server.gpu)
        price = option.price_usd if option.price_usd is not None else server.price_usd
        check_quote(option.resale_value, price, ctx.file, f"{ctx.where}.resale_value")
        kw = option.max_kw if option.max_kw is not None else server.max_kw
        deliveries, mix, mix_quotes = generations.newer_servers(
            option.purchase_plan(),
            option.server,
            deliveries,
            option.lead_time_months,
            option.price_decline_per_year,
            ctx,
            option.unmixable(),
        )
        hw = server_hardware(server, ctx.speed)
        successor: generations.Successor | None = None
        refresh_quotes: tuple[Quote, ...] = ()
        if option.refresh is not None:
            successor, refresh_quotes = generations.successor(
                option.refresh,
                ctx,
                hw,
                option.purchase_plan(),
                option.lead_time_months,
                option.price_decline_per_year,
            )
        _returned_in_service(f, deliveries, ctx, successor)
        _failures_bounded(option, deliveries, (hw, *(g.hardware for g in mix)), successor, ctx)
        return OwnedPlan(
            option=option,
            hardware=hw,
            quotes=(
                *plan_quotes(option, server, price, kw),
                decline_quote(
                    option.price_decline_per_year,
                    server.gpu,
                    dated,
                    tuple(d for d in deliveries if d.generation == 0),
                ),
                *financing_quotes(f),
                speed_quote(ctx.speed(gpu.name)),
                *refresh_quotes,
                *mix_quotes,
            ),
            description=_description(server, deliveries, successor, mix),
            price_usd_per_server=price,
            max_kw_per_server=kw,
            deliveries=deliveries,
            successor=successor,
            mix=mix,
            used_market_quantile=ctx.market.used_market_quantile,
        )

    def bought_from(self, option: Owned, month: int, ctx: Context, field: str) -> Owned:
        """``option`` rented until ``month`` and bought then (a hybrid's ``field``, at
        ``ctx.where``): what is ordered earlier is ordered in that month."""
        latest = latest_order_month(option.lead_time_months, ctx.horizon_months)
        where = f"{ctx.where}.{field}"
        if month > latest:
            raise ScenarioError(
                ctx.file,
                where,
                f"{option.name}'s servers ordered in month {month} arrive after the"
                f" {ctx.horizon_months}-month horizon (lead time {option.lead_time_months:g}"
                f" months); valid: 0 to {latest}",
            )
        r = option.refresh
        if r is not None and r.month <= month:
            raise ScenarioError(
                ctx.file,
                where,
                f"{option.name}'s refresh in month {r.month} must come after its purchase;"
                f" valid: 0 to {r.month - 1}",
            )
        return option.bought_from(month)

    def months_to_buy(self, option: Owned, horizon_months: int) -> list[int]:
        """The order months ``tco optimize`` tries for a hybrid renting until it buys: every
        half year while the servers still arrive within the horizon."""
        latest = latest_order_month(option.lead_time_months, horizon_months)
        last = latest if option.refresh is None else min(latest, option.refresh.month - 1)
        return list(range(0, last + 1, SEARCH_STEP_MONTHS))

    def in_service_from_h(self, plan: OwnedPlan) -> float:
        """When the first servers are in service (inf: never within the horizon)."""
        return min(d.delivery_h for d in plan.deliveries)

    def play(
        self, jobs: Jobs, plan: OwnedPlan, horizon_h: float, rng: np.random.Generator
    ) -> JobRuns:
        return self.queue(jobs, plan, horizon_h, rng, None)[0]

    def queue(
        self,
        jobs: Jobs,
        plan: OwnedPlan,
        horizon_h: float,
        rng: np.random.Generator,
        patience_h: float | np.ndarray | None,
    ) -> tuple[JobRuns, np.ndarray]:
        """The jobs queued on the cluster, and when each gave up waiting after ``patience_h``
        (NaN: it did not; a hybrid option bursts those to the cloud)."""
        if patience_h is not None:  # one figure per job
            patience_h = np.broadcast_to(np.asarray(patience_h, np.float64), (len(jobs),))
        hws = [plan.hardware, *(g.hardware for g in plan.mix)]
        return owned_queue.queue(
            jobs, plan.option, hws, plan.deliveries, horizon_h, rng, patience_h, plan.successor
        )

    def ledger(self, plan: OwnedPlan, runs: JobRuns, edges: np.ndarray) -> Ledger:
        return owned_ledger(plan, runs, edges)

    def job_places(self, plan: OwnedPlan, runs: JobRuns, ledger: Ledger) -> JobPlaces | None:
        """Each job on its server model; the cluster's cash shared out by GPU-hours used."""
        names = (plan.option.server, *(g.server for g in plan.mix))
        ran = ~np.isnan(runs.start_h)
        model = np.zeros(len(ran), np.int64) if runs.generation is None else runs.generation
        where = np.where(ran, np.clip(model, 0, len(names) - 1), -1)
        return JobPlaces.shared(names, where, runs, float(ledger.cash_total().sum()))

    def resale_basis(self, option: Owned, options: tuple[OptionModel, ...]) -> str | None:
        return basis_word(option.resale_value) if option.sell_at_horizon else None

    def uncertainties(self, plan: OwnedPlan, where: str) -> list[KnownInput]:
        """What the servers fetch on the used market (when they are sold at market value)."""
        sold = self.resale_basis(plan.option, ()) == "market"
        return offers.used_market(plan.option, where) if sold else []

    def report_tables(
        self, months: tuple[str, ...], ledger: Ledger
    ) -> list[tuple[str, pd.DataFrame]]:
        import pandas as pd

        capex = ledger.cash["capex"]
        dep = ledger.accounting["depreciation"]
        # Servers sold at a refresh leave the books at their book value: proceeds plus loss.
        zero = np.zeros(len(months))
        sold = (
            ledger.accounting.get("disposal", zero)
            + ledger.accounting.get("disposal_gain", zero)
            - ledger.cash.get("refresh_sale", zero)
        )
        frame = pd.DataFrame(
            {
                "month": list(months),
                "capex (USD)": capex,
                "depreciation (USD)": dep,
                "accumulated depreciation (USD)": np.cumsum(dep),
                "book value (USD)": np.cumsum(capex) - np.cumsum(dep) - np.cumsum(sold),
            }
        )
        return [("Depreciation schedule", frame)]
