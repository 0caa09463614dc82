"""GPU generations over the horizon: an owned cluster refreshed to a successor generation.

``refresh:`` replaces every server by servers of a newer generation, ordered in ``month`` and in
service after the option's lead time: the *cutover*. From then on jobs start only on the
successor and run at its speed; the jobs running on the old servers finish there (the servers are
drained, as operators do), and the old servers are sold in the month the last of those jobs ends,
at the value the option's ``resale_value`` gives (used market by default). The successor is priced
at its catalog price moved to its order month by the option's price-decline rule (or at the
refresh's own ``price_usd``), and is sold at the horizon like any owned server. A successor with
fewer GPUs than the cluster may be chosen: a job larger than it runs only if it starts before the
cutover.

With a loan or finance lease, the successor is financed on the same terms and the old servers' loan
is paid off when they are sold; an operating lease still running at the cutover ends early
(``owned.financing``). With failures, the old servers fail until the cutover and the successor's
after it (on servers a stopped job finishes on the successor; on a pool jobs resume in place).
Refused with a message: tranches ordered at or after the refresh, a successor GPU with less
memory, a successor that arrives after the horizon, a refresh together with servers of several
models. A tranche may also bring servers of another model beside the others (``newer_servers``;
``owned.queue`` queues their jobs as groups of the scheduler).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Annotated

import numpy as np
from pydantic import Field

from tco.pricing import hardware
from tco.pricing.errors import PricingError
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import GpuCount, NonNeg, Strict
from tco.simulator.core.quote import PRICE_FACTOR_UNIT, Quote
from tco.simulator.costs.ledger import Category, declare
from tco.simulator.kinds.owned.parts import (
    SEARCH_STEP_MONTHS,
    Delivery,
    Tranche,
    deliveries_of,
    latest_order_month,
    order_decline,
    server_hardware,
)
from tco.simulator.kinds.plan import speed_quote
from tco.simulator.kinds.registry import Context
from tco.simulator.kinds.runs import JobRuns
from tco.simulator.workload.speed import Hardware

declare(
    Category(
        "refresh_sale", "servers sold at the refresh", "server prices", "#b3b3b3", credit=True
    ),
    Category("disposal", "loss on servers sold", "server prices", "#6d8fc7", book_only=True),
    Category(
        "disposal_gain",
        "gain on servers sold",
        "server prices",
        "#c7d4ea",
        credit=True,
        book_only=True,
    ),
)


class Refresh(Strict):
    """Every server replaced by ``servers`` of ``server``, ordered in ``month`` (0 = the first)."""

    month: Annotated[int, Field(ge=0, le=1200)]
    server: str
    # Default: at least as many GPUs as the cluster bought, in whole servers of the successor.
    servers: GpuCount | None = None
    price_usd: NonNeg | None = None  # per server; default from the catalog, by order month
    max_kw: NonNeg | None = None  # per server; default from the catalog


@dataclass(frozen=True)
class Successor:
    """The refresh resolved: the successor's hardware, count, prices and its delivery."""

    server: str
    hardware: Hardware
    servers: int
    price_usd_per_server: float  # as quoted; times ``delivery.price_factor`` when ordered
    max_kw_per_server: float
    delivery: Delivery

    @property
    def cutover_h(self) -> float:
        return self.delivery.delivery_h

    @property
    def first_month(self) -> int:
        """The month (0 = the first) the successor takes over."""
        assert self.delivery.delivery_month is not None  # checked when resolved
        return self.delivery.delivery_month

    @property
    def gpus(self) -> int:
        return self.servers * self.hardware.gpus_per_unit


@dataclass(frozen=True)
class Generation:
    """Servers of another catalog model beside the option's own (a mixed cluster)."""

    server: str
    hardware: Hardware
    price_usd_per_server: float  # catalog, as quoted; times each delivery's price factor
    max_kw_per_server: float


