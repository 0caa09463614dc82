"""What an owned option's plan is checked for (servers paid for and never used, a cluster that
never arrives, a lease returned while its servers still serve, failures beyond the event limit)
and its one-line description: existing servers, new ones, a refresh's successor, other models."""

from __future__ import annotations

import math
from typing import Any

from tco.pricing import hardware
from tco.pricing.errors import PricingError
from tco.simulator.core import defaults
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.limits import MAX_EVENTS
from tco.simulator.core.quote import Quote
from tco.simulator.kinds.owned import generations
from tco.simulator.kinds.owned.financing import Financing
from tco.simulator.kinds.owned.generations import Generation
from tco.simulator.kinds.owned.model import Owned
from tco.simulator.kinds.owned.parts import Delivery, existing_age_months, latest_order_month
from tco.simulator.kinds.registry import Context
from tco.simulator.kinds.site import AIR_RACK_KW, Site, SiteFull
from tco.simulator.workload.speed import Hardware

SITE_DRAWN = "site power drawn"
SITE_POWER = "site power"
SITE_NEXT = "site power of one more server"
SITE_RACKS_USED = "site racks used"
SITE_RACKS = "site racks"
SITE_RACKS_NEXT = "site racks with one more server"


def returned_in_service(
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


def in_service_within_horizon(
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
    if option.existing is None and all(d.delivery_month is None for d in deliveries):
        raise ScenarioError(
            ctx.file,
            f"{ctx.where}.{field}",
            f"none of {option.name}'s servers is ordered within the {ctx.horizon_months}-month"
            f" horizon, so none of its jobs would run; {fix}",
        )


def failures_bounded(
    option: Owned,
    deliveries: tuple[Delivery, ...],
    models: tuple[Hardware, ...],
    successor: generations.Successor | None,
    ctx: Context,
) -> None:
    """Refuse failure rates that would ask for more events than ``TCO_MAX_EVENTS``."""
    f = option.upkeep
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


def description(
    server: hardware.ServerModel,
    deliveries: tuple[Delivery, ...],
    successor: generations.Successor | None,
    mix: tuple[generations.Generation, ...],
) -> str:
    """The cluster in one line: its servers, a refresh's successor, servers of other models."""
    n = sum(d.servers for d in deliveries if d.generation == 0)
    out = f"{n} x {server.name} ({n * server.gpus_per_server} x {server.gpu})"
    old = [d for d in deliveries if d.existing]
    if old:  # the existing servers and the new ones, each said
        had = sum(d.servers for d in old)
        out += f": {had} existing (in service {old[0].age_months} months at the start)"
        out += f" and {n - had} new" if n > had else ", none bought"
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


def names_known(option: Owned, ctx: Context) -> None:
    """The option's server, its parts, its tranches' servers and its refresh exist in the
    catalog, and the servers it already owns were bought before the start."""
    try:
        option.server_model()
    except PricingError as exc:
        raise ScenarioError(ctx.file, f"{ctx.where}.server", str(exc)) from None
    own = option.server
    if not isinstance(own, str):  # a server of the scenario's own: its parts are known
        for field, look_up, name in (
            ("gpu", hardware.gpu, own.gpu),
            ("intra_node", hardware.interconnect, own.intra_node),
            ("inter_node", hardware.interconnect, own.inter_node),
        ):
            try:
                look_up(name)
            except PricingError as exc:
                raise ScenarioError(ctx.file, f"{ctx.where}.server.{field}", str(exc)) from None
    e = option.existing
    if e is not None and existing_age_months(e, ctx.start) < 0:
        raise ScenarioError(
            ctx.file,
            f"{ctx.where}.existing.bought",
            f"{e.bought} is after the start ({ctx.start}): servers bought in the horizon"
            " are tranches (tranches: [{month: ..., servers: ...}])",
        )
    if option.refresh is not None:
        generations.check_refresh(option.refresh, ctx)
    for i, t in enumerate(option.tranches or option.purchase_plan()):  # as written
        try:
            hardware.server(t.server) if t.server else option.server_model()
        except PricingError as exc:
            raise ScenarioError(ctx.file, f"{ctx.where}.tranches[{i}].server", str(exc)) from None


def held(
    kw: float, mix: tuple[Generation, ...], deliveries: tuple[Delivery, ...], successor: Any
) -> dict[float, int]:
    """The servers held at the most (kW at each one's maximum draw -> how many): every server
    delivered within the horizon (a refresh's successors replace the servers they follow: the
    set that draws more)."""
    per = [kw, *(g.max_kw_per_server for g in mix)]
    out: dict[float, int] = {}
    for d in deliveries:
        if math.isfinite(d.delivery_h):
            out[per[d.generation]] = out.get(per[d.generation], 0) + d.servers
    if successor is not None:
        after = {successor.max_kw_per_server: successor.servers}
        if drawn(after) > drawn(out):
            return after
    return out


def drawn(servers: dict[float, int]) -> float:
    """kW the servers draw at their maximum."""
    return sum(kw * n for kw, n in servers.items())


def fits_site(
    kw: float,
    mix: tuple[Generation, ...],
    deliveries: tuple[Delivery, ...],
    successor: Any,
    ctx: Context,
) -> tuple[Quote, ...]:
    """The site's power and racks the servers take, what the site has and what one more server
    would take, as quotes (none: the scenario states no site); ``SiteFull`` when they would
    take more than it has."""
    site = ctx.site
    if site is None:
        return ()
    servers = held(kw, mix, deliveries, successor)
    need, n = drawn(servers), sum(servers.values())
    fail = site_message(site, servers, kw)
    if fail:
        raise SiteFull(ctx.file, ctx.where, f"{n} servers {fail}", max(need - site.it_kw, 0.0))
    more = {**servers, kw: servers.get(kw, 0) + 1}
    quotes = [
        Quote(SITE_DRAWN, round(need, 3), "kW", "scenario", "undated", f"{n} servers at most"),
        Quote(SITE_POWER, site.it_kw, "kW", "scenario", "undated", site.source),
        Quote(SITE_NEXT, kw, "kW", "catalog", "undated", "one more server at its maximum"),
    ]
    if site.racks is not None:
        used, next_ = site.racks_for(servers), site.racks_for(more)
        every = f"{site.kw_per_rack:g} kW each, {site.per_rack(kw)} such servers a rack"
        quotes += [
            Quote(SITE_RACKS_USED, used, "racks", "scenario", "undated", every),
            Quote(SITE_RACKS, site.racks, "racks", "scenario", "undated", site.source),
            Quote(SITE_RACKS_NEXT, next_, "racks", "scenario", "undated", "with one more server"),
        ]
    return tuple(quotes)


def site_message(site: Site, servers: dict[float, int], kw: float) -> str:
    """Why the servers do not fit the site ('' when they do), after "N servers"."""
    need = drawn(servers)
    if need > site.it_kw + 1e-9:
        return (
            f"draw {need:,.1f} kW at their maximum ({kw:g} kW each); the site powers"
            f" {site.it_kw:,.1f} kW (site.it_kw): at most {int(site.it_kw // kw)} such servers fit"
        )
    hot = [k for k, n in servers.items() if n and k > AIR_RACK_KW]
    if site.cooling == "air" and hot:
        return (
            f"include {max(hot):g} kW ones; air cooling serves racks of at most {AIR_RACK_KW:g} kW"
            " (Uptime Institute 2025): a site cooled by liquid or immersion (site.cooling)"
        )
    if site.racks is None:
        return ""
    too_dense = [k for k, n in servers.items() if n and site.per_rack(k) == 0]
    if too_dense:
        return (
            f"include {max(too_dense):g} kW ones, more than a {site.kw_per_rack:g} kW rack holds"
            " (site.kw_per_rack): a denser rack, liquid cooled, is another site"
        )
    racks = site.racks_for(servers)
    if racks > site.racks:
        return (
            f"need {racks} racks of {site.kw_per_rack:g} kW ({site.per_rack(kw)} a rack at"
            f" {kw:g} kW); the site has {site.racks} (site.racks): at most"
            f" {site.racks * site.per_rack(kw)} such servers fit"
        )
    return ""
