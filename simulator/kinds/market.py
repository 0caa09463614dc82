"""What the market is taken to be, beyond the prices: how often spot is interrupted within its
Spot Instance Advisor bucket, how scarce spot capacity is, how fast used GPUs lose value and what
a seller of them receives, and how fast each GPU trains.

A scenario may set them (``market:``) to ask "what if"; the odds of every answer draw them
(``sweep.known``), so the base answer sits inside the spread it is judged against.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from tco.simulator.core.fields import Month, Strict


class RentalPrices(Strict):
    """How market rental prices (on demand and spot, at every provider; a commitment's rate stays
    as bought) move over the horizon. ``curve``: a forward curve, the price of each stated month
    as a multiple of today's (log-linear between the months stated, from 1 at the start, flat
    after the last), in the base run and every future. ``volatility``: a path in each future of
    the odds around that curve (a year's spread of the price's log; ``fitted``: fitted per GPU
    architecture on dated rental prices, ``pricing.rental_paths``), its mean the curve."""

    volatility: Literal["fitted"] | float | None = None
    curve: dict[Month, Annotated[float, Field(gt=0, le=20)]] = Field(default_factory=dict)

    @field_validator("volatility", mode="before")
    @classmethod
    def _volatility(cls, v: object) -> object:
        ok = v is None or v == "fitted"
        ok = ok or (isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 2)
        if not ok:
            raise ValueError(
                "must be 'fitted' or a yearly volatility from 0 to 2 (0.5: the log price"
                " spreads 50 % in a year)"
            )
        return v


class Market(Strict):
    """``spot_interruption_quantile``: where each type's interruption rate sits within its
    advisor bucket (0: the bucket's low bound, 1: its high bound; None: the bucket's midpoint,
    ``core.defaults.SPOT_BUCKET_SHARE``). ``spot_scarcity``: a multiplier on the assumed chance
    that a spot launch finds no capacity and on the mean wait for it (1: as assumed,
    ``core.defaults.SPOT_CAPACITY``; 0: capacity always there)."""

    spot_interruption_quantile: Annotated[float, Field(ge=0, le=1)] | None = None
    # Where the used GPU market's rate of value loss sits within each generation's band
    # (pricing.used_market: 0 its slowest loss, 0.5 the fitted rate, 1 its fastest; None: the
    # fit). One market for every owned option of a future: they all sell into it.
    used_market_quantile: Annotated[float, Field(ge=0, le=1)] | None = None
    # What a seller receives of the used market's price, and the months a sale takes (None:
    # ``core.defaults.RESALE_RECEIVED_SHARE``, ``MONTHS_TO_SELL``: a broker's channel).
    resale_received_share: Annotated[float, Field(gt=0, le=1)] | None = None
    months_to_sell: Annotated[float, Field(ge=0, le=60)] | None = None
    spot_scarcity: Annotated[float, Field(ge=0, le=10)] = 1.0
    # GPU -> a multiplier on its training speed (the odds draw it within the speed model's own
    # spread, ``workload.calibration``; uncertain path ``speed.<GPU>``)
    speed_scale: dict[str, Annotated[float, Field(gt=0, le=10)]] = Field(default_factory=dict)
    rental_prices: RentalPrices | None = None