def newer_servers(
    tranches: list[Tranche],
    own: str,
    deliveries: tuple[Delivery, ...],
    lead_time_months: float,
    decline_per_year: float | None,
    ctx: Context,
    unmixable: str | None,
) -> tuple[tuple[Delivery, ...], tuple[Generation, ...], tuple[Quote, ...]]:
    """Tranches of other server models (``Tranche.server``): each model a generation (1, 2...
    in order of first mention; 0 is the option's ``own``), its tranches priced from its own
    catalog date, and the figures it rests on. ``unmixable``: what a mixed cluster cannot go
    with yet."""
    others = list(dict.fromkeys(t.server for t in tranches if t.server not in (None, own)))
    if not others:
        return deliveries, (), ()
    if unmixable is not None:
        raise ScenarioError(
            ctx.file,
            f"{ctx.where}.tranches",
            f"servers of several models together with {unmixable} are not modelled yet:"
            " give every tranche the option's server, or remove it",
        )
    out, gens, quotes = list(deliveries), [], []
    for k, name in enumerate(others, start=1):
        server = hardware.server(name)
        idx = [i for i, t in enumerate(tranches) if t.server == name]
        mine = deliveries_of(
            [tranches[i] for i in idx],
            lead_time_months,
            order_decline(decline_per_year, server.gpu),
            ctx.start,
            ctx.horizon_months,
            server.price_date,
        )
        for i, d in zip(idx, mine, strict=True):
            out[i] = dataclasses.replace(d, generation=k)
        hw = server_hardware(server, ctx.speed)
        gens.append(Generation(name, hw, server.price_usd, server.max_kw))
        for item, value, unit in (
            ("purchase price", server.price_usd, "USD/server"),
            ("maximum power", server.max_kw, "kW/server"),
        ):
            quotes.append(
                Quote(
                    f"{name} {item}",
                    value,
                    unit,
                    "catalog",
                    server.price_date,
                    f"{hardware.BASIS_WORDS[server.price_basis]}: {server.source}",
                )
            )
        quotes.append(speed_quote(ctx.speed(hw.gpu)))
    return tuple(out), tuple(gens), tuple(quotes)


def months_to_try(
    r: Refresh, last_tranche: int, lead_time_months: float, horizon_months: int
) -> list[int]:
    """The refresh months ``tco optimize`` tries besides the scenario's: every half year from
    the month after the last tranche to the last whose successor arrives within the horizon."""
    first = last_tranche + 1
    last = latest_order_month(lead_time_months, horizon_months)
    months = {*range(first, last + 1, SEARCH_STEP_MONTHS), last} if last >= first else set()
    return sorted(months - {r.month})


def check_refresh(r: Refresh, ctx: Context) -> None:
    try:
        hardware.server(r.server)
    except PricingError as exc:
        raise ScenarioError(ctx.file, f"{ctx.where}.refresh.server", str(exc)) from None


def successor(
    r: Refresh,
    ctx: Context,
    old: Hardware,
    tranches: list[Tranche],
    lead_time_months: float,
    decline_per_year: float | None,
) -> tuple[Successor, tuple[Quote, ...]]:
    """The successor of a cluster with hardware ``old`` bought in ``tranches``, and the figures it
    rests on."""
    n = _servers(r, ctx, old, tranches)
    server = hardware.server(r.server)
    gpu = hardware.gpu(server.gpu)
    dated = server.price_date if r.price_usd is None else "undated"
    (delivery,) = deliveries_of(
        [Tranche(month=r.month, servers=n)],
        lead_time_months,
        order_decline(decline_per_year, server.gpu),
        ctx.start,
        ctx.horizon_months,
        dated,
    )
    if delivery.delivery_month is None:
        latest = latest_order_month(lead_time_months, ctx.horizon_months)
        raise ScenarioError(
            ctx.file,
            f"{ctx.where}.refresh.month",
            f"the successor ordered in month {r.month} arrives after the {ctx.horizon_months}"
            f"-month horizon (lead time {lead_time_months:g} months); valid: up to {latest}",
        )
    hw = server_hardware(server, ctx.speed)
    price = r.price_usd if r.price_usd is not None else server.price_usd
    kw = r.max_kw if r.max_kw is not None else server.max_kw
    quotes = (*_quotes(r, server, dated, delivery, price, kw), speed_quote(ctx.speed(gpu.name)))
    return Successor(server.name, hw, n, price, kw, delivery), quotes


