"""The rest of the horizon from where the actuals leave it, and the odds of landing over budget.

The workload's arrival level and growth are re-estimated from the months recorded
(``refit``: Poisson arrivals around the plan's, the plan as the prior). What moves the cash is the
volume still to come: the posterior of the plan's remaining arrivals, each month times its
multiplier, over the plan's (``Fit.future``). The plan's option is replayed on its scenario (the
same seed; a mix the search composed is made again from its parts, ``composing.rebuilt``) at
that volume's 10th, 50th and 90th percentiles, each shaped by the posterior mean growth: every
job class's arrivals and growth are set so the months left carry that volume (a trace's arrival
scale is scaled, its own shape kept). The months after the recorded ones are added to the cash
spent so far, their billed categories (compute, commitments) at the bill's price per GPU-hour
over the plan's (``variance.price_ratio``), plus what a commitment the bill shows unused wastes
a month, until the horizon. The odds of landing over the budget are the posterior's mass above
the volume whose total is the budget (the three totals interpolated, extended straight beyond
them). Seasonality is kept as planned. The replay plays the whole horizon again, so the queue at
the first month forecast is the replay's, not the one the recorded months left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.advice.composing import rebuilt
from tco.simulator.core.errors import ScenarioError
from tco.simulator.costs.ledger import before_tax, category
from tco.simulator.engine.metrics import Metrics
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.simulate import play_named, revised
from tco.simulator.tracking.refit import GROWTH_PRIOR_SD, Fit, fit, weighted_quantiles
from tco.simulator.tracking.variance import Tracked, price_ratio

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
    rate: tuple[float, float, float]  # the future volume over the plan's, at QUANTILES
    growth: tuple[float, float, float]  # growth a month over the plan's, at QUANTILES
    growth_sd: float  # the growth's prior (0: held at the plan's, a trace's shape)
    price_ratio: float
    totals_usd: tuple[float, float, float]  # the horizon's cash at QUANTILES
    monthly_usd: np.ndarray  # actuals, then the median forecast
    budget_usd: float
    over_budget: float  # probability
    waste: tuple[Waste, ...]
    # Actuals, then the forecast at each of QUANTILES (the fan a chart draws; [1] is monthly_usd).
    monthly_fan_usd: tuple[np.ndarray, ...] = ()
    # The replay's service figures at each of QUANTILES, hours: "p95_delay", "p95_wait" and
    # "CLASS.p95_delay" for each job class (``service_of``).
    service_h: dict[str, tuple[float, ...]] = field(default_factory=dict)

    @property
    def total_usd(self) -> float:
        return self.totals_usd[1]


def refitted(t: Tracked, base: Prepared) -> Fit:
    """The arrival level and growth after ``t``'s recorded months (growth held on a trace)."""
    sd = 0.0 if base.scenario.workload.trace is not None else GROWTH_PRIOR_SD
    return fit(t.plan.jobs, t.usage.jobs, t.recorded, growth_sd=sd)


def _shaped(volume: float, f: Fit, t: Tracked) -> Any:
    """The scenario change that gives the months left ``volume`` times the plan's arrivals,
    growing by the posterior mean growth over the plan's: month i's multiplier is
    exp(alpha + beta (i - centre)), i.e. each class's arrivals times exp(alpha - beta centre)
    and its growth factor times exp(beta)."""
    beta = f.mean_growth()
    alpha = f.level_for(volume, t.plan.jobs, t.recorded)

    def change(data: dict[str, Any]) -> None:
        w = data["workload"]
        for c in w["job_classes"]:
            c["arrivals_per_month"] *= float(np.exp(alpha - beta * f.centre))
            c["growth_per_month"] = (1.0 + c["growth_per_month"]) * float(np.exp(beta)) - 1.0
        if w.get("trace") is not None:  # its growth is held (beta = 0)
            w["trace"]["scale_arrivals"] *= float(np.exp(alpha))

    return change


def _plan_option(t: Tracked, base: Prepared) -> dict[str, Any] | None:
    """The plan's option to add to the scenario when it is a mix the search composed (made
    again from its parts, as the summary keeps them); None for a listed option."""
    if any(o.name == t.plan.option for o in base.scenario.options):
        return None
    p = t.plan
    made = rebuilt(base.scenario.options, p.option, p.mix_parts, p.mix_wait_h)
    if made is None:
        raise ScenarioError(
            p.folder,
            "--option",
            f"{p.option!r} is a mix whose parts the plan's scenario no"
            " longer lists; track one of its parts with --option, or plan again",
        )
    return made.model_dump()


