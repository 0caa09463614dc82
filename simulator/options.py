"""Resolve each scenario option into hardware and prices, before any simulation runs.

Prices are fixed here (from the price book or the scenario), so a run is repeatable and the
simulation never does I/O. Each resolved option lists the figures it uses as :class:`Quote` s,
with their source and date, for the result and the report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tco.pricing import catalog
from tco.pricing.book import PriceBook
from tco.pricing.errors import PricingError
from tco.pricing.records import Price
from tco.simulator import defaults
from tco.simulator.calendar import month_edges_h
from tco.simulator.errors import ScenarioError
from tco.simulator.scenario import BareMetal, OnDemand, Owned, SavingsPlan, Scenario
from tco.simulator.speed import Hardware


@dataclass(frozen=True)
class Quote:
    """A number the result depends on, with its unit, source and date."""

    item: str
    value: float
    unit: str
    source: str
    as_of: str
    detail: str


def _input(item: str, value: float, unit: str, default_key: str) -> Quote:
    """A cost input: the documented default with its source, or the scenario's own value."""
    default, source = defaults.SOURCES[default_key]
    if value == default:
        return Quote(item, value, unit, "default", "see detail", source)
    return Quote(item, value, unit, "scenario", "undated", "set in the scenario file")


def _quote(item: str, p: Price) -> Quote:
    return Quote(item, p.usd_per_hour, "USD/h", p.source, p.as_of, p.detail)


@dataclass(frozen=True)
class Delivery:
    """A tranche of servers: ordered in ``order_month``, usable from ``delivery_h``."""

    order_month: int
    servers: int
    delivery_h: float  # inf when it arrives after the horizon
    delivery_month: int | None


@dataclass(frozen=True)
class OwnedPlan:
    option: Owned
    hardware: Hardware
    price_usd_per_server: float
    max_kw_per_server: float
    deliveries: tuple[Delivery, ...]
    quotes: tuple[Quote, ...]
    description: str


@dataclass(frozen=True)
class CloudPlan:
    option: OnDemand | SavingsPlan | BareMetal
    hardware: Hardware
    price: Price  # per instance-hour
    sp_rate: Price | None  # Savings Plan $/instance-hour
    quota_instances: int | None
    delay_h: float
    billing_increment_s: float
    billing_minimum_s: float
    quotes: tuple[Quote, ...]
    description: str


Plan = OwnedPlan | CloudPlan


def _owned(o: Owned, scenario: Scenario) -> OwnedPlan:
    server = catalog.server(o.server)
    gpu = catalog.gpu(server.gpu)
    edges = month_edges_h(scenario.start, scenario.horizon_months)
    deliveries = []
    for t in o.purchase_plan():
        at = t.month + o.lead_time_months
        m = math.floor(at)
        if m < scenario.horizon_months:
            h = float(edges[m] + (at - m) * (edges[m + 1] - edges[m]))
            deliveries.append(Delivery(t.month, t.servers, h, m))
        else:
            deliveries.append(Delivery(t.month, t.servers, math.inf, None))
    price = o.price_usd if o.price_usd is not None else server.price_usd
    kw = o.max_kw if o.max_kw is not None else server.max_kw
    src = "scenario" if o.price_usd is not None else "catalog"
    quotes = (
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
        _input("electricity", o.power.usd_per_kwh, "USD/kWh", "electricity_usd_per_kwh"),
        _input("PUE", o.power.pue, "ratio", "pue"),
        _input(
            "facility", o.facility.usd_per_kw_month, "USD/kW/month", "colocation_usd_per_kw_month"
        ),
        _input(
            "power when busy", o.power.busy_fraction, "fraction of max kW", "busy_power_fraction"
        ),
        _input(
            "power when idle", o.power.idle_fraction, "fraction of max kW", "idle_power_fraction"
        ),
        _input(
            "salvage value", o.depreciation.salvage_fraction, "fraction of cost", "salvage_fraction"
        ),
    )
    n = sum(t.servers for t in o.purchase_plan())
    hw = Hardware(
        gpu.name, gpu.memory_gb, server.gpus_per_server, server.intra_node, server.inter_node, 0.0
    )
    return OwnedPlan(
        o,
        hw,
        price,
        kw,
        tuple(deliveries),
        quotes,
        f"{n} x {server.name} ({n * server.gpus_per_server} x {gpu.name})",
    )