def _servers(r: Refresh, ctx: Context, old: Hardware, tranches: list[Tranche]) -> int:
    """How many successor servers, once the refresh is known to be one the model holds."""
    where = f"{ctx.where}.refresh"
    last = max(t.month for t in tranches)
    if r.month <= last:
        raise ScenarioError(
            ctx.file,
            f"{where}.month",
            f"the refresh replaces every server, so it must come after the last tranche"
            f" (month {last}); got {r.month}, valid: {last + 1} or later",
        )
    server = hardware.server(r.server)
    gpu = hardware.gpu(server.gpu)
    old_gpus = sum(t.servers for t in tranches) * old.gpus_per_unit
    n = r.servers if r.servers is not None else math.ceil(old_gpus / server.gpus_per_server)
    if gpu.memory_gb < old.gpu_memory_gb:
        raise ScenarioError(
            ctx.file,
            f"{where}.server",
            f"a successor GPU with less memory than the one it replaces is not modelled:"
            f" {server.name} has {gpu.memory_gb:g} GB per GPU, {old.gpu} {old.gpu_memory_gb:g}"
            " GB; choose a server whose GPUs have at least as much",
        )
    return n


def _quotes(
    r: Refresh,
    server: hardware.ServerModel,
    dated: str,
    delivery: Delivery,
    price: float,
    kw: float,
) -> tuple[Quote, ...]:
    catalog = r.price_usd is None
    return (
        Quote(
            f"{server.name} purchase price (refresh)",
            price,
            "USD/server",
            "catalog" if catalog else "scenario",
            dated,
            f"{hardware.BASIS_WORDS[server.price_basis]}: {server.source}"
            if catalog
            else "set in the scenario file",
        ),
        Quote(
            f"{server.name} price factor in month {r.month + 1}",
            round(delivery.price_factor, 4),
            PRICE_FACTOR_UNIT,
            "default" if catalog else "scenario",
            dated,
            "the option's price_decline_per_year (else its generation's fitted new-price"
            " trend, pricing.new_prices) from the quoted price's date to the order month",
        ),
        Quote(
            f"{server.name} maximum power",
            kw,
            "kW/server",
            "catalog" if r.max_kw is None else "scenario",
            server.price_date if r.max_kw is None else "undated",
            server.source if r.max_kw is None else "set in the scenario file",
        ),
    )


def retired_h(s: Successor, runs: JobRuns, horizon_h: float) -> float:
    """When the old servers leave: the end of the last job running on them at the cutover (the
    cutover if none), or the horizon. All of them stay until then, a slight overcount of the
    idle power of the ones that emptied earlier."""
    cut = s.cutover_h
    drained = (runs.start_h < cut) & (runs.end_h > cut)
    g = runs.gaps
    if g is not None:  # stopped by a failure and queued at the cutover: it runs on the successor
        drained[g.job[(g.from_h <= cut) & (g.to_h > cut)]] = False
    ends = runs.end_h[drained]
    return float(min(horizon_h, max([cut, *ends.tolist()])))


def on_successor(s: Successor | None, runs: JobRuns) -> np.ndarray:
    """The jobs that ran on the successor: started from the cutover's instant on (the scheduler
    starts none on the old servers then), or stopped before it and queued at it. The latter's
    holds before the cutover count at the successor's power too (a small overcount)."""
    if s is None:
        return np.zeros(len(runs.start_h), dtype=bool)
    new = runs.start_h >= s.cutover_h
    g = runs.gaps
    if g is not None:
        new[g.job[(g.from_h <= s.cutover_h) & (g.to_h > s.cutover_h)]] = True
    return np.asarray(new)
