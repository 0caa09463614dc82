"""What the owned kind offers the rest of tco, declared here rather than known by name there
(``kinds.registry``): the inputs the what-ifs change, what its options sell, the prices a
spreadsheet may expose, its sizes in words, and what it knows to be uncertain."""

from __future__ import annotations

from typing import Any

from tco.pricing.used_market import used_market as market_of
from tco.simulator.core import defaults, uncertain_names
from tco.simulator.costs.ledger import Ledger
from tco.simulator.kinds.owned.model import Owned
from tco.simulator.kinds.owned.resale import ResaleQuote, describe
from tco.simulator.kinds.registry import KnownInput, Sale, UnitPrice, WhatIfInput

# What the odds draw for servers sold (``selling``, ``used_market``): declared here.
uncertain_names.declare(
    __name__, "used_market", "market.resale_received_share", "market.months_to_sell"
)

SERVERS_KNOB = "servers"
TRANCHE_KNOB = "servers_added_per_tranche"
REFRESH_KNOB = "refresh_month"
BASES = ("market", "book")  # resale on the used-market curve, or at book value

# What the servers cost, fetch, draw and need in people: the ledger's inputs. What is
# bought when, how it fails and how jobs are scheduled change the play and are not here.
MONEY_FIELDS = (
    "price_usd",
    "price_decline_per_year",
    "max_kw",
    "network_usd",
    "installation_usd_per_server",
    "depreciation",
    "sell_at_horizon",
    "resale_value",
    "resale_scale",
    "resale_decay_per_year",
    "power",
    "facility",
    "support_pct_per_year",
    "financing",
    "staff",
)


def _lead(o: dict[str, Any], change: float | str) -> bool:
    o["lead_time_months"] = max(0.0, o["lead_time_months"] + float(change))
    return True


def _resale(o: dict[str, Any], change: float | str) -> bool:
    """A basis (a word: whether it changed), or the value scaled (a number; -1: none)."""
    if isinstance(change, str):
        before = o.get("resale_value")
        o["resale_value"] = change
        return before != change
    o["resale_scale"] = o["resale_scale"] * (1.0 + change)
    return True


def _life(o: dict[str, Any], change: float | str) -> bool:
    o["depreciation"]["months"] = max(1, round(o["depreciation"]["months"] * (1.0 + float(change))))
    return True


# Lead time +-1 month (re-simulation); resale on the other basis ("market" curve or "book"
# value, whichever the scenario does not use) or none; depreciation life +-25 % (it moves cash
# only where resale is at book value).
WHAT_IFS = (
    WhatIfInput("lead time", (-1.0, 1.0), _lead, unit="months"),
    WhatIfInput("resale value", (*BASES, -1.0), _resale, words={-1.0: "none"}, replays=False),
    WhatIfInput("depreciation life", (-0.25, 0.25), _life, replays=False),
)


def sale(option: Owned, ledger: Ledger) -> Sale | None:
    """The servers sold at the horizon and, with a refresh, the old ones sold at the cutover,
    with how they are valued and, on the used market, the horizon's sale across its band."""
    cash, notes = ledger.cash, ledger.notes
    at_end, before = (
        -float(cash[k].sum()) if k in cash else 0.0 for k in ("resale", "refresh_sale")
    )
    if at_end + before <= 0:
        return None
    gpu = option.server_model().gpu
    how = describe(option.resale_value, gpu, option.resale_decay_per_year)
    low, high = notes.get("resale_band_low_usd"), notes.get("resale_band_high_usd")
    band = None if low is None or high is None else (low, high)
    quick = (notes.get("bought_to_resell_usd", 0.0), notes.get("resold_within_a_year_usd", 0.0))
    return Sale(at_end, before, how, band, *quick)  # kept at the horizon, sold before


def unit_prices(option: Owned) -> tuple[UnitPrice, ...]:
    """The prices an owned cluster's running costs multiply (costs.owned_ledger): electricity
    per kWh, staff per FTE-year, the support contract's share of the server price a year. Each
    category is linear in its price, so a spreadsheet cell of quantity x price is exact."""
    return (
        UnitPrice(
            "power",
            option.power.usd_per_kwh,
            "electricity used (kWh, PUE included)",
            "kWh",
            "electricity",
        ),
        UnitPrice(
            "staff",
            option.staff.usd_per_fte_year,
            "staff time (FTE-years)",
            "FTE-year",
            "staff",
        ),
        UnitPrice(
            "support",
            option.support_pct_per_year / 100.0,
            "server price under support (a year's worth, in the report's money)",
            "share of the server price a year",
            "support contract",
            share=True,
        ),
    )


def size_words(knob: str, value: int) -> str:
    if knob == SERVERS_KNOB:
        return f"{value} server{'s' if value != 1 else ''}"
    if value == 0:
        return "the tranches as written"
    if value < 0:
        return f"{-value} server{'s' if value != -1 else ''} fewer in every tranche"
    return f"{value} more server{'s' if value != 1 else ''} in every tranche"


def selling(o: Owned) -> list[KnownInput]:
    """What a seller receives of the used market's price and the months the sale takes, for
    the odds (one market for every owned option of a future): a quote is a dealer's price,
    and book value and none sell on no market."""
    if o.resale_value in ("book", "none"):
        return []
    low, mode, high = defaults.MONTHS_TO_SELL_RANGE
    months = KnownInput(
        "market.months_to_sell",
        "market.months_to_sell",
        low,
        high,
        mode,
        f"{low:g} (SpotWire's auction channel, 30 days) to {high:g} months (ASSUMPTION: a large"
        " lot in a slow market), most likely a broker's 3 (SpotWire's valuator, a model)",
        money=True,
    )
    if isinstance(o.resale_value, ResaleQuote):
        return [months]
    low, mode, high = defaults.RESALE_RECEIVED_RANGE
    share = KnownInput(
        "market.resale_received_share",
        "market.resale_received_share",
        low,
        high,
        mode,
        f"from {low:.0%} (SpotWire's auction in 30 days) to {high:.0%} (ASSUMPTION: a direct"
        f" sale), most likely a broker's {mode:.0%} (SpotWire's valuator, a model)",
        money=True,
    )
    return [share, months]


def used_market(o: Owned, where: str) -> list[KnownInput]:
    """How fast used GPUs lose value, for the odds: anywhere in each generation's band, most
    likely the fit (``pricing.used_market``); one draw for every owned option of a future."""
    if o.resale_decay_per_year is not None:
        return []
    m = market_of(o.server_model().gpu)
    return [
        KnownInput(
            "used_market",
            "market.used_market_quantile",
            0.0,
            1.0,
            0.5,
            f"the used-market band of each option's GPU generation ({m.segment}: value lost"
            f" at exp(-{m.low:.2f} to -{m.high:.2f} a year), fit {m.per_year:.2f}; {m.basis};"
            " pricing/data/used_market.csv)",
            money=True,  # what the servers fetch: the resale's price, not the play
        )
    ]