def _cloud(
    o: OnDemand | SavingsPlan | BareMetal,
    scenario: Scenario,
    book: PriceBook,
    file: str,
    index: int,
) -> CloudPlan:
    where = f"options[{index}]"
    bare = isinstance(o, BareMetal)
    if o.instance is not None:
        g = catalog.gpu(o.instance.gpu)
        base_price = Price(
            o.instance.usd_per_hour, "scenario", o.instance.price_as_of, o.instance.price_source
        )
        hw_args = (
            g.name,
            g.memory_gb,
            o.instance.gpus,
            o.instance.intra_node,
            o.instance.inter_node,
        )
        label = f"custom instance: {o.instance.gpus} x {g.name} (price source in the prices table)"
    else:
        assert o.instance_type is not None
        spec = book.spec(o.instance_type, scenario.region)
        assert spec.gpu_model is not None
        bare = bare or spec.bare_metal
        hw_args = (
            spec.gpu_model,
            spec.gpu_memory_gib,
            spec.gpu_count,
            spec.intra_node,
            spec.inter_node,
        )
        label = f"{o.instance_type} ({spec.gpu_count} x {spec.gpu_model}) in {scenario.region}"
        if o.usd_per_hour is None:
            try:
                base_price = book.on_demand(o.instance_type, scenario.region)
            except PricingError as exc:
                raise ScenarioError(file, f"{where}.usd_per_hour", str(exc)) from None
    if o.usd_per_hour is not None:
        assert o.price_source is not None
        base_price = Price(o.usd_per_hour, "scenario", "undated", o.price_source)
    virt = o.virtualization_overhead
    if virt is None:
        virt = 0.0 if bare else defaults.VIRTUALIZATION_OVERHEAD
    hw = Hardware(*hw_args, virtualization_overhead=virt)
    inc = o.billing_increment_s or (
        defaults.BARE_METAL_BILLING_INCREMENT_S
        if isinstance(o, BareMetal)
        else defaults.CLOUD_BILLING_INCREMENT_S
    )
    minimum = o.billing_minimum_s
    if minimum is None:
        minimum = (
            defaults.BARE_METAL_BILLING_MINIMUM_S
            if isinstance(o, BareMetal)
            else defaults.CLOUD_BILLING_MINIMUM_S
        )
    quotes = [
        _quote(
            "instance price (on-demand)" if not isinstance(o, BareMetal) else "bare-metal price",
            base_price,
        )
    ]
    sp_rate = None
    if isinstance(o, SavingsPlan):
        sp_rate = _sp_rate(o, scenario, book, base_price, file, where)
        quotes.append(
            _quote(f"{o.plan} Savings Plan rate ({o.term_years}yr, {o.payment})", sp_rate)
        )
    return CloudPlan(
        o,
        hw,
        base_price,
        sp_rate,
        o.quota_instances,
        o.provisioning_delay_minutes / 60.0,
        inc,
        minimum,
        tuple(quotes),
        label,
    )


def _sp_rate(
    o: SavingsPlan, scenario: Scenario, book: PriceBook, on_demand: Price, file: str, where: str
) -> Price:
    if o.rate_usd_per_hour is not None:
        assert o.rate_source is not None
        return Price(o.rate_usd_per_hour, "scenario", "undated", o.rate_source)
    if o.discount is not None:
        assert o.rate_source is not None
        return Price(
            on_demand.usd_per_hour * (1 - o.discount),
            "scenario",
            on_demand.as_of,
            f"{o.discount:.0%} off {on_demand.label()}; discount from {o.rate_source}",
        )
    if o.instance_type is None:
        raise ScenarioError(
            file,
            f"{where}.rate_usd_per_hour",
            "a Savings Plan on a custom instance needs rate_usd_per_hour or discount",
        )
    try:
        return book.savings_plan(o.instance_type, scenario.region, o.plan, o.term_years, o.payment)
    except PricingError as exc:
        raise ScenarioError(
            file,
            f"{where}.rate_usd_per_hour",
            f"{exc}. To fix: set rate_usd_per_hour or discount (with rate_source)",
        ) from None


def resolve(scenario: Scenario, book: PriceBook, file: str = "<scenario>") -> list[Plan]:
    """Hardware and prices of every option, in scenario order."""
    plans: list[Plan] = []
    for i, o in enumerate(scenario.options):
        if isinstance(o, Owned):
            plans.append(_owned(o, scenario))
        else:
            plans.append(_cloud(o, scenario, book, file, i))
    return plans
