"""The workload's arrival level and growth re-estimated from the months recorded, with the
plan's own assumption as the prior.

Arrivals of month ``i`` are Poisson around the plan's count ``p_i`` times a multiplier
``exp(alpha + beta (i - c))``, ``c`` the middle of the recorded months (so the level and the
slope are nearly independent): ``alpha`` is the level against the plan, ``beta`` the growth a
month over the plan's own. Priors, both centred on the plan:

- the level: ``exp(alpha)`` ~ Gamma(a, a), mean 1, ``a`` the plan's arrivals of
  ``PRIOR_MONTHS`` months, i.e. the plan weighs as that many months of records (an ASSUMPTION);
  with the growth held at the plan's this is the Gamma-Poisson conjugate, and the posterior is
  Gamma(a + recorded jobs, a + planned jobs) exactly (tests/tracking/test_track.py checks the grid
  against it);
- the growth: ``beta`` ~ Normal(0, ``GROWTH_PRIOR_SD``): the plan's monthly growth taken as
  right to within about 2 % a month (one standard deviation, about 27 % over a year; an
  ASSUMPTION). A workload replayed from a trace keeps the trace's own shape: its growth is held.

The posterior is evaluated on a grid (exact up to the grid's spacing; two parameters make a
grid cheaper and surer than sampling). What the forecast needs from it is the future volume: the
plan's arrivals of the months left, each times its multiplier, over the plan's (``future``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import gamma

PRIOR_MONTHS = 3.0
GROWTH_PRIOR_SD = 0.02
_LEVEL_POINTS, _GROWTH_POINTS = 401, 161
_GROWTH_SPAN = 6.0  # prior standard deviations each side


@dataclass(frozen=True)
class Fit:
    """The posterior on a grid: ``weight[i, j]`` at level ``alpha[i]`` and growth ``beta[j]``,
    for multipliers ``exp(alpha + beta (month - centre))``."""

    alpha: np.ndarray
    beta: np.ndarray
    weight: np.ndarray  # sums to 1
    centre: float
    prior_a: float
    growth_sd: float

    def multipliers(self, months: np.ndarray) -> np.ndarray:
        """[level, growth, month] -> the arrival multiplier of each month."""
        x = np.asarray(months, dtype=float) - self.centre
        return np.exp(self.alpha[:, None, None] + self.beta[None, :, None] * x[None, None, :])

    def future(self, planned: np.ndarray, first: int) -> np.ndarray:
        """[level, growth] -> the plan's arrivals of months ``first``.. times their multipliers,
        over the plan's: the volume of the work still to come against the plan's."""
        months, share = _left(planned, first)
        return np.asarray(self.multipliers(months) @ share)

    def level_for(self, volume: float, planned: np.ndarray, first: int) -> float:
        """The level ``alpha`` that, with the posterior mean growth, gives the months left
        ``volume`` times the plan's arrivals."""
        months, share = _left(planned, first)
        shape = np.exp(self.mean_growth() * (months - self.centre)) @ share
        return float(np.log(volume / shape))

    def growth_quantiles(self, qs: tuple[float, ...]) -> tuple[float, ...]:
        """The growth a month over the plan's (exp(beta) - 1) at ``qs``."""
        marginal = self.weight.sum(axis=0)
        return tuple(float(np.expm1(x)) for x in weighted_quantiles(self.beta, marginal, qs))

    def mean_growth(self) -> float:
        """The posterior mean of ``beta``: the growth the replays are shaped by."""
        return float(self.weight.sum(axis=0) @ self.beta)


def _left(planned: np.ndarray, first: int) -> tuple[np.ndarray, np.ndarray]:
    """The months from ``first`` on and each one's share of the plan's arrivals in them (with
    no month left, the last month; with none planned, equal shares)."""
    p = np.asarray(planned, dtype=float)
    months = np.arange(first, len(p)) if first < len(p) else np.array([len(p) - 1])
    weights = p[months] if p[months].sum() > 0 else np.ones(len(months))
    return months, weights / weights.sum()


def weighted_quantiles(
    values: np.ndarray, weights: np.ndarray, qs: tuple[float, ...]
) -> tuple[float, ...]:
    """Quantiles of a discrete distribution (values with weights), interpolated between the
    midpoints of the cumulative weights."""
    v, w = np.ravel(values), np.ravel(weights)
    order = np.argsort(v, kind="stable")
    v, w = v[order], w[order]
    cum = np.cumsum(w) - 0.5 * w
    return tuple(float(np.interp(q * w.sum(), cum, v)) for q in qs)


def fit(
    planned: np.ndarray,
    seen: np.ndarray,
    recorded: int,
    growth_sd: float = GROWTH_PRIOR_SD,
    prior_months: float = PRIOR_MONTHS,
) -> Fit:
    """The posterior of level and growth after ``recorded`` months of ``seen`` arrivals against
    the ``planned`` ones (growth held at the plan's when ``growth_sd`` is 0)."""
    p = np.asarray(planned, dtype=float)[:recorded]
    n = np.asarray(seen, dtype=float)[:recorded]
    per_month = float(p.mean()) if recorded else float(np.mean(planned))
    a = max(prior_months * per_month, 1e-9)
    centre = (recorded - 1) / 2.0 if recorded else 0.0
    x = np.arange(recorded) - centre

    def weigh(alpha: np.ndarray, beta: np.ndarray) -> Fit:
        eta = alpha[:, None, None] + beta[None, :, None] * x[None, None, :]
        logpost = (n * eta - p * np.exp(eta)).sum(axis=2) + (a * alpha - a * np.exp(alpha))[:, None]
        if growth_sd > 0:
            logpost = logpost - 0.5 * (beta / growth_sd)[None, :] ** 2
        w = np.exp(logpost - logpost.max())
        return Fit(alpha, beta, w / w.sum(), centre, a, growth_sd)

    # A first grid wide enough for any record: the level's spans what the conjugate (growth
    # held) allows, widened for the growth; the growth's, the prior's +-6 sd.
    k, theta = a + n.sum(), a + p.sum()
    lo, hi = gamma.ppf([1e-9, 1 - 1e-9], k, scale=1.0 / theta)
    first = weigh(
        np.linspace(np.log(lo) - 0.3, np.log(hi) + 0.3, _LEVEL_POINTS),
        np.linspace(-_GROWTH_SPAN, _GROWTH_SPAN, _GROWTH_POINTS) * growth_sd
        if growth_sd > 0
        else np.zeros(1),
    )
    # Then a grid fitted to where that one put the mass (many months pin the growth to far
    # less than the first grid's spacing): +-8 sd of each, or of two spacings at least.
    return weigh(
        *(
            _around(v, m)
            for v, m in (
                (first.alpha, first.weight.sum(axis=1)),
                (first.beta, first.weight.sum(axis=0)),
            )
        )
    )


def _around(values: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """A grid of as many points as ``values``, over +-8 sd of the mass on them."""
    if len(values) == 1:
        return values
    mean = float(mass @ values)
    sd = max(float(np.sqrt(mass @ (values - mean) ** 2)), 2 * float(values[1] - values[0]))
    return np.linspace(mean - 8 * sd, mean + 8 * sd, len(values))