def _with(option: dict[str, Any] | None, change: Any) -> Any:
    """``change``, and ``option`` added to the scenario's options (None: nothing added)."""
    if option is None:
        return change

    def added(data: dict[str, Any]) -> None:
        change(data)
        data["options"].append(option)

    return added


def forecast(t: Tracked, base: Prepared, book: PriceBook, budget: float | None) -> Forecast:
    """The horizon's cash from ``t``'s actuals and ``base`` (the plan's scenario, prepared)
    replayed at the posterior's quantiles of the arrival rate."""
    f = refitted(t, base)
    volume = f.future(t.plan.jobs, t.recorded)
    low, mid, high = weighted_quantiles(volume, f.weight, QUANTILES)
    ms = (low, mid, high)
    ratio = price_ratio(t)
    r = t.recorded
    so_far = np.array([m.actual_cash_usd for m in t.months])
    waste = _waste(t)
    wasting = sum(w.per_month_usd for w in waste)  # an unused commitment is paid on
    futures = []
    service: list[dict[str, float]] = []
    mix = _plan_option(t, base)  # made once, added to each replay
    for m in ms:
        try:
            prepared = revised(base, book, _with(mix, _shaped(m, f, t)))
        except ScenarioError as exc:  # the scaled work does not fit (a limit)
            why = f"at {m:.2f}x the arrivals to come: {exc.message}"
            raise ScenarioError(exc.file, exc.field, why) from None
        played = play_named(prepared, t.plan.option)
        service.append(service_of(played.metrics))
        cash = before_tax(played.ledger.cash)
        month = sum(
            (v * (ratio if category(k).billed else 1.0) for k, v in cash.items()),
            np.zeros(len(t.plan.months)),
        )
        futures.append(np.concatenate([so_far, month[r:] + wasting]))
    totals = tuple(float(f.sum()) for f in futures)
    line = t.plan.total_usd if budget is None else budget
    g = f.growth_quantiles(QUANTILES)
    return Forecast(
        ms,
        (g[0], g[1], g[2]),
        f.growth_sd,
        ratio,
        (totals[0], totals[1], totals[2]),
        futures[1],
        line,
        _over(ms, totals, line, volume, f.weight),
        waste,
        tuple(futures),
        {k: tuple(s[k] for s in service) for k in service[0]},
    )


def service_of(m: Metrics) -> dict[str, float]:
    """The service figures a gate may hold a forecast to, by name (hours): the p95 delay
    (arrival to finish, what the service level judges) and wait (arrival to start) over the
    horizon, and each job class's p95 delay."""
    out = {"p95_delay": m.delays.p95_h, "p95_wait": m.waits.p95_h}
    out.update({f"{k}.p95_delay": v for k, v in m.class_p95_delay_h.items()})
    return out


def _over(
    ms: tuple[float, ...],
    totals: tuple[float, ...],
    budget: float,
    volume: np.ndarray,
    weight: np.ndarray,
) -> float:
    """P(total > budget): the volume whose total is the budget, from the totals at ``ms``
    (made non-decreasing, extended straight beyond the ends), and the posterior above it."""
    x, y = np.asarray(ms), np.maximum.accumulate(np.asarray(totals))
    if y[-1] - y[0] <= 1e-9:  # the cash does not move with the work (an owned cluster)
        # A total equal to the budget to the cent is not over it (the plan's monthly figures
        # are written to the cent: their sum may differ from its total by a few).
        return float(y[1] > budget + max(0.05, 1e-9 * abs(budget)))
    if budget <= y[0]:
        slope = (y[1] - y[0]) / max(x[1] - x[0], 1e-12)
        at = x[0] - (y[0] - budget) / slope if slope > 0 else 0.0
    elif budget >= y[-1]:
        slope = (y[-1] - y[-2]) / max(x[-1] - x[-2], 1e-12)
        at = x[-1] + (budget - y[-1]) / slope if slope > 0 else np.inf
    else:
        at = float(np.interp(budget, y, x))
    return float(weight[volume > max(at, 0.0)].sum())


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
