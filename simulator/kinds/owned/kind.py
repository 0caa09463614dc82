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
from typing import Any, ClassVar

import numpy as np

from tco.pricing import hardware
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import OptionModel
from tco.simulator.core.quote import Quote
from tco.simulator.costs.ledger import Ledger
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.owned import catalog, generations, offers
from tco.simulator.kinds.owned import queue as owned_queue
from tco.simulator.kinds.owned.checks import (
    description,
    failures_bounded,
    fits_site,
    in_service_within_horizon,
    names_known,
    returned_in_service,
)
from tco.simulator.kinds.owned.costs import owned_ledger
from tco.simulator.kinds.owned.delivery import delivery_odds
from tco.simulator.kinds.owned.financing import financing_quotes
from tco.simulator.kinds.owned.model import Owned, OwnedPlan
from tco.simulator.kinds.owned.parts import (
    SEARCH_STEP_MONTHS,
    decline_quote,
    deliveries_of,
    existing_delivery,
    latest_order_month,
    order_decline,
    server_hardware,
    smallest_meeting,
)
from tco.simulator.kinds.owned.power import paid_pue, power_binds, with_quote
from tco.simulator.kinds.owned.quotes import (
    MAINTENANCE_ITEM,
    existing_quotes,
    existing_sale,
    plan_quotes,
)
from tco.simulator.kinds.owned.resale import Selling, basis_word, check_quote
from tco.simulator.kinds.plan import speed_quote
from tco.simulator.kinds.proposals import Load, Proposal, Where
from tco.simulator.kinds.registry import (
    Context,
    Drawn,
    KnownInput,
    QueueingKind,
    Sale,
    UnitPrice,
    WhatIfInput,
    register,
)
from tco.simulator.kinds.runs import JobPlaces, JobRuns
from tco.simulator.kinds.site import Existing
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware

__all__ = ["Owned", "OwnedKind", "OwnedPlan", "owned_ledger"]

if typing.TYPE_CHECKING:
    import pandas as pd

MAX_SERVERS_FACTOR = 64  # the search stops at 64x the servers the scenario gave
TRANCHE_KNOB = offers.TRANCHE_KNOB
REFRESH_KNOB = offers.REFRESH_KNOB


