"""A rental price's path over the horizon, month by month, as a multiple of today's price: the
forward curve a scenario states (``market.rental_prices.curve``) and, in each future of the
odds, a geometric Brownian motion around it (``pricing.rental_paths`` fits its volatility)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tco.simulator.core.calendar import month_number


def curve(points: Mapping[str, float], start: str, months: int) -> np.ndarray:
    """Each month's multiple of today's price: 1 at ``start`` (unless a point says otherwise),
    log-linear between the stated months, flat before the first and after the last."""
    at = {month_number(start): 1.0}
    at.update({month_number(k): float(v) for k, v in points.items()})
    known = sorted(at)
    x = np.arange(months, dtype=np.float64) + month_number(start)
    logs = np.log([at[k] for k in known])
    return np.exp(np.interp(x, np.asarray(known, dtype=np.float64), logs))


def path(shock: np.ndarray, volatility: float) -> np.ndarray:
    """A future's multiple of the curve in each month: ``exp(sigma W(t) - sigma^2 t / 2)`` with
    ``W`` the running sum of the monthly standard normal ``shock`` scaled to a month (month 0 is
    today's price: W(0) = 0), ``t`` in years; its mean is 1 in every month (the curve)."""
    n = len(shock)
    w = np.concatenate(([0.0], np.cumsum(shock[: n - 1]))) * np.sqrt(1.0 / 12.0)
    t = np.arange(n, dtype=np.float64) / 12.0
    return np.asarray(np.exp(volatility * w - 0.5 * volatility**2 * t))
