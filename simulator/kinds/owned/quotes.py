"""The figures an owned option's plan rests on, as quotes (``core.quote``): its server's price
and power, the running-cost inputs, its failures, swaps and spare pool, and the servers it
already owns."""

from __future__ import annotations

from tco.pricing import hardware
from tco.simulator.cluster.failures import MAINTENANCE, mean_repair_h
from tco.simulator.core import defaults
from tco.simulator.core.quote import Quote, input_quote
from tco.simulator.costs.ledger import Asset
from tco.simulator.kinds.owned.costs import resale_of, spare_gpus, spare_price
from tco.simulator.kinds.owned.model import Owned
from tco.simulator.kinds.owned.parts import Delivery
from tco.simulator.kinds.owned.resale import ResaleQuote, Selling, describe, market_share
from tco.simulator.kinds.registry import Context
from tco.simulator.kinds.site import Existing


def plan_quotes(
    o: Owned, server: hardware.ServerModel, price: float, kw: float, selling: Selling
) -> tuple[Quote, ...]:
    # A server described in the scenario is the scenario's figure, dated and sourced there.
    own = not isinstance(o.server, str)
    src = "scenario" if o.price_usd is not None or own else "catalog"
    dated = src == "catalog" or (own and o.price_usd is None)
    kw_src = "scenario" if o.max_kw is not None or own else "catalog"
    return (
        Quote(
            f"{server.name} purchase price",
            price,
            "USD/server",
            src,
            server.price_date if dated else "undated",
            f"{hardware.BASIS_WORDS[server.price_basis]}: {server.source}"
            if dated
            else "set in the scenario file",
        ),
        Quote(
            f"{server.name} maximum power",
            kw,
            "kW/server",
            kw_src,
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
        *_failure_quotes(o, server, price),
        *sale_quotes(o, selling),
    )


def _failure_quotes(o: Owned, server: hardware.ServerModel, server_usd: float) -> tuple[Quote, ...]:
    """The failure rate, the repair by swap and the spare pool, when GPUs fail; spares priced
    from ``server_usd``, the server's price as the plan decided it (``Owned.new_price_usd``)."""
    f, given = o.upkeep, o.failures
    if f is None or given is None:
        return ()
    gps = server.gpus_per_server
    gpus = (sum(t.servers for t in o.purchase_plan()) + o.existing_servers()) * gps
    spares = spare_gpus(o, gpus, gps)
    price = spare_price(server_usd, gps)
    rma = mean_repair_h(f.repair_days) / 24
    return (
        input_quote(
            "GPU failures",
            f.gpu_failures_per_1000_gpu_days,
            "per 1,000 GPU-days",
            "gpu_failures_per_1000_gpu_days",
        ),
        maintenance_quote(o, spares_saved(o, gpus, gps) * price),
        input_quote("failed part away (RMA)", rma, "days", "repair_days")
        if f.maintenance != "vendor"
        else input_quote("contract's response (part on site)", rma, "days", "response_days"),
        input_quote("server drained before a swap", f.drain_hours, "h", "drain_hours"),
        input_quote("part swapped from a spare", f.swap_hours, "h", "swap_hours"),
        Quote(
            "spare GPUs",
            float(spares),
            "GPUs",
            "default" if f.spare_gpus == "auto" else "scenario",
            "see detail",
            (
                "sized so that 95 % of failures find a spare (parts away at once ~ Poisson, mean"
                f" rate x {gpus} GPUs x the RMA; none for one-GPU machines)"
                if f.spare_gpus == "auto"
                else "set in the scenario file"
            )
            + f"; bought with the first servers at {price:,.0f} USD each (server price per GPU"
            f" / {defaults.SERVER_TO_CHIP_COST}, Epoch's server/chip cost ratio)",
        ),
    )


def existing_quotes(
    o: Owned, deliveries: tuple[Delivery, ...], gpu: str, ctx: Context
) -> tuple[Quote, ...]:
    """Existing servers: what they cost when bought (with its source) and what they would fetch
    sold at the start, which keeping them forgoes."""
    found = existing_sale(o, deliveries, gpu, ctx)
    if found is None:
        return ()
    e = o.existing
    assert e is not None
    price = o.existing_price_usd()
    bought = Quote(
        "existing server price when bought", price, "USD/server", "scenario", e.bought, e.source
    )
    return (bought, found.quote)


SPOTWIRE = (
    "SpotWire valuator (spotwire.ai/data/valuator_data.json, CC-BY-4.0; a model's factors):"
    " broker over 90 days 0.85, auction in 30 days 0.65, distressed in 7 days 0.45"
)


def sale_quotes(o: Owned, selling: Selling) -> tuple[Quote, ...]:
    """What selling the servers rests on, when they are sold at a market price: the share of it
    a seller receives, the months the sale takes, and (with a network bought) the network's
    own rate. None for book value, none, and a quote's servers (a dealer's price)."""
    v = o.resale_value
    out: list[Quote] = []
    if (not o.sell_at_horizon and o.refresh is None) or v in ("book", "none"):
        return ()

    def market_or_default(item: str, value: float, unit: str, default: float, key: str) -> Quote:
        """The market's figure as the scenario sets it, else SpotWire's default."""
        if value != default:
            return Quote(item, value, unit, "market", "undated", f"set (market: {key})")
        return Quote(item, value, unit, "default", "2026-06-04", SPOTWIRE)

    if not isinstance(v, ResaleQuote):
        out.append(
            market_or_default(
                "resale: share of the used market's price a seller receives",
                selling.share,
                "fraction",
                defaults.RESALE_RECEIVED_SHARE,
                "resale_received_share",
            )
        )
    out.append(
        market_or_default(
            "resale: months a sale takes (the servers keep losing value)",
            selling.months,
            "months",
            defaults.MONTHS_TO_SELL,
            "months_to_sell",
        )
    )
    if o.network_usd > 0:
        out.append(
            Quote(
                "resale: network gear's value lost a year (what a dealer pays)",
                defaults.NETWORK_RESALE_PER_YEAR,
                "exp(-k) a year",
                "default",
                "undated",
                "one dealer's account of used switches (gocomsys.com, secondary, low): $600 for a"
                " ~$4,000 switch after 2-3 years; core/defaults.py",
            )
        )
    return tuple(out)


def existing_sale(
    o: Owned, deliveries: tuple[Delivery, ...], gpu: str, ctx: Context
) -> Existing | None:
    """The option's existing servers and what they would fetch sold at the start, valued as
    their sale at the horizon is (the option's resale basis, at the used market's fitted rate:
    the odds do not move it)."""
    e = o.existing
    old = [d for d in deliveries if d.existing]
    if e is None or not old:
        return None
    age = old[0].age_months or 0
    price = o.existing_price_usd()
    new = e.servers * price
    # Valued as their sale at the horizon is (costs.resale_of); no book value is kept before
    # the horizon, so a book basis is valued at the market here.
    at_market = new * market_share(o.resale_value, gpu, o.resale_decay_per_year)(age / 12)
    now = resale_of(
        o, gpu, e.servers, new, at_market, age, o.resale_decay_per_year, Selling.of(ctx.market)
    )
    words = f"{e.servers} x {o.server_name} bought {e.bought}"
    quote = Quote(
        "existing servers sold at the start",
        round(now, 2),
        "USD",
        "used market",
        ctx.start,
        f"what the {words} would fetch sold now, {age} months after they were bought"
        f" ({describe(o.resale_value, gpu, o.resale_decay_per_year)}): an option that keeps"
        " them forgoes it, one that does not is credited it in its first month",
    )
    sale = Asset(-age, new, 0, now, "capex", "resale")
    return Existing((o.server_name, e.servers, e.bought, price), words, now, quote, sale)


def spares_saved(o: Owned, gpus: int, gpus_per_server: int) -> int:
    """Spare GPUs the owner would keep maintaining the servers itself, where a contract or no
    maintenance keeps none (0 under ``self``)."""
    f, upkeep = o.failures, o.upkeep
    if f is None or upkeep is None or upkeep.maintenance == "self":
        return 0
    return f.spares(gpus, gpus_per_server)  # the pool the scenario's own repair time asks for


MAINTENANCE_ITEM = "maintenance: "  # the quote's item: this, then who maintains (caveats read it)


def maintenance_quote(o: Owned, spares_usd: float) -> Quote:
    """Who replaces failed parts, why (the scenario's word or the support share), and what it
    saves or costs against keeping spares."""
    f, given = o.upkeep, o.failures
    assert f is not None and given is not None
    why = (
        "set in the scenario"
        if given.maintenance != "auto"
        else f"assumed from support_pct_per_year ({o.support_pct_per_year:g} %)"
    )
    money = (
        f"; keeping spares instead would buy {spares_usd:,.0f} USD of spare GPUs"
        if spares_usd > 0
        else ""
    )
    return Quote(
        f"{MAINTENANCE_ITEM}{f.maintenance}",
        round(spares_usd, 2),
        "USD of spare GPUs not bought",
        "scenario" if given.maintenance != "auto" else "default",
        "undated",
        f"{MAINTENANCE[f.maintenance]} ({why}){money}",
    )
