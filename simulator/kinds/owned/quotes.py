"""The figures an owned option's plan rests on, as quotes (``core.quote``): its server's price
and power, the running-cost inputs, and its failures, swaps and spare pool."""

from __future__ import annotations

from tco.pricing import hardware
from tco.simulator.cluster.failures import mean_repair_h
from tco.simulator.core import defaults
from tco.simulator.core.quote import Quote, input_quote
from tco.simulator.kinds.owned.costs import spare_gpus, spare_price
from tco.simulator.kinds.owned.model import Owned


def plan_quotes(
    o: Owned, server: hardware.ServerModel, price: float, kw: float
) -> tuple[Quote, ...]:
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
        *_failure_quotes(o, server),
    )


def _failure_quotes(o: Owned, server: hardware.ServerModel) -> tuple[Quote, ...]:
    """The failure rate, the repair by swap and the spare pool, when GPUs fail."""
    f = o.failures
    if f is None:
        return ()
    gps = server.gpus_per_server
    gpus = sum(t.servers for t in o.purchase_plan()) * gps
    spares = spare_gpus(o, gpus, gps)
    price = spare_price(o.price_usd or server.price_usd, gps)
    rma = mean_repair_h(f.repair_days) / 24
    return (
        input_quote(
            "GPU failures",
            f.gpu_failures_per_1000_gpu_days,
            "per 1,000 GPU-days",
            "gpu_failures_per_1000_gpu_days",
        ),
        input_quote("failed part away (RMA)", rma, "days", "repair_days"),
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
