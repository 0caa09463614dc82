"""How sure an answer is: options over the futures of a nested design (``sweep.design``), each
judged in each future by the one rule (``engine.verdicts``).

In each future the *best choice* is the cheapest option that meets the service level there (the
cheapest of all when none does). For an option: the share of futures in which it is the best
choice, the share of job streams in which it meets the level, its mean cash and its P10/P50/P90,
and its *regret*: what it costs above the best choice in each future. Where it misses the level
in a future, it has not done the work on time there: its regret adds that late work (reference
GPU-hours of the jobs later than the level allows, or unable to run) priced at the best choice's
cash per delivered reference GPU-hour in that future, what doing it on time would have cost; a
miss is never a small regret only because the option is cheap. (In a future where no option
meets the level, regret is the cash gap alone.)

Standard errors follow the design: a share of job streams has K observations; a mean over the
K x M futures has the variance of a nested layout's grand mean (``design_se``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tco.simulator.engine.findings import FrontierPoint, OptionOdds
from tco.simulator.engine.verdicts import (
    best_per_future,
    cheapest_index,
    meets_with_confidence,
    rank_closest,
)
from tco.simulator.sweep.plays import Outcome
from tco.simulator.sweep.replication import Replication


def design_se(y: np.ndarray) -> float:
    """The standard error of the mean of a K x M nested layout (streams, each with M money
    draws of its own): the standard deviation of the K stream means over sqrt(K), which
    estimates Var(stream) / K + Var(money) / (K M); with one stream, the plain one."""
    y = np.asarray(y, dtype=np.float64)
    k, m = y.shape
    if k * m < 2:
        return 0.0
    if k == 1:
        return float(y.std(ddof=1) / math.sqrt(m))
    return float(y.mean(axis=1).std(ddof=1) / math.sqrt(k))


@dataclass(frozen=True)
class Futures:
    """Options over the futures as arrays, built once: the options' names and, future x option
    (a future is s x M + m), cash (USD), whether it meets the level there (a property of the job
    stream), late and delivered reference GPU-hours; each future's best choice by the rule."""

    names: list[str]
    k: int
    m: int
    cash: np.ndarray
    meets: np.ndarray
    late: np.ndarray
    delivered: np.ndarray
    best: np.ndarray

    @classmethod
    def build(
        cls,
        names: list[str],
        k: int,
        m: int,
        cash: np.ndarray,
        meets: np.ndarray,
        late: np.ndarray,
        delivered: np.ndarray,
    ) -> Futures:
        return cls(names, k, m, cash, meets, late, delivered, best_per_future(cash, meets))

    @classmethod
    def of(cls, reps: list[Replication]) -> Futures:
        """From a sweep's replications (every option on every future, in order)."""
        k = 1 + max(r.stream for r in reps)
        m = len(reps) // k
        cash = np.array([[o.cash_usd for o in r.options] for r in reps])
        meets = np.array([[o.meets_service_level for o in r.options] for r in reps])
        late = np.array([[o.late_work for o in r.options] for r in reps])
        delivered = np.array([[o.delivered_work for o in r.options] for r in reps])
        return cls.build([o.name for o in reps[0].options], k, m, cash, meets, late, delivered)

    @classmethod
    def of_outcomes(cls, table: Mapping[str, Sequence[Outcome]], m: int) -> Futures:
        """From outcomes per candidate, one per job stream in order (every candidate on every
        stream)."""
        names = list(table)
        k = len(next(iter(table.values())))

        def each(get: str) -> np.ndarray:
            cols = [np.repeat([getattr(o, get) for o in table[n]], m) for n in names]
            return np.stack(cols, axis=1)

        cash = np.stack([np.array([o.cash for o in table[n]]).ravel() for n in names], axis=1)
        return cls.build(
            names, k, m, cash, each("meets"), each("late_work"), each("delivered_work")
        )

    def shares(self) -> dict[str, float]:
        """Option -> share of futures in which it is the best choice."""
        return {n: float((self.best == i).mean()) for i, n in enumerate(self.names)}

    def meets_share(self, i: int) -> float:
        """Share of job streams in which option ``i`` meets the level."""
        return float(self.meets[:: self.m, i].mean())

    def regret(self) -> np.ndarray:
        """Future x option: the cash above the best choice's, a miss's late work priced at the
        best choice's cash per delivered reference GPU-hour there (see the module docstring)."""
        rows = np.arange(len(self.best))
        best_cash = self.cash[rows, self.best]
        done = self.delivered[rows, self.best]
        rate = np.where(done > 0, best_cash / np.where(done > 0, done, 1.0), 0.0)
        anyone = np.asarray(self.meets.any(axis=1))
        charge = np.where(~self.meets & anyone[:, None], self.late * rate[:, None], 0.0)
        out: np.ndarray = np.maximum(0.0, self.cash + charge - best_cash[:, None])
        return out

    def grid(self, values: np.ndarray) -> np.ndarray:
        """One option's per-future values as the K x M layout."""
        return np.asarray(values, dtype=np.float64).reshape(self.k, self.m)


def option_odds(f: Futures, name: str) -> OptionOdds:
    """What the futures say of one option (see the module docstring)."""
    i = f.names.index(name)
    mine = f.cash[:, i]
    regret = f.regret()[:, i]
    is_best = (f.best == i).astype(np.float64)
    p = float(is_best.mean())
    q = f.meets_share(i)
    p10, p50, p90 = np.percentile(mine, [10, 50, 90])
    return OptionOdds(
        option=name,
        probability_best=p,
        probability_best_se=design_se(f.grid(is_best)),
        probability_meets_level=q,
        cash_p10_usd=float(p10),
        cash_p50_usd=float(p50),
        cash_p90_usd=float(p90),
        regret_mean_usd=float(regret.mean()),
        regret_p90_usd=float(np.percentile(regret, 90)),
        probability_meets_level_se=math.sqrt(q * (1 - q) / f.k),
        cash_mean_usd=float(mine.mean()),
        cash_mean_se_usd=design_se(f.grid(mine)),
        streams=f.k,
    )


def robust_choice(f: Futures, confidence: float) -> int | None:
    """The rule over futures: among options meeting the level in at least ``confidence`` of the
    job streams, the least mean cash (to the cent; the first on a tie); None when none does."""
    means = f.cash.mean(axis=0)
    ok = [meets_with_confidence(f.meets_share(i), confidence) for i in range(len(f.names))]
    return cheapest_index(list(means), ok)


def closest(f: Futures) -> int:
    """When none meets the confidence: the option meeting the level in the most job streams
    (then the cheapest)."""
    means = f.cash.mean(axis=0)
    return min(range(len(f.names)), key=lambda i: rank_closest(-f.meets_share(i), means[i], i))


def frontier(f: Futures, levels: Sequence[float], words: dict[str, str]) -> list[FrontierPoint]:
    """At each confidence, what the rule picks among ``f``'s options (``words``: each in a
    sentence), its mean cash and its share of streams meeting the level."""
    out = []
    means = f.cash.mean(axis=0)
    for c in levels:
        i = robust_choice(f, c)
        if i is None:
            out.append(FrontierPoint(c, None, "", None, None))
        else:
            n = f.names[i]
            out.append(FrontierPoint(c, n, words.get(n, n), float(means[i]), f.meets_share(i)))
    return out
