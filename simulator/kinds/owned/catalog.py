"""Servers of the catalog an owned option could buy, proposed when the search may add options
(``candidates:``; ``kinds.proposals``): every catalogued server of the GPU, sized to the load,
on the running terms of the site's first listed owned option (else tco's defaults, which
leave out support and staff: said in the proposal's words)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tco.pricing import hardware
from tco.pricing.used_market import used_market
from tco.simulator.core import defaults
from tco.simulator.core.fields import OptionModel
from tco.simulator.kinds.owned.model import Owned
from tco.simulator.kinds.owned.parts import order_decline, server_hardware, years_after
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
    kind: str, gpu: str, ctx: Context, load: Load, site: Mapping[str, OptionModel]
) -> list[Proposal]:
    """Each catalog server of ``gpu``: enough servers for the load's mean busy GPUs and its
    largest job, bounded below by what those servers cost at least (:func:`bound`)."""
    terms, words = _terms(site)
    lead = float(terms.get("lead_time_months", 0.0))
    out = []
    for server in hardware.servers().values():
        if server.gpu != gpu:
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
        said = (
            f"{n} x {server.name} bought ({hardware.BASIS_WORDS[server.price_basis]},"
            f" {server.price_date}), {words}"
        )
        capex = n * server.price_usd * _factor(server, load.start)
        out.append(Proposal(entry, said, hw.gpu_memory_gb, bound(server, n, lead, load), capex))
    return out


def _factor(server: hardware.ServerModel, start: str) -> float:
    """The server's price ordered at the start over its quoted price (its generation's trend)."""
    years = years_after(start, 0, server.price_date)
    return float((1.0 - order_decline(None, server.gpu)) ** max(0.0, years))


def bound(server: hardware.ServerModel, n: int, lead_months: float, load: Load) -> float:
    """What ``n`` servers cost at least over the horizon: bought at the start (the price's
    trend applied), sold at the horizon for the most the used market's band gives, drawing
    idle power and paying the facility from delivery; no support, staff, installation or
    network, which only add."""
    months_in = max(0.0, load.months - lead_months)
    hours_in = load.horizon_h * months_in / load.months
    price = n * server.price_usd * _factor(server, load.start)
    kept = market_share("market", server.gpu, used_market(server.gpu).low)(months_in / 12)
    idle = n * server.max_kw * defaults.IDLE_POWER_FRACTION * hours_in
    power = idle * defaults.PUE * defaults.ELECTRICITY_USD_PER_KWH
    facility = n * server.max_kw * defaults.COLOCATION_USD_PER_KW_MONTH * months_in
    return price * (1.0 - kept) + power + facility
