"""What a sweep says: each option's spread of cost, how often it is the cheapest and how often it
meets the service level, and which uncertain inputs drive the answer.

Quantiles are numpy's linear interpolation of the replications' totals. "Cheapest" is per
replication, ties to the option listed first, so the probabilities sum to 1. Drivers are Spearman
rank correlations (Pearson on average ranks) between each numeric input and each option's total,
and with the lead of the most often cheapest option over the next.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tco.simulator.sweep.replication import Replication

SCHEMA_ID = "tco-sweep/1"


@dataclass(frozen=True)
class OptionSpread:
    name: str
    cash_usd: dict[str, float]  # p10, p50, p90, mean
    npv_usd: dict[str, float]
    probability_cheapest: float
    probability_meets_service_level: float


@dataclass(frozen=True)
class Driver:
    """Rank correlation of one input with an option's total (or with the lead)."""

    input: str
    against: str
    spearman: float


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
    cheapest = np.argmin(stacked, axis=0)  # first listed wins a tie
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
            )
        )
    return out


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    rx, ry = pd.Series(x).rank().to_numpy(), pd.Series(y).rank().to_numpy()
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


def drivers(reps: list[Replication]) -> list[Driver]:
    """Every numeric input against every option's total and against the lead, strongest first."""
    cash = totals(reps)
    ranked = sorted(spreads(reps), key=lambda s: -s.probability_cheapest)
    targets = dict(cash)
    if len(ranked) > 1:
        first, second = ranked[0].name, ranked[1].name
        targets[f"lead of {first} over {second}"] = cash[second] - cash[first]
    out = []
    for path in reps[0].inputs:
        values = [r.inputs[path] for r in reps]
        if not all(isinstance(v, int | float) for v in values):
            continue
        x = np.array(values, dtype=float)
        out += [Driver(path, name, _spearman(x, y)) for name, y in targets.items()]
    return sorted(out, key=lambda d: (-abs(d.spearman), d.input, d.against))
