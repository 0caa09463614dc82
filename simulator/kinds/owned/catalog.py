"""Servers of the catalog an owned option could buy, proposed when the search may add options
(``candidates:``; ``kinds.proposals``): every catalogued server of the GPU, sized to the load,
on the running terms of the site's first listed owned option (else tco's defaults, which
leave out support and staff: said in the proposal's words)."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from tco.pricing import hardware
from tco.pricing.used_market import used_market
from tco.simulator.core.fields import OptionModel
from tco.simulator.kinds.owned.model import Owned
from tco.simulator.kinds.owned.parts import Delivery, deliveries_of, order_decline, server_hardware
from tco.simulator.kinds.owned.resale import market_share
from tco.simulator.kinds.proposals import Load, Proposal, slug
from tco.simulator.kinds.registry import Context

# The site's terms an owned proposal takes from a listed owned option (not its size or server).
TERMS = (
    "lead_time_months",
    "installation_usd_per_server",
    "support_pct_per_year",
    "staff",
    "power",
    "facility",
    "depreciation",
    "scheduler",
    "failures",
)


def _terms(site: Mapping[str, OptionModel]) -> tuple[dict[str, Any], str]:
    listed = next((o for o in site.values() if isinstance(o, Owned)), None)
    if listed is None:
        return {}, "on tco's defaults: no support contract, no staff time"
    keep = listed.model_dump(include=set(TERMS), exclude_none=True)
    if listed.failures is None:
        keep["failures"] = None
    return keep, f"on {listed.name}'s terms"


def propose(
    kind: str,
    gpu: str,
    ctx: Context,
    load: Load,
    site: Mapping[str, OptionModel],
    bases: Collection[str] | None = None,
) -> list[Proposal]:
    """Each catalog server of ``gpu`` priced on one of ``bases`` (None: any): enough servers
    for the load's mean busy GPUs and its largest job, bounded below by what those servers
    cost at least (:func:`bound`); none whose servers would arrive after the horizon."""
    terms, words = _terms(site)
    out = []
    for server in hardware.servers().values():
        if server.gpu != gpu or (bases is not None and server.price_basis not in bases):
            continue
        hw = server_hardware(server, ctx.speed)
        gps = server.gpus_per_server
        busy = load.gpu_hours(hw) / load.horizon_h
        n = max(1, math.ceil(busy / gps), math.ceil(load.max_gpus / gps))
        entry = {
            "name": f"catalog-own-{slug(server.name)}",
            "kind": kind,
            "server": server.name,
            "servers": n,
            **terms,
        }
        option = Owned.model_validate(entry)
        (d,) = deliveries_of(
            option.purchase_plan(),
            option.lead_time_months,
            order_decline(option.price_decline_per_year, server.gpu),
            load.start,
            load.months,
            server.price_date,
        )
        if d.delivery_month is None:
            continue
        said = (
            f"{n} x {server.name} bought ({hardware.BASIS_WORDS[server.price_basis]},"
            f" {server.price_date}), {words}"
        )
        capex = n * server.price_usd * d.price_factor
        out.append(Proposal(entry, said, hw.gpu_memory_gb, bound(server, option, d, load), capex))
    return out


def bound(server: hardware.ServerModel, o: Owned, d: Delivery, load: Load) -> float:
    """What the servers of delivery ``d`` cost at least over the horizon, on ``o``'s running
    terms: bought at the order month's price (the price's trend applied, as the ledger does),
    sold at the horizon for the most the used market's band gives, drawing idle power and
    paying the facility from delivery; no support, staff, installation, network or busy power,
    which only add."""
    assert d.delivery_month is not None
    hours_in = load.horizon_h - d.delivery_h
    months_in = load.months * hours_in / load.horizon_h
    price = d.servers * server.price_usd * d.price_factor
    held_years = (load.months - d.delivery_month) / 12  # at least as long as the ledger's
    kept = market_share("market", server.gpu, used_market(server.gpu).low)(held_years)
    kw = d.servers * server.max_kw
    power = kw * o.power.idle_fraction * hours_in * o.power.pue * o.power.usd_per_kwh
    facility = kw * o.facility.usd_per_kw_month * months_in
    return float(price * (1.0 - kept) + power + facility)
