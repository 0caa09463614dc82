"""What an owned cluster costs: capex (or financing), depreciation, resale, power, facility,
support and staff, month by month in the cash and accounting views, for each generation of
servers it has (the ones bought, and a refresh's successor: ``generations``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tco.pricing import carbon as carbon_data
from tco.pricing.used_market import used_market
from tco.simulator.core import defaults
from tco.simulator.core.calendar import month_ending, per_month
from tco.simulator.costs.carbon import SITE, Draw
from tco.simulator.costs.carbon import it_kwh as energy
from tco.simulator.costs.finance import depreciation
from tco.simulator.costs.ledger import Asset, Category, Ledger, declare
from tco.simulator.costs.usage import hourly
from tco.simulator.kinds.owned.financing import Flows, financed
from tco.simulator.kinds.owned.generations import on_successor, retired_h
from tco.simulator.kinds.owned.model import Owned, OwnedPlan
from tco.simulator.kinds.owned.parts import Delivery
from tco.simulator.kinds.owned.resale import (
    BROKER,
    Resale,
    ResaleCurve,
    ResaleQuote,
    Selling,
    market_share,
)
from tco.simulator.kinds.runs import JobRuns

# The owned cluster's ledger categories (label, the price group that scales it, chart colour).
declare(
    Category("capex", "servers bought", "server prices", "#4c72b0", charge="Purchase"),
    Category("resale", "resale at the horizon", "server prices", "#8c8c8c", credit=True),
    Category("depreciation", "depreciation", "server prices", "#4c72b0", book_only=True),
    Category("power", "electricity", "electricity", "#dd8452"),
    Category("facility", "facility", "facility", "#937860"),
    Category("support", "support contract", "server prices", "#da8bc3"),
    Category("staff", "staff", "staff", "#8172b3"),
)


def resale_of(
    o: Owned,
    gpu: str,
    servers: int,
    new: float,
    book: float,
    months_held: int,
    per_year: float | None = None,
    selling: Selling = BROKER,
    network: float = 0.0,
) -> float:
    """What ``servers`` servers of ``gpu`` bought for ``new`` (and the ``network`` bought with
    them) fetch after ``months_held``, as a seller receives it (``selling``): on the used
    market's curve (or the scenario's), the servers' price after the months the sale takes
    too, times the share a seller receives of it, and never more than they cost new; the
    network at its own rate; at ``per_year`` instead of the option's market rate when given
    (the band's ends). A quote is what its dealer pays; book value and none are as named."""
    v = o.resale_value
    if v == "none":  # kept, scrapped or given away: no value counted
        return 0.0
    if v == "book":  # the network and installation are in the book value
        return book * o.resale_scale
    years = (months_held + selling.months) / 12
    if isinstance(v, ResaleQuote):
        value = servers * v.usd_per_server
    else:
        value = new * market_share(v, gpu, per_year)(years) * selling.share
    value = min(value * o.resale_scale, new)
    return value + network * math.exp(-defaults.NETWORK_RESALE_PER_YEAR * years)


def _basis(plan: OwnedPlan, network: bool, d: Delivery, quoted: float | None = None) -> float:
    """Capitalised cost of a tranche: servers (at ``quoted``, default the option's server's
    price, times the order month's factor), installation, and the network when ``network``
    (the first tranche bought in the horizon). Existing servers: what they cost (installed,
    networked)."""
    o = plan.option
    price = (plan.price_usd_per_server if quoted is None else quoted) * d.price_factor
    if d.existing:
        return d.servers * price
    basis = d.servers * (price + o.installation_usd_per_server)
    return basis + (o.network_usd if network else 0.0)


@dataclass(frozen=True)
class _Generation:
    """Servers of one kind: their tranches with their cost, power and GPUs per server, the
    jobs that ran on them and when they leave service (the horizon unless a refresh)."""

    tranches: list[tuple[Delivery, float]]  # (delivery, basis)
    kw: float
    gpus_per_server: int
    ran_here: np.ndarray  # per job
    until_h: float
    gpu: str  # its GPU model, whose used market values the servers when sold
    price_usd_per_server: float  # as quoted (a spare GPU is priced from it)


def _generations(plan: OwnedPlan, runs: JobRuns, hours: float) -> list[_Generation]:
    arrived = [d for d in plan.deliveries if d.delivery_month is not None]
    # The network is bought with the first tranche bought in the horizon (not existing).
    first = next((i for i, d in enumerate(arrived) if not d.existing), -1)
    if plan.mix:  # several models side by side, each priced and powered as its own
        ran = runs.generation if runs.generation is not None else np.zeros(len(runs.gpus), int)
        kinds = [(plan.price_usd_per_server, plan.max_kw_per_server, plan.hardware)]
        kinds += [(g.price_usd_per_server, g.max_kw_per_server, g.hardware) for g in plan.mix]
        return [
            _Generation(
                [
                    (d, _basis(plan, i == first, d, price))
                    for i, d in enumerate(arrived)
                    if d.generation == k
                ],
                kw,
                hw.gpus_per_unit,
                ran == k,
                hours,
                hw.gpu,
                price,
            )
            for k, (price, kw, hw) in enumerate(kinds)
        ]
    s = plan.successor
    new = on_successor(s, runs)
    gens = [
        _Generation(
            [(d, _basis(plan, i == first, d)) for i, d in enumerate(arrived)],
            plan.max_kw_per_server,
            plan.hardware.gpus_per_unit,
            ~new,
            hours if s is None else retired_h(s, runs, hours),
            plan.hardware.gpu,
            plan.price_usd_per_server,
        )
    ]
    if s is not None:  # the network and the first tranche's extras are not bought again
        d = s.delivery
        basis = d.servers * (s.price_usd_per_server * d.price_factor)
        basis += d.servers * plan.option.installation_usd_per_server
        gens.append(
            _Generation(
                [(d, basis)],
                s.max_kw_per_server,
                s.hardware.gpus_per_unit,
                new,
                hours,
                s.hardware.gpu,
                s.price_usd_per_server,
            )
        )
    return gens


def owned_ledger(plan: OwnedPlan, runs: JobRuns, edges: np.ndarray) -> Ledger:
    """Cash and accounting ledgers of a purchased cluster."""
    o = plan.option
    months = len(edges) - 1
    hours = int(edges[-1])
    month_hours = np.diff(edges).astype(np.float64)
    support, it_kwh, facility, paid, busy, embodied = (np.zeros(months) for _ in range(6))
    capex, resale, dep = (np.zeros(months) for _ in range(3))
    total = Flows(months, {"capex": capex, "resale": resale}, {"depreciation": dep})
    first = months
    # The network is bought with the first tranche bought in the horizon (``_generations``).
    networked = next(
        (d for d in plan.deliveries if d.delivery_month is not None and not d.existing), None
    )
    for g in _generations(plan, runs, hours):
        server_hours = per_month(
            hourly(
                np.array([d.delivery_h for d, _ in g.tranches], dtype=np.float64),
                np.full(len(g.tranches), float(g.until_h)),
                np.array([d.servers for d, _ in g.tranches], dtype=np.float64),
                hours,
            ),
            edges,
        )
        weights = np.where(g.ran_here, runs.gpus, 0).astype(np.float64)
        busy_g = per_month(runs.held_hourly(weights, hours), edges)
        kw, gps = g.kw, g.gpus_per_server
        p = o.power  # the rule a rented server's energy follows too (costs.carbon.it_kwh)
        it_kwh += energy(server_hours * gps, busy_g, kw / gps, p.idle_fraction, p.busy_fraction)
        facility += server_hours / month_hours * kw * o.facility.usd_per_kw_month
        paid += server_hours * gps
        embodied += server_hours * carbon_data.embodied_kg_per_hour(gps)
        busy += busy_g
        end = months if g.until_h >= hours else month_ending(edges, g.until_h) + 1
        spares = spare_gpus(o, sum(d.servers for d, _ in g.tranches) * gps, gps)
        # Existing servers alone hold their spares already (no cash, counted in their value).
        spares_with = next((i for i, (d, _) in enumerate(g.tranches) if not d.existing), 0)
        for i, (d, basis) in enumerate(g.tranches):
            assert d.delivery_month is not None
            first = min(first, d.delivery_month)
            # Spares are bought with the first servers bought; the network with its tranche.
            sold = _sold(plan, g, d, basis, spares if i == spares_with else 0, d is networked)
            basis = sold.basis
            total.merge(_tranche(o, sold, d.delivery_month, months, end, d.age_months))
            # The support contract runs while the servers are in service, prorated by hours.
            in_service = np.clip((edges[1:] - d.delivery_h) / month_hours, 0.0, 1.0)
            in_service -= np.clip((edges[1:] - g.until_h) / month_hours, 0.0, 1.0)
            support += basis * o.support_pct_per_year / 100.0 / 12.0 * in_service

    power = it_kwh * o.power.pue * o.power.usd_per_kwh
    staff = np.where(np.arange(months) >= first, o.staff.fte * o.staff.usd_per_fte_year / 12.0, 0.0)
    shared = {"power": power, "facility": facility, "support": support, "staff": staff}
    after = total.notes.get("lease_payments_beyond_horizon_usd", 0.0)
    return Ledger(
        draws=(Draw(SITE, it_kwh, plan.pue, None, embodied),),
        cash={**total.cash, **shared},
        accounting={**total.accounting, **shared},
        gpu_hours_paid=paid,
        gpu_hours_busy=busy,
        notes=total.notes,
        owed_after_horizon={"lease_after_end": after},
        assets=tuple(total.assets),
    )


def _sold(
    plan: OwnedPlan, g: _Generation, d: Delivery, basis: float, spares: int, networked: bool
) -> _Sold:
    """A tranche as its sale sees it (``spares``: the spare GPUs bought with it; ``networked``:
    the network was bought with it). What a buyer pays for is the servers and spare GPUs, not
    their installation (0.13.0 resold it at the GPU's rate); the network sells at its own."""
    hardware = d.servers * g.price_usd_per_server * d.price_factor
    if spares:
        spare = spares * spare_price(g.price_usd_per_server, g.gpus_per_server) * d.price_factor
        basis, hardware = basis + spare, hardware + spare
    network = plan.option.network_usd if networked else 0.0
    return _Sold(g.gpu, d.servers, basis, hardware, network, plan.selling)


# Servers sold within this many months of their delivery were bought to be resold: the answer
# says so, with the capital and what comes back (``offers.sale``).
QUICK_MONTHS = 12


def spare_gpus(o: Owned, gpus: int, gpus_per_server: int) -> int:
    """The spare GPUs an option keeps for ``gpus`` GPUs of one model (none without failures)."""
    f = o.upkeep
    return 0 if f is None else f.spares(gpus, gpus_per_server)


def spare_price(price_usd_per_server: float, gpus_per_server: int) -> float:
    """A spare GPU: its server's price per GPU without the chassis's share (Epoch's ratio)."""
    return price_usd_per_server / gpus_per_server / defaults.SERVER_TO_CHIP_COST


@dataclass(frozen=True)
class _Sold:
    """A tranche as its sale sees it: its GPU, its servers, its capitalised cost (``basis``:
    depreciated, the book value) and what its hardware cost new (``hardware``: what the used
    market values, without installation and network)."""

    gpu: str
    servers: int
    basis: float
    hardware: float
    network: float = 0.0  # the network bought with it, resold at its own rate
    selling: Selling = BROKER  # what a seller receives, and after how long


def _owned(
    o: Owned,
    sold: _Sold,
    basis: float,
    m0: int,
    months: int,
    out: Flows,
    bought: int,
    end: int,
    age: int = 0,
) -> None:
    """Servers owned from month ``m0`` to month ``end`` (exclusive) at cost ``basis``:
    depreciation, and their sale in month ``end - 1`` (``bought``: the month they arrived, for
    the used market; ``age``: months they were depreciated before ``m0``, for existing
    servers). A sale before the horizon (a refresh) always happens and books the gap to book
    value as a loss or gain on disposal."""
    schedule = depreciation(
        o.depreciation.method,
        basis,
        basis * o.depreciation.salvage_fraction,
        o.depreciation.months,
        o.depreciation.declining_factor,
    )
    span = max(0, min(len(schedule) - age, end - m0))
    out.accounting["depreciation"][m0 : m0 + span] += schedule[age : age + span]
    book = basis - schedule[: age + span].sum()
    held = end - bought

    def value(per_year: float | None = None) -> float:
        rate = _rate(o, sold) if per_year is None else per_year
        got = resale_of(
            o, sold.gpu, sold.servers, sold.hardware, book, held, rate, sold.selling, sold.network
        )
        return got

    # What they fetch, asked of the market once (None: kept past the horizon, not sold).
    sale = value() if end < months or o.sell_at_horizon else None
    if held < QUICK_MONTHS and sale is not None and sale > 0:
        # Bought and sold within a year of delivery: an answer resting on it says so.
        for note, usd in (("resold_within_a_year_usd", sale), ("bought_to_resell_usd", basis)):
            out.notes[note] = out.notes.get(note, 0.0) + usd

    out.assets.append(
        Asset(
            m0 - age,
            basis,
            None if sale is None else end - 1,
            sale or 0.0,
            "capex",
            "resale" if end == months else "refresh_sale",
        )
    )
    if end == months:
        if sale is not None:
            out.cash["resale"][-1] -= sale
            if o.resale_value == "market" and _rate(o, sold) is None:
                m = used_market(sold.gpu)  # the band's ends, for the answer
                for name, rate in (
                    ("resale_band_low_usd", m.high),
                    ("resale_band_high_usd", m.low),
                ):
                    out.notes[name] = out.notes.get(name, 0.0) + value(rate)
        return
    assert sale is not None  # a sale before the horizon (a refresh) always happens
    for cash_or_acc, name in ((out.cash, "refresh_sale"), (out.accounting, "disposal")):
        cash_or_acc.setdefault(name, np.zeros(months))
    out.accounting.setdefault("disposal_gain", np.zeros(months))
    out.cash["refresh_sale"][end - 1] -= sale
    out.accounting["disposal" if book >= sale else "disposal_gain"][end - 1] += book - sale


def _rate(o: Owned, sold: _Sold) -> float | None:
    """The used market's rate for these servers: the scenario's, else the future's place in
    their generation's band, else None (the fit)."""
    if o.resale_decay_per_year is not None:
        return o.resale_decay_per_year
    if sold.selling.quantile is None:
        return None
    return used_market(sold.gpu).rate_at(sold.selling.quantile)


def _tranche(
    o: Owned, sold: _Sold, m0: int, months: int, end: int, age: int | None = None
) -> Flows:
    """One tranche's capex, depreciation and resale, paid in cash or financed (``age``: the
    months existing servers served before the horizon; none of their price is paid in it)."""
    out = Flows(months)
    basis = sold.basis
    for name in ("capex", "resale"):
        out.cash[name] = np.zeros(months)
    out.accounting["depreciation"] = np.zeros(months)
    if age is not None:
        _owned(o, sold, basis, m0, months, out, m0 - age, end, age)
        return out
    f = o.financing
    if f is None:
        out.cash["capex"][m0] += basis
        _owned(o, sold, basis, m0, months, out, m0, end)
        return out
    # The lessor prices its residual on the used market (or the scenario's own curve).
    curve: Resale = o.resale_value if isinstance(o.resale_value, ResaleCurve) else "market"
    share = market_share(curve, sold.gpu, _rate(o, sold))
    residual = sold.hardware * share(f.term_months / 12) if f.operating else 0.0
    returned = sold.hardware * share((end - m0) / 12)  # if a lease ends at a refresh
    flows = financed(f, basis, m0, months, residual, end, returned)
    out.cash.update(flows.cash)
    out.accounting.update(flows.accounting)
    out.notes.update(flows.notes)
    out.assets += flows.assets
    if not f.operating:
        _owned(o, sold, basis, m0, months, out, m0, end)
    elif f.end_of_term == "fmv_buyout" and m0 + f.term_months < end:
        at = m0 + f.term_months
        out.cash["capex"][at] += residual  # bought at the value the lessor priced in
        _owned(o, sold, residual, at, months, out, m0, end)
    return out
