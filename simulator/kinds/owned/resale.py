"""What an owned option's servers fetch when sold: the used market of their GPU's generation
(``pricing.used_market``, the default), their book value, nothing, a dealer's quote per server,
or a curve of the scenario's own; and the words the answer says it with."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

from tco.pricing.used_market import used_market
from tco.simulator.core import defaults
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import NonNeg, Strict
from tco.simulator.kinds.market import Market

# A share of a server's price: a used server never fetches more than a new one (0.19.0 took
# curves up to 2 and a scenario's own curve of [2, 2] made an owned option cost -$55,123).
SHARE = Annotated[float, Field(ge=0, le=1)]


@dataclass(frozen=True)
class Selling:
    """The used market a seller meets, as a future of the odds draws it (``kinds.market.
    Market``): where its rate of value loss sits in the generation's band (``quantile``; None:
    the fit), the share of its price a seller receives (``share``) and the months the sale
    takes (``months``), during which the servers keep losing value; by default a broker's
    channel (``core.defaults.RESALE_RECEIVED_SHARE``, ``MONTHS_TO_SELL``)."""

    share: float = defaults.RESALE_RECEIVED_SHARE
    months: float = defaults.MONTHS_TO_SELL
    quantile: float | None = None

    @staticmethod
    def of(market: Market) -> Selling:
        share, months = market.resale_received_share, market.months_to_sell
        return Selling(
            defaults.RESALE_RECEIVED_SHARE if share is None else share,
            defaults.MONTHS_TO_SELL if months is None else months,
            market.used_market_quantile,
        )


BROKER = Selling()  # the default channel: a broker, over three months


class ResaleQuote(Strict):
    """A quote: USD a server fetches whenever the option sells one, with its source."""

    usd_per_server: NonNeg
    source: Annotated[str, Field(min_length=1, max_length=500)]


class ResaleCurve(Strict):
    """A curve of the scenario's own: the share of the price a server fetches after 1, 2, ...
    years held (straight between years, from 1 at 0; past the last year, the last year's ratio
    to the one before continues, never rising: a curve ending 0.5, 1.5 once grew threefold a
    year and sold servers for billions), with its source."""

    share_by_year: Annotated[list[SHARE], Field(min_length=1, max_length=30)]
    source: Annotated[str, Field(min_length=1, max_length=500)]

    def share(self, years: float) -> float:
        points = [1.0, *self.share_by_year]
        last = len(points) - 1
        if years <= last:
            i = int(years)
            j = min(i + 1, last)
            return float(points[i] + (points[j] - points[i]) * (years - i))
        step = min(1.0, points[last] / points[last - 1]) if points[last - 1] > 0 else 0.0
        return float(points[last] * step ** (years - last))


def _which(value: Any) -> str | None:
    """Which form a resale takes, by its keys, so that a mistake is reported against one form."""
    if isinstance(value, ResaleQuote) or (isinstance(value, dict) and "usd_per_server" in value):
        return "Quote"
    if isinstance(value, ResaleCurve) or (isinstance(value, dict) and "share_by_year" in value):
        return "Curve"
    return None if isinstance(value, dict) else "Word"


Resale = Annotated[
    Annotated[Literal["book", "market", "none"], Tag("Word")]
    | Annotated[ResaleQuote, Tag("Quote")]
    | Annotated[ResaleCurve, Tag("Curve")],
    Discriminator(
        _which,
        custom_error_type="resale",
        custom_error_message="give market, book, none, {usd_per_server: N, source: ...} (a quote)"
        " or {share_by_year: [...], source: ...} (a curve of your own)",
    ),
]


def basis_word(value: Resale) -> str:
    """ "market", "book", "none", "quote" or "curve"."""
    if isinstance(value, ResaleQuote):
        return "quote"
    return "curve" if isinstance(value, ResaleCurve) else value


def market_share(value: Resale, gpu: str, per_year: float | None) -> Callable[[float], float]:
    """Share of a server's price it fetches after some years held: the scenario's curve, else
    the used market of ``gpu``'s generation (at ``per_year`` when the scenario or a future of the
    odds sets the rate). Book value, none and a quote are applied by the caller; a lease's
    residual uses this share whatever the option's resale."""
    if isinstance(value, ResaleCurve):
        return value.share
    market = used_market(gpu)
    return lambda years: market.share(years, per_year)


def describe(value: Resale, gpu: str, per_year: float | None) -> str:
    """How the sale is valued, in the answer's words."""
    if isinstance(value, ResaleQuote):
        return f"quoted at {value.usd_per_server:,.0f} USD a server ({value.source})"
    if isinstance(value, ResaleCurve):
        return f"on the scenario's own curve ({value.source})"
    if value != "market":
        return f"{value} value"
    m = used_market(gpu)
    rate = m.per_year if per_year is None else per_year

    def lost(k: float) -> str:
        return f"{1 - math.exp(-k):.0%}"

    return (
        f"used-market value: {m.segment} GPUs lose {lost(rate)} of their value a year, band"
        f" {lost(m.low)}-{lost(m.high)}, {m.basis}"
    )


def check_quote(value: Resale, price: float, file: str, where: str) -> None:
    """A quoted resale above what a server costs new is refused: every sale would earn money,
    and a search that buys servers to sell them found mixes at -$2.4 billion (0.13.0)."""
    if isinstance(value, ResaleQuote) and value.usd_per_server > price:
        raise ScenarioError(
            file,
            f"{where}.usd_per_server",
            f"{value.usd_per_server:,.0f} USD is above the server's price ({price:,.0f} USD): a"
            " used server fetches less than a new one; give a quote at most the price",
        )