@register
class OwnedKind(QueueingKind[Owned, OwnedPlan]):
    can_do = frozenset(
        {
            Can.SEARCH,
            Can.SIZE,
            Can.SELL,
            Can.WHAT_IFS,
            Can.UNIT_PRICES,
            Can.PROPOSE,
            Can.EXISTING,
            Can.PLACES,
            Can.TABLES,
        }
    )
    cannot: ClassVar[Mapping[Can, str]] = {
        Can.FINISH: "its servers finish the work at its own cost per GPU-hour (its share of its"
        " cash)",
        Can.COMPOSE: "a hybrid composes an owned option with a rental",
        Can.FIT: "its size is searched, not fitted to usage",
    }
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
        """Servers bought at once (floor 0; with existing servers, the knob counts them too and
        they are its floor), or servers added to every tranche (floor: one server fewer than
        would leave a tranche empty); up to MAX_SERVERS_FACTOR x."""
        had = option.existing_servers()
        if option.tranches is None:  # servers at once; with existing ones, counted in
            n = had + (option.servers or 0)
            return offers.SERVERS_KNOB, n, had, MAX_SERVERS_FACTOR * n
        plan = option.purchase_plan()
        least = min(t.servers for t in plan)
        return TRANCHE_KNOB, 0, -least, MAX_SERVERS_FACTOR * max(t.servers for t in plan)

    def with_knobs(self, option: Owned, knobs: Mapping[str, Any]) -> Owned:
        """Servers, servers added to every tranche (the months stay as given), or the
        refresh's month ("none": no refresh)."""
        rest = dict(knobs)
        if option.existing is not None and offers.SERVERS_KNOB in rest:
            # With existing servers the knob counts them too; the rest are bought in month 0.
            new = int(rest.pop(offers.SERVERS_KNOB)) - option.existing_servers()
            if new < 0:
                raise ValueError(f"fewer servers than the {option.existing_servers()} existing")
            option = option.model_copy(update={"servers": new or None, "tranches": None})
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

    def servers_of(self, plan: OwnedPlan) -> tuple[int, int] | None:
        arrived = [d for d in plan.deliveries if d.delivery_month is not None]
        had = sum(d.servers for d in arrived if d.existing)
        return had, sum(d.servers for d in arrived) - had

    def existing_servers(self, option: Owned, ctx: Context) -> Existing | None:
        if option.existing is None:
            return None
        server = option.server_model()
        d = existing_delivery(
            option.existing, ctx.start, option.existing_price_usd(), server.price_usd
        )
        return existing_sale(option, (d,), server.gpu, ctx)

    def propose(
        self,
        gpu: str,
        where: Where,
        ctx: Context,
        load: Load,
        site: Mapping[str, OptionModel],
    ) -> list[Proposal]:
        return catalog.propose(self.name, gpu, ctx, load, site, where.bases)

    def keeps_existing(self, option: Owned, options: Mapping[str, OptionModel]) -> bool:
        return option.existing is not None

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
            last = max((t.month for t in option.purchase_plan()), default=0)
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
        names_known(option, ctx)

    def plan(self, option: Owned, ctx: Context) -> OwnedPlan:
        option, pue, pue_quote = paid_pue(option, ctx)
        server = option.server_model()
        dated = server.price_date if option.price_usd is None else "undated"
        deliveries = deliveries_of(
            option.purchase_plan(),
            option.lead_time_months,
            order_decline(option.price_decline_per_year, server.gpu),
            ctx.start,
            ctx.horizon_months,
            dated,
        )
        in_service_within_horizon(option, deliveries, ctx)
        gpu = hardware.gpu(server.gpu)
        price = option.new_price_usd()
        check_quote(option.resale_value, price, ctx.file, f"{ctx.where}.resale_value")
        kw = option.max_kw if option.max_kw is not None else server.max_kw
        deliveries, mix, mix_quotes = generations.newer_servers(
            option.purchase_plan(),
            option.server_name,
            deliveries,
            option.lead_time_months,
            option.price_decline_per_year,
            ctx,
            option.unmixable(),
        )
        hw = server_hardware(server, ctx.speed)
        successor, refresh_quotes = _refresh(option, ctx, hw)
        if option.existing is not None:  # in service from the first hour, bought before
            old = existing_delivery(
                option.existing, ctx.start, option.existing_price_usd(), server.price_usd
            )
            deliveries = (old, *deliveries)
        returned_in_service(option.financing, deliveries, ctx, successor)
        failures_bounded(option, deliveries, (hw, *(g.hardware for g in mix)), successor, ctx)
        return OwnedPlan(
            option=option,
            hardware=hw,
            quotes=with_quote(
                pue_quote,
                *plan_quotes(option, server, price, kw, Selling.of(ctx.market)),
                decline_quote(
                    option.price_decline_per_year,
                    server.gpu,
                    dated,
                    tuple(d for d in deliveries if d.generation == 0 and not d.existing),
                ),
                *financing_quotes(option.financing),
                speed_quote(ctx.speed(gpu.name)),
                *refresh_quotes,
                *mix_quotes,
                *existing_quotes(option, deliveries, server.gpu, ctx),
                *fits_site(kw, mix, deliveries, successor, ctx),
            ),
            description=description(server, deliveries, successor, mix),
            price_usd_per_server=price,
            max_kw_per_server=kw,
            deliveries=deliveries,
            successor=successor,
            mix=mix,
            selling=Selling.of(ctx.market),
            pue=pue,
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
        names = (plan.option.server_name, *(g.server for g in plan.mix))
        ran = ~np.isnan(runs.start_h)
        model = np.zeros(len(ran), np.int64) if runs.generation is None else runs.generation
        where = np.where(ran, np.clip(model, 0, len(names) - 1), -1)
        return JobPlaces.shared(names, where, runs, float(ledger.cash_total().sum()))

    def caveats(
        self,
        option: Owned,
        options: tuple[OptionModel, ...],
        quotes: tuple[Any, ...],
        drawn: Drawn = (),
    ) -> list[str]:
        """Who replaces its failed GPUs, as its plan assumed it (quotes.maintenance_quote);
        when the odds draw its lead time, how likely the delivery the answer takes is."""
        said = [q for q in quotes if q.item.startswith(MAINTENANCE_ITEM)]
        out = [f"{option.name}'s failed GPUs: {q.detail}." for q in said]
        return out + power_binds(option.name, quotes) + delivery_odds(option, options, drawn)

    def gpus_of(self, plan: OwnedPlan) -> set[str]:
        """Its servers' GPUs: the model it buys, a refresh's successor and the other models of
        a mix."""
        more = [plan.successor.hardware] if plan.successor is not None else []
        return {h.gpu for h in [plan.hardware, *more, *(g.hardware for g in plan.mix)]}

    def providers_of(self, plan: OwnedPlan) -> set[str]:
        return set()  # runs on the site's premises: rents from no provider

    def remarks(self, name: str, metrics: Any) -> list[str]:
        return []  # its idle GPUs and waits are said by its declared measures' remarks

    def resale_basis(self, option: Owned, options: tuple[OptionModel, ...]) -> str | None:
        return basis_word(option.resale_value) if option.sell_at_horizon else None

    def uncertainties(self, plan: OwnedPlan, where: str) -> list[KnownInput]:
        """What the servers fetch on the used market (when they are sold at market value), and
        what a seller receives of it, after how long (when sold on any market)."""
        o = plan.option
        if not o.sell_at_horizon and o.refresh is None:
            return []
        sold = self.resale_basis(o, ()) == "market"
        return [*(offers.used_market(o, where) if sold else []), *offers.selling(o)]

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


def _refresh(
    option: Owned, ctx: Context, hw: Hardware
) -> tuple[generations.Successor | None, tuple[Quote, ...]]:
    """The refresh the option plans (its successor servers and their quotes), if any."""
    if option.refresh is None:
        return None, ()
    return generations.successor(
        option.refresh,
        ctx,
        hw,
        option.purchase_plan(),
        option.lead_time_months,
        option.price_decline_per_year,
    )
