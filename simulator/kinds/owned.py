"""The owned cluster: identical servers bought (at once or in tranches), a fixed pool that jobs
queue for, and an owner's costs.

Capex is paid in the month servers arrive and depreciated from then (straight-line, declining
balance or sum-of-years' digits, to a salvage value); power is idle and busy draw x PUE x $/kWh;
the facility is billed per provisioned kW; support is a yearly share of capex from arrival; staff
from the first arrival. Servers sold at the horizon fetch their used-market value by default, or
their book value (so cash and accounting totals agree), unless ``sell_at_horizon`` is false.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.pricing import hardware
from tco.pricing.errors import PricingError
from tco.simulator import defaults
from tco.simulator.calendar import per_month
from tco.simulator.errors import ScenarioError
from tco.simulator.failures import Failures
from tco.simulator.fields import Count, GpuCount, NonNeg, OptionModel
from tco.simulator.finance import depreciation
from tco.simulator.financing import Financing, Flows, financed, financing_quotes
from tco.simulator.jobs import Jobs
from tco.simulator.kinds import owned_queue
from tco.simulator.kinds.owned_parts import (
    Delivery,
    Depreciation,
    Facility,
    Power,
    StaffTime,
    Tranche,
    decline_quote,
    deliveries_of,
    smallest_meeting,
)
from tco.simulator.kinds.registry import Context, Kind, register
from tco.simulator.ledger import Ledger
from tco.simulator.plan import Plan, Quote, input_quote, speed_quote
from tco.simulator.runs import JobRuns
from tco.simulator.speed import Hardware
from tco.simulator.usage import hourly

if typing.TYPE_CHECKING:
    import pandas as pd

MAX_SERVERS_FACTOR = 64  # the search stops at 64x the servers the scenario gave
TRANCHE_KNOB = "servers_added_per_tranche"


class Owned(OptionModel):
    """A purchased cluster of identical servers."""

    kind: Literal["owned"]
    name: str = Field(min_length=1)
    server: str
    price_usd: NonNeg | None = None  # per server; default from the catalog
    # Yearly fall of the price of a server ordered later than the price's date.
    price_decline_per_year: Annotated[float, Field(ge=-0.5, le=0.9)] = (
        defaults.SERVER_PRICE_DECLINE_PER_YEAR
    )
    max_kw: NonNeg | None = None  # per server; default from the catalog
    servers: GpuCount | None = None  # shortcut: all ordered in month 0
    tranches: list[Tranche] | None = None
    lead_time_months: NonNeg = 0.0
    network_usd: NonNeg = 0.0  # one-off, with the first tranche
    installation_usd_per_server: NonNeg = 0.0
    depreciation: Depreciation = Depreciation()
    sell_at_horizon: bool = True
    # What servers sold at the horizon fetch: the used-market curve (defaults.market_share), their
    # book value (cash and accounting agree) or nothing; resale_scale multiplies it (quote/value).
    resale_value: Literal["book", "market", "none"] = "market"
    resale_scale: Annotated[float, Field(ge=0, le=10)] = 1.0
    power: Power = Power()
    facility: Facility = Facility()
    support_pct_per_year: Annotated[float, Field(ge=0, le=100)] = 0.0
    financing: Financing | None = None  # paid in cash when absent
    failures: Failures | None = None  # GPUs never fail when absent
    staff: StaffTime = StaffTime()
    scheduler: Literal["fifo", "backfill"] = "fifo"
    # Jobs placed on servers (a job inside one server when it fits in one; first fit), or the
    # cluster as one pool of GPUs (a job's GPUs may span servers): simulator/placement.py.
    placement: Literal["servers", "pool"] = "servers"
    backfill_depth: Count = defaults.BACKFILL_DEPTH

    @model_validator(mode="after")
    def _one_purchase_plan(self) -> Owned:
        if (self.servers is None) == (self.tranches is None):
            raise ValueError("give either servers (all bought in month 0) or tranches, not both")
        return self

    def purchase_plan(self) -> list[Tranche]:
        """The tranches, with the ``servers`` shortcut expanded."""
        if self.tranches is not None:
            return list(self.tranches)
        assert self.servers is not None
        return [Tranche(month=0, servers=self.servers)]


@dataclass(frozen=True, kw_only=True)
class OwnedPlan(Plan):
    option: Owned
    price_usd_per_server: float
    max_kw_per_server: float
    deliveries: tuple[Delivery, ...]


def _quotes(o: Owned, server: hardware.ServerModel, price: float, kw: float) -> tuple[Quote, ...]:
    src = "scenario" if o.price_usd is not None else "catalog"
    return (
        Quote(
            f"{server.name} purchase price",
            price,
            "USD/server",
            src,
            server.price_date if src == "catalog" else "undated",
            server.source if src == "catalog" else "set in the scenario file",
        ),
        Quote(
            f"{server.name} maximum power",
            kw,
            "kW/server",
            "scenario" if o.max_kw is not None else "catalog",
            server.price_date if o.max_kw is None else "undated",
            server.source if o.max_kw is None else "set in the scenario file",
        ),
        input_quote("electricity", o.power.usd_per_kwh, "USD/kWh", "electricity_usd_per_kwh"),
        input_quote("PUE", o.power.pue, "ratio", "pue"),
        input_quote(
            "facility", o.facility.usd_per_kw_month, "USD/kW/month", "colocation_usd_per_kw_month"
        ),
        input_quote(
            "power when busy", o.power.busy_fraction, "fraction of max kW", "busy_power_fraction"
        ),
        input_quote(
            "power when idle", o.power.idle_fraction, "fraction of max kW", "idle_power_fraction"
        ),
        input_quote(
            "salvage value", o.depreciation.salvage_fraction, "fraction of cost", "salvage_fraction"
        ),
    )


def _resale(o: Owned, basis: float, book: float, months_in_service: int) -> float:
    if o.resale_value == "none":  # kept, scrapped or given away: no value counted
        return 0.0
    value = (
        book if o.resale_value == "book" else basis * defaults.market_share(months_in_service / 12)
    )
    return value * o.resale_scale


def _basis(plan: OwnedPlan, index: int, d: Delivery) -> float:
    """Capitalised cost of a tranche: servers, installation, and the network with the first."""
    o = plan.option
    price = plan.price_usd_per_server * d.price_factor
    basis = d.servers * (price + o.installation_usd_per_server)
    return basis + (o.network_usd if index == 0 else 0.0)


@register
class OwnedKind(Kind[Owned, OwnedPlan]):
    name = "owned"
    model = Owned
    label = "owned cluster"
    buys_hardware = True
    data_site = "premises"

    def search(
        self, option: Owned, prepared: Any, index: int, evaluate: Callable[..., Any]
    ) -> list[Any]:
        """The wait falls as servers are added, so the smallest cluster meeting the service level
        is found by doubling, then bisection; its neighbours are evaluated too (the frontier).
        Servers bought at once: their number. Tranches: servers added to every tranche (0 = the
        scenario's plan; the months stay as given)."""
        if option.servers:

            def at(n: int) -> Any:
                return evaluate(option.model_copy(update={"servers": n}), {"servers": n})

            return smallest_meeting(at, option.servers, 0, MAX_SERVERS_FACTOR * option.servers)
        plan = option.purchase_plan()

        def added(k: int) -> Any:
            more = [t.model_copy(update={"servers": t.servers + k}) for t in plan]
            return evaluate(option.model_copy(update={"tranches": more}), {TRANCHE_KNOB: k})

        return smallest_meeting(added, 0, -1, MAX_SERVERS_FACTOR * max(t.servers for t in plan))

    def check(self, option: Owned, ctx: Context) -> None:
        try:
            hardware.server(option.server)
        except PricingError as exc:
            raise ScenarioError(ctx.file, f"{ctx.where}.server", str(exc)) from None

    def plan(self, option: Owned, ctx: Context) -> OwnedPlan:
        f = option.financing
        server = hardware.server(option.server)
        dated = server.price_date if option.price_usd is None else "undated"
        deliveries = deliveries_of(
            option.purchase_plan(), option.lead_time_months, option.price_decline_per_year,
            ctx.start, ctx.horizon_months, dated,
        )  # fmt: skip
        if f is not None and f.end_of_term == "return":
            for d in deliveries:
                if (
                    d.delivery_month is not None
                    and d.delivery_month + f.term_months < ctx.horizon_months
                ):
                    raise ScenarioError(
                        ctx.file,
                        f"{ctx.where}.financing.term_months",
                        f"servers delivered in month {d.delivery_month + 1} would be returned"
                        f" after {f.term_months} months, before the horizon; the model keeps a"
                        " cluster's size: make the term at least"
                        f" {ctx.horizon_months - d.delivery_month} months or choose"
                        " end_of_term: fmv_buyout or dollar_buyout",
                    )
        gpu = hardware.gpu(server.gpu)
        price = option.price_usd if option.price_usd is not None else server.price_usd
        kw = option.max_kw if option.max_kw is not None else server.max_kw
        n = sum(t.servers for t in option.purchase_plan())
        hw = Hardware(
            gpu.name,
            gpu.memory_gb,
            server.gpus_per_server,
            server.intra_node,
            server.inter_node,
            0.0,
            speed=ctx.speed(gpu.name),
        )
        return OwnedPlan(
            option=option,
            hardware=hw,
            quotes=(
                *_quotes(option, server, price, kw),
                decline_quote(option.price_decline_per_year, dated, deliveries),
                *financing_quotes(f),
                speed_quote(ctx.speed(gpu.name)),
            ),
            description=f"{n} x {server.name} ({n * server.gpus_per_server} x {gpu.name})",
            price_usd_per_server=price,
            max_kw_per_server=kw,
            deliveries=deliveries,
        )

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
        return owned_queue.queue(
            jobs, plan.option, plan.hardware, plan.deliveries, horizon_h, rng, patience_h
        )

    def ledger(self, plan: OwnedPlan, runs: JobRuns, edges: np.ndarray) -> Ledger:
        return owned_ledger(plan, runs, edges)

    def resale_basis(self, option: Owned, options: tuple[OptionModel, ...]) -> str | None:
        return option.resale_value if option.sell_at_horizon else None

    def report_tables(
        self, months: tuple[str, ...], ledger: Ledger
    ) -> list[tuple[str, pd.DataFrame]]:
        import pandas as pd

        capex = ledger.cash["capex"]
        dep = ledger.accounting["depreciation"]
        frame = pd.DataFrame(
            {
                "month": list(months),
                "capex (USD)": capex,
                "depreciation (USD)": dep,
                "accumulated depreciation (USD)": np.cumsum(dep),
                "book value (USD)": np.cumsum(capex) - np.cumsum(dep),
            }
        )
        return [("Depreciation schedule", frame)]


def owned_ledger(plan: OwnedPlan, runs: JobRuns, edges: np.ndarray) -> Ledger:
    """Cash and accounting ledgers of a purchased cluster."""
    o = plan.option
    months = len(edges) - 1
    hours = int(edges[-1])
    gps = plan.hardware.gpus_per_unit
    kw = plan.max_kw_per_server
    month_hours = np.diff(edges).astype(np.float64)

    arrived = [d for d in plan.deliveries if d.delivery_month is not None]
    server_hours = per_month(
        hourly(
            np.array([d.delivery_h for d in arrived], dtype=np.float64),
            np.full(len(arrived), float(hours)),
            np.array([d.servers for d in arrived], dtype=np.float64),
            hours,
        ),
        edges,
    )
    busy = per_month(runs.held_hourly(runs.gpus.astype(np.float64), hours), edges)

    capex, dep, resale, support = (np.zeros(months) for _ in range(4))
    extra_cash: dict[str, np.ndarray] = {}
    extra_acc: dict[str, np.ndarray] = {}
    notes: dict[str, float] = {}
    for i, d in enumerate(arrived):
        assert d.delivery_month is not None
        basis = _basis(plan, i, d)
        t = _tranche(o, basis, d.delivery_month, months)
        capex += t.cash.pop("capex")
        resale += t.cash.pop("resale")
        dep += t.accounting.pop("depreciation")
        for mine, theirs in ((extra_cash, t.cash), (extra_acc, t.accounting)):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0.0) + v
        for k, x in t.notes.items():
            notes[k] = notes.get(k, 0.0) + x
        # The support contract runs from arrival, prorated by the hours in service.
        in_service = np.clip((edges[1:] - d.delivery_h) / month_hours, 0.0, 1.0)
        support += basis * o.support_pct_per_year / 100.0 / 12.0 * in_service

    it_kwh = server_hours * kw * o.power.idle_fraction + busy * (kw / gps) * (
        o.power.busy_fraction - o.power.idle_fraction
    )
    power = it_kwh * o.power.pue * o.power.usd_per_kwh
    facility = server_hours / month_hours * kw * o.facility.usd_per_kw_month
    first = min((d.delivery_month for d in arrived if d.delivery_month is not None), default=months)
    staff = np.where(np.arange(months) >= first, o.staff.fte * o.staff.usd_per_fte_year / 12.0, 0.0)
    shared = {"power": power, "facility": facility, "support": support, "staff": staff}
    return Ledger(
        cash={"capex": capex, "resale": resale, **extra_cash, **shared},
        accounting={"depreciation": dep, **extra_acc, **shared},
        gpu_hours_paid=server_hours * gps,
        gpu_hours_busy=busy,
        notes=notes,
    )


