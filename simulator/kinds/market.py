"""What the market is taken to be, beyond the prices: how often spot is interrupted within its
Spot Instance Advisor bucket, how scarce spot capacity is, how fast used GPUs lose value and what
a seller of them receives, and how fast each GPU trains.

A scenario may set them (``market:``) to ask "what if"; the odds of every answer draw them
(``sweep.known``), so the base answer sits inside the spread it is judged against.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tco.simulator.core.fields import Strict


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
