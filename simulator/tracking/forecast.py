"""The rest of the horizon from where the actuals leave it, and the odds of landing over budget.

The workload's arrival rate is re-estimated from the months recorded: arrivals in a month are
Poisson around the plan's count times a multiplier ``m``; the plan is the prior, ``m`` ~
Gamma(a, a) (mean 1) with ``a`` the plan's arrivals of ``PRIOR_MONTHS`` months (the plan weighs as
that many months of records, an ASSUMPTION), so the posterior is Gamma(a + recorded jobs, a +
planned jobs of those months): conjugate, exact. The plan's option is replayed on its scenario
(the same seed, every job class's arrivals and a trace's arrival scale times ``m``) at the
posterior's 10th, 50th and 90th percentiles; the months after the recorded ones are added to the
cash spent so far, their billed categories (compute, commitments) at the bill's price per
GPU-hour over the plan's (``variance.price_ratio``), plus what a commitment the bill shows unused
wastes a month, until the horizon. The odds of landing over the budget are
the posterior's mass above the rate whose total is the budget (the three totals interpolated,
extended straight beyond them). Growth and seasonality are kept as planned: only the level is
re-estimated. The replay starts with an empty queue at the horizon's start, not with the queue
the recorded months left.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import gamma

from tco.pricing.book import PriceBook
from tco.simulator.advice.what_if import VOLUME  # the what-ifs' own rule for more work
from tco.simulator.core.errors import ScenarioError
from tco.simulator.costs.ledger import category
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.simulate import play_named, revised
from tco.simulator.tracking.variance import Tracked, price_ratio

PRIOR_MONTHS = 3.0
QUANTILES = (0.1, 0.5, 0.9)


@dataclass(frozen=True)
class Waste:
    """A commitment the bill shows unused: USD unused so far, a month on average, and to the
    horizon's end at that rate (FOCUS does not say when a commitment ends: the horizon bounds
    it)."""

    name: str
    so_far_usd: float
    per_month_usd: float
    to_end_usd: float


@dataclass(frozen=True)
class Forecast:
    rate: tuple[float, float, float]  # arrival multiplier at QUANTILES
    shape: float  # the posterior Gamma(shape, rate_param)
    rate_param: float
    price_ratio: float
    totals_usd: tuple[float, float, float]  # the horizon's cash at QUANTILES
    monthly_usd: np.ndarray  # actuals, then the median forecast
    budget_usd: float
    over_budget: float  # probability
    waste: tuple[Waste, ...]

    @property
    def total_usd(self) -> float:
        return self.totals_usd[1]


def posterior(t: Tracked) -> tuple[float, float]:
    """Gamma (shape, rate) of the arrival multiplier after the recorded months."""
    r = t.recorded
    planned = float(t.plan.jobs[:r].sum())
    seen = float(t.usage.jobs[:r].sum())
    per_month = planned / r if r else float(t.plan.jobs.mean())
    a = max(PRIOR_MONTHS * per_month, 1e-9)
    return a + seen, a + planned


def _scaled(m: float) -> Any:
    return lambda data: VOLUME.apply(data, m - 1.0)


def forecast(t: Tracked, base: Prepared, book: PriceBook, budget: float | None) -> Forecast:
    """The horizon's cash from ``t``'s actuals and ``base`` (the plan's scenario, prepared)
    replayed at the posterior's quantiles of the arrival rate."""
    shape, rate = posterior(t)
    low, mid, high = (float(gamma.ppf(q, shape, scale=1.0 / rate)) for q in QUANTILES)
    ms = (low, mid, high)
    ratio = price_ratio(t)
    r = t.recorded
    so_far = np.array([m.actual_cash_usd for m in t.months])
    waste = _waste(t)
    wasting = sum(w.per_month_usd for w in waste)  # an unused commitment is paid on
    futures = []
    for m in ms:
        try:
            prepared = revised(base, book, _scaled(m))
        except ScenarioError as exc:  # the scaled work does not fit (a limit)
            why = f"at {m:.2f}x the arrivals: {exc.message}"
            raise ScenarioError(exc.file, exc.field, why) from None
        cash = play_named(prepared, t.plan.option).ledger.cash
        month = sum(
            (v * (ratio if category(k).billed else 1.0) for k, v in cash.items()),
            np.zeros(len(t.plan.months)),
        )
        futures.append(np.concatenate([so_far, month[r:] + wasting]))
    totals = tuple(float(f.sum()) for f in futures)
    line = t.plan.total_usd if budget is None else budget
    return Forecast(
        ms, shape, rate, ratio, (totals[0], totals[1], totals[2]), futures[1], line,
        _over(ms, totals, line, shape, rate), waste,
    )  # fmt: skip


def _over(
    ms: tuple[float, ...], totals: tuple[float, ...], budget: float, shape: float, rate: float
) -> float:
    """P(total > budget): the rate whose total is the budget, from the totals at ``ms``
    (made non-decreasing, extended straight beyond the ends), and the posterior above it."""
    x, y = np.asarray(ms), np.maximum.accumulate(np.asarray(totals))
    if y[-1] - y[0] <= 1e-9:  # the cash does not move with the work (an owned cluster)
        return float(y[1] > budget)
    if budget <= y[0]:
        slope = (y[1] - y[0]) / max(x[1] - x[0], 1e-12)
        at = x[0] - (y[0] - budget) / slope if slope > 0 else 0.0
    elif budget >= y[-1]:
        slope = (y[-1] - y[-2]) / max(x[-1] - x[-2], 1e-12)
        at = x[-1] + (budget - y[-1]) / slope if slope > 0 else np.inf
    else:
        at = float(np.interp(budget, y, x))
    return float(gamma.sf(max(at, 0.0), shape, scale=1.0 / rate))


def _waste(t: Tracked) -> tuple[Waste, ...]:
    if t.bill is None or not t.recorded:
        return ()
    left = len(t.plan.months) - t.recorded
    out = []
    for name, usd in sorted(t.bill.unused.items()):
        so_far = float(usd[: t.recorded].sum())
        if so_far > 0:
            each = so_far / t.recorded
            out.append(Waste(name, so_far, each, each * left))
    return tuple(out)