def _owned(
    o: Owned, basis: float, m0: int, months: int, out: Flows, new: tuple[float, int]
) -> None:
    """Servers owned from month ``m0`` at cost ``basis``: depreciation, and their sale at the
    horizon (``new``: their price new and the month they arrived, for the market curve)."""
    schedule = depreciation(
        o.depreciation.method,
        basis,
        basis * o.depreciation.salvage_fraction,
        o.depreciation.months,
        o.depreciation.declining_factor,
    )
    span = min(len(schedule), months - m0)
    out.accounting["depreciation"][m0 : m0 + span] += schedule[:span]
    if o.sell_at_horizon:
        book = basis - schedule[:span].sum()
        out.cash["resale"][-1] -= _resale(o, new[0], book, months - new[1])


def _tranche(o: Owned, basis: float, m0: int, months: int) -> Flows:
    """One tranche's capex, depreciation and resale, paid in cash or financed."""
    out = Flows(months)
    for name in ("capex", "resale"):
        out.cash[name] = np.zeros(months)
    out.accounting["depreciation"] = np.zeros(months)
    f = o.financing
    if f is None:
        out.cash["capex"][m0] += basis
        _owned(o, basis, m0, months, out, (basis, m0))
        return out
    residual = basis * defaults.market_share(f.term_months / 12) if f.operating else 0.0
    flows = financed(f, basis, m0, months, residual)
    out.cash.update(flows.cash)
    out.accounting.update(flows.accounting)
    out.notes.update(flows.notes)
    if not f.operating:
        _owned(o, basis, m0, months, out, (basis, m0))
    elif f.end_of_term == "fmv_buyout" and m0 + f.term_months < months:
        end = m0 + f.term_months
        out.cash["capex"][end] += residual  # bought at the value the lessor priced in
        _owned(o, residual, end, months, out, (basis, m0))
    return out
