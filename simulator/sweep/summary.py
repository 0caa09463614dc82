"""What a sweep says: which option is the best choice how often (the cheapest that meets the
service level in a future, ``sweep.odds``), each option's spread of cost and regret, and which
uncertain inputs move the choice.

Quantiles are numpy's linear interpolation of the replications' totals. "Cheapest" and "best"
are per replication, ties to the option listed first, so each set of probabilities sums to 1.
*Choice drivers*: for each numeric input, the share of futures in which the most often best option
is best when the input is in the lowest third of its draws and when it is in the highest third;
ranked by the gap between the two. Drivers of cost are Spearman rank correlations (Pearson on
average ranks) between each numeric input and each option's total, and with the lead of the most
often best option over the next.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tco.simulator.engine.verdicts import best_per_future
from tco.simulator.sweep.odds import Futures, option_odds
from tco.simulator.sweep.replication import Replication

SCHEMA_ID = "tco-sweep/1"


@dataclass(frozen=True)
class OptionSpread:
    name: str
    cash_usd: dict[str, float]  # p10, p50, p90, mean
    npv_usd: dict[str, float]
    probability_cheapest: float
    probability_meets_service_level: float
    probability_best: float  # the cheapest that meets the level in a future


@dataclass(frozen=True)
class Driver:
    """Rank correlation of one input with an option's total (or with the lead)."""

    input: str
    against: str
    spearman: float


@dataclass(frozen=True)
class ChoiceDriver:
    """How one input's range moves the choice: the share of futures in which ``chosen`` is the
    best choice when the input is at most ``low_value`` (its lowest third of draws) and when it
    is at least ``high_value`` (its highest third)."""

    input: str
    chosen: str
    low_value: float
    high_value: float
    probability_low: float
    probability_high: float


@dataclass(frozen=True)
class Regret:
    """An option's regret over the futures: its cash minus the best choice's (USD)."""

    name: str
    probability_best: float
    mean_usd: float
    p90_usd: float


def _stats(values: np.ndarray) -> dict[str, float]:
    p10, p50, p90 = np.percentile(values, [10, 50, 90])
    return {"p10": float(p10), "p50": float(p50), "p90": float(p90), "mean": float(values.mean())}


def totals(reps: list[Replication]) -> dict[str, np.ndarray]:
    """Option -> its total cash in each replication (in replication order)."""
    names = [o.name for o in reps[0].options]
    return {n: np.array([r.options[i].cash_usd for r in reps]) for i, n in enumerate(names)}


def spreads(reps: list[Replication]) -> list[OptionSpread]:
    cash = totals(reps)
    names = list(cash)
    stacked = np.vstack([cash[n] for n in names])
    cheapest = best_per_future(stacked.T, np.ones(stacked.T.shape, bool))  # the one rule
    best = Futures.of(reps).best
    out = []
    for i, n in enumerate(names):
        npvs = np.array([r.options[i].npv_usd for r in reps])
        meets = np.array([r.options[i].meets_service_level for r in reps])
        out.append(
            OptionSpread(
                name=n,
                cash_usd=_stats(cash[n]),
                npv_usd=_stats(npvs),
                probability_cheapest=float((cheapest == i).mean()),
                probability_meets_service_level=float(meets.mean()),
                probability_best=float((best == i).mean()),
            )
        )
    return out


def input_paths(reps: list[Replication]) -> list[str]:
    """Every input drawn in some future, in the order first drawn (the base job stream's
    futures draw no play input: their inputs are as written)."""
    return list(dict.fromkeys(p for r in reps for p in r.inputs))


def numeric_inputs(reps: list[Replication]) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Each numeric input's draws and the futures that drew it (a choice of words is left
    out): (path, values, mask over the replications)."""
    out = []
    for path in input_paths(reps):
        has = np.array([path in r.inputs for r in reps])
        values = [r.inputs[path] for r in reps if path in r.inputs]
        if all(isinstance(v, int | float) for v in values):
            out.append((path, np.array(values, dtype=float), has))
    return out


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    rx, ry = pd.Series(x).rank().to_numpy(), pd.Series(y).rank().to_numpy()
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


def drivers(reps: list[Replication]) -> list[Driver]:
    """Every numeric input against every option's total and against the lead, strongest first."""
    cash = totals(reps)
    shares = best_shares(reps)
    ranked = sorted(shares, key=lambda n: -shares[n])
    targets = dict(cash)
    if len(ranked) > 1:
        first, second = ranked[0], ranked[1]
        targets[f"lead of {first} over {second}"] = cash[second] - cash[first]
    out = []
    for path, x, has in numeric_inputs(reps):
        out += [Driver(path, name, _spearman(x, y[has])) for name, y in targets.items()]
    return sorted(out, key=lambda d: (-abs(d.spearman), d.input, d.against))


def best_shares(reps: list[Replication]) -> dict[str, float]:
    """Option -> share of futures in which it is the best choice."""
    return Futures.of(reps).shares()


def headline(reps: list[Replication]) -> tuple[str, int]:
    """The option most often the best choice (the first listed on a tie) and in how many
    futures."""
    shares = best_shares(reps)
    name = max(shares, key=lambda n: shares[n])
    return name, round(shares[name] * len(reps))


def regrets(reps: list[Replication]) -> list[Regret]:
    """Every option's regret, least first."""
    f = Futures.of(reps)
    out = []
    for n in f.names:
        o = option_odds(f, n)
        out.append(Regret(n, o.probability_best, o.regret_mean_usd, o.regret_p90_usd))
    return sorted(out, key=lambda r: (r.mean_usd, r.name))


def choice_drivers(reps: list[Replication]) -> list[ChoiceDriver]:
    """For each numeric input, the most often best option's share of futures in the input's
    lowest and highest third of draws; the largest gap first."""
    chosen, _ = headline(reps)
    names = [o.name for o in reps[0].options]
    is_best = Futures.of(reps).best == names.index(chosen)
    out = []
    for path, x, has in numeric_inputs(reps):
        low, high = np.percentile(x, [100 / 3, 200 / 3])
        lo, hi = x <= low, x >= high
        if not lo.any() or not hi.any() or low == high:
            continue
        mine = is_best[has]
        out.append(
            ChoiceDriver(
                path,
                chosen,
                float(low),
                float(high),
                float(mine[lo].mean()),
                float(mine[hi].mean()),
            )
        )
    return sorted(out, key=lambda d: (-abs(d.probability_high - d.probability_low), d.input))
