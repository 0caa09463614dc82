"""How sure an answer is: the recommendation replayed over futures drawn from the uncertain
inputs (``sweep.known``), every option on the same job stream in each future (common random
numbers), and judged there as it was judged today.

In each future the *best choice* is the cheapest option that meets the service level there (the
cheapest of all when none does). For the recommended option: the share of futures in which it is
the best choice (``probability_best``, with its standard error sqrt(p (1 - p) / n)), the share in
which it meets the level, its cash P10/P50/P90, and its *regret*: its cash above the best
choice's in each future (0 where it is the best, and where it is cheaper only by missing the
level: that shows in the share meeting it), mean and P90. The runner-up's regret is given
beside it, so a reader sees what choosing the other way would risk.

The answer follows the odds (:func:`followed`): the base run's choice is the cheapest option
meeting the level on one job stream, which can sit on the edge of the level (a mix sized to
meet it exactly); when another option is the best choice in more futures, by more than two
standard errors of the difference, that option is the recommendation, and the answer says why.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.engine.findings import Odds, OptionOdds, Recommendation
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.engine.verdicts import choose
from tco.simulator.sweep.known import inputs
from tco.simulator.sweep.replication import Replication
from tco.simulator.sweep.run import run_sweep


@dataclass(frozen=True)
class Futures:
    """The futures of a sweep as arrays, built once: the options' names, each future's cash by
    option (USD), whether each option meets the level there, and each future's best choice:
    the cheapest option meeting the level (the first listed on a tie), else the cheapest."""

    names: list[str]
    cash: np.ndarray  # future x option
    meets: np.ndarray  # future x option
    best: np.ndarray  # per future, an option's index

    @classmethod
    def of(cls, reps: list[Replication]) -> Futures:
        cash = np.array([[o.cash_usd for o in r.options] for r in reps])
        meets = np.array([[o.meets_service_level for o in r.options] for r in reps])
        judged = np.where(meets, cash, np.inf)
        none = ~meets.any(axis=1)
        judged[none] = cash[none]
        names = [o.name for o in reps[0].options]
        return cls(names, cash, meets, np.asarray(np.argmin(judged, axis=1)))

    def shares(self) -> dict[str, float]:
        """Option -> share of futures in which it is the best choice."""
        return {n: float((self.best == i).mean()) for i, n in enumerate(self.names)}


def option_odds(f: Futures, name: str) -> OptionOdds:
    """What the futures say of one option (see the module docstring)."""
    i = f.names.index(name)
    n = len(f.best)
    mine = f.cash[:, i]
    regret = np.maximum(0.0, mine - f.cash[np.arange(n), f.best])
    p = float((f.best == i).mean())
    p10, p50, p90 = np.percentile(mine, [10, 50, 90])
    return OptionOdds(
        option=name,
        probability_best=p,
        probability_best_se=math.sqrt(p * (1 - p) / n),
        probability_meets_level=float(f.meets[:, i].mean()),
        cash_p10_usd=float(p10),
        cash_p50_usd=float(p50),
        cash_p90_usd=float(p90),
        regret_mean_usd=float(regret.mean()),
        regret_p90_usd=float(np.percentile(regret, 90)),
    )


def odds_of(reps: list[Replication], chosen: str, runner_up: str | None) -> Odds:
    """The odds of ``chosen`` (and of ``runner_up``) over the futures ``reps``."""
    f = Futures.of(reps)
    return Odds(
        futures=len(reps),
        chosen=option_odds(f, chosen),
        runner_up=None if runner_up is None else option_odds(f, runner_up),
        best_shares={n: v for n, v in f.shares().items() if v > 0},
        inputs=(),
    )


def followed(odds: Odds, reps: list[Replication]) -> Odds:
    """The odds of the option the answer should be (see the module docstring), with the option
    it replaces (``replaced``; None: the base run's choice stands)."""
    n = odds.futures
    mine = odds.chosen.probability_best
    top = max(odds.best_shares, key=lambda k: (odds.best_shares[k], k == odds.chosen.option))
    p = odds.best_shares[top]
    # Two shares of one multinomial: var(p1 - p2) = (p1 + p2 - (p1 - p2)^2) / n.
    se = math.sqrt(max(0.0, p + mine - (p - mine) ** 2) / n)
    if top == odds.chosen.option or p - mine <= 2 * se:
        return odds
    f = Futures.of(reps)
    return replace(
        odds,
        chosen=option_odds(f, top),
        runner_up=option_odds(f, odds.chosen.option),
        replaced=odds.chosen.option,
    )


def recommendation_after(rec: Recommendation, odds: Odds, result: Result) -> Recommendation:
    """``rec`` with its odds, made the option the odds choose when they choose another."""
    if odds.replaced is None:
        return replace(rec, odds=odds)
    o = result.option(odds.chosen.option)
    c, old = odds.chosen, odds.runner_up
    assert old is not None
    reason = (
        f"the best choice (the cheapest that meets the service level) in"
        f" {round(c.probability_best * odds.futures):,} of {odds.futures:,} futures;"
        f" {old.option}, the cheapest that meets it on the base job stream, meets it in"
        f" {old.probability_meets_level:.0%} of them and is the best choice in"
        f" {old.probability_best:.0%}"
    )
    return replace(
        rec,
        option=o.name,
        cash_usd=o.total_cash_usd,
        npv_usd=o.npv_usd,
        reason=reason,
        closest=None,
        runner_up=old.option,
        odds=odds,
    )


def runner_up_of(result: Result, chosen: str) -> str | None:
    """The option the answer would be without ``chosen``: the cheapest other option meeting the
    level today (``engine.verdicts.choose``), else the cheapest other."""
    others = [o for o in result.options if o.name != chosen]
    if not others:
        return None
    return choose(others, result.verdicts).option or min(others, key=cash_of).name


def cash_of(o: OptionResult) -> float:
    return o.total_cash_usd


def draw_futures(
    prepared: Prepared,
    book: PriceBook,
    futures: int,
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    progress: Callable[[int], None] | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> list[Replication] | None:
    """``futures`` futures of ``prepared`` (which holds every option the answer may name, the
    best mix included), rooted at the scenario's seed; None when there is nothing uncertain or
    no future to draw. ``meanwhile`` runs in this process as the workers play them (the rest
    of the advice: the futures do not depend on it)."""
    if futures <= 0 or not inputs(prepared):
        if meanwhile is not None:
            meanwhile()
        return None
    seed = prepared.scenario.seed
    return run_sweep(prepared, book, futures, seed, workers, engine, scheduler, progress, meanwhile)


def answer_odds(prepared: Prepared, result: Result, reps: list[Replication] | None) -> Odds | None:
    """The odds of ``result``'s recommendation (its closest option when none meets the level)
    over the futures ``reps`` (``draw_futures``); None without futures."""
    rec = result.recommendation
    chosen = rec.option or rec.closest
    if reps is None or chosen is None:
        return None
    odds = odds_of(reps, chosen, runner_up_of(result, chosen))
    named = tuple((i.path, i.known is not None, i.source) for i in inputs(prepared))
    if rec.option is not None:  # no option meets the level today: nothing to follow
        odds = followed(odds, reps)
    return replace(odds, inputs=named)
