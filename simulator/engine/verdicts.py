"""The one rule of the answer, written once: whether an option meets the service level, which of
several is the cheapest that meets it, and how ties fall.

- *Meets* on one job stream: the level's measures (``ServiceLevel.misses``) on that stream's
  figures. Over futures: met in at least ``confidence`` of the job streams
  (:func:`meets_with_confidence`), the base stream being one of them; with no futures drawn, the
  base stream alone, so the two rules agree there.
- *Cheapest*: the least cash (USD over the horizon; over futures, the mean), compared to the
  cent; a tie goes to the first in the given order (the scenario's order of options, then the
  mixes in the order the search found them). :func:`cheapest_index` and its array form
  :func:`best_per_future` are the same rule.
- *The answer* among options is the cheapest that meets the level; when none does, the closest
  (the smallest excess over the level's limits, then the cheapest).

The answer, the odds, the portfolio search, the optimiser, the sweeps, the what-ifs, the
sensitivity and the reports all call these functions rather than comparing for themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tco.simulator.engine.findings import Recommendation, Resize, Standing, Verdict
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.engine.rule import (
    best_per_future,
    by_cash,
    cents,
    cheapest_index,
    cheapest_of,
    meets_with_confidence,
    needed,
    rank,
    rank_closest,
)
from tco.simulator.kinds.runs import REASON_MEMORY, REASON_SIZE
from tco.simulator.scenario.service_level import CANNOT_RUN, ServiceLevel

__all__ = [
    "answer",
    "best_per_future",
    "by_cash",
    "cents",
    "cheapest_index",
    "cheapest_of",
    "choose",
    "meets",
    "meets_with_confidence",
    "miss_word",
    "needed",
    "rank",
    "rank_closest",
    "standing",
    "verdict",
]


def verdict(level: ServiceLevel, o: OptionResult) -> Verdict:
    """Whether ``o`` meets ``level`` on its job stream, why not, and how far it is (for the
    closest)."""
    reasons = o.metrics.misses(level)
    over_wait = level.shortfall(o.waits.p95_h, o.metrics.delays.p95_h)
    over_work = max(0.0, o.work.cannot_run_share - level.max_cannot_run_share)
    over_work += max(0.0, o.work.overdue_share - level.max_unfinished_share)
    return Verdict(o.name, not reasons, tuple(reasons), over_wait + 10.0 * over_work)


def choose(
    options: Sequence[OptionResult],
    verdicts: Mapping[str, Verdict],
    resizes: tuple[Resize, ...] = (),
) -> Recommendation:
    """The cheapest option (cash over the horizon) that meets the level, or the closest."""
    meeting = [o for o in options if verdicts[o.name].meets]
    best = cheapest_of(options, lambda o: o.total_cash_usd, lambda o: verdicts[o.name].meets)
    if best is not None:
        return Recommendation(
            option=best.name,
            cash_usd=best.total_cash_usd,
            npv_usd=best.npv_usd,
            reason=(
                f"the cheapest of the {len(meeting)} options that meet the service level"
                if len(meeting) > 1
                else "the only option that meets the service level"
            ),
            closest=None,
            resizes=resizes,
        )
    closest = min(options, key=lambda o: rank_closest(verdicts[o.name].shortfall, o.total_cash_usd))
    return Recommendation(
        option=None,
        cash_usd=None,
        npv_usd=None,
        reason="no option meets the service level: "
        + "; ".join(f"{v.option}: {', '.join(v.reasons)}" for v in verdicts.values()),
        closest=closest.name,
        resizes=resizes,
    )


def standing(result: Result, name: str) -> Standing:
    """Option ``name`` as the rule judged it: over the futures when the run's advice decided
    over them, else on the base job stream (its verdict and cash there)."""
    return result.standing(name)


def meets(result: Result, name: str) -> bool:
    """Whether the rule holds option ``name`` to meet the level (``standing``)."""
    return standing(result, name).meets


# A can't-run named by what stops the jobs, when one thing stops them all.
_CANNOT_RUN_WORDS = {REASON_MEMORY: "memory", REASON_SIZE: "capacity"}


def miss_word(result: Result, name: str) -> str:
    """Why the rule holds option ``name`` to miss the level, in a word ('' when it meets it):
    the first reason on the base job stream (delay, wait, overdue, can't run: memory or
    capacity when that alone stops its jobs), or "odds" when it meets the level there but not
    in enough of the futures."""
    if meets(result, name):
        return ""
    reasons = result.verdicts[name].reasons
    if not reasons:
        return "odds"
    word = reasons[0].word
    if word == CANNOT_RUN:  # the reasons its metrics counted, by their codes
        o = result.option(name)
        codes = [c for c, text in o.runs.reason_text.items() if o.metrics.cannot_run.get(text)]
        if len(codes) == 1:
            word = _CANNOT_RUN_WORDS.get(codes[0], word)
    return word


def answer(
    result: Result,
    shift: Mapping[str, float] | None = None,
    also_meets: Mapping[str, bool] | None = None,
    among: Sequence[str] | None = None,
) -> str | None:
    """The option the rule picks among the result's options (``among``: these only), each as
    it stands (``standing``) with its cash moved by ``shift`` (a change measured on the base
    job stream: a what-if, a price group's swing) and, where ``also_meets`` says so, required
    to meet the level under that change too; None when none meets."""
    names = [o.name for o in result.options if among is None or o.name in among]
    cash = [standing(result, n).cash_usd + (shift or {}).get(n, 0.0) for n in names]
    ok = [
        standing(result, n).meets and (also_meets is None or also_meets.get(n, True)) for n in names
    ]
    i = cheapest_index(cash, ok)
    return None if i is None else names[i]
