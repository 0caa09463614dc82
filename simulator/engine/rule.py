"""The comparisons the one rule (``engine.verdicts``) is made of, on plain numbers: cash to the
cent, the cheapest with its tie (the first in the given order), the same over futures at once,
and how many job streams a confidence needs. Apart from the records so every room of the engine
(a result's own tables too) can call them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def cents(usd: float) -> float:
    """A cash figure as the rule compares it: to the cent."""
    return round(float(usd), 2)


def rank(meets: bool, cash_usd: float, tie: Any = 0) -> tuple[bool, float, Any]:
    """How the rule orders candidates (smallest first): those meeting the level, then the least
    cash to the cent, then ``tie``, which each caller states (the scenario's order, the least
    late, a key's text)."""
    return (not meets, cents(cash_usd), tie)


def rank_closest(shortfall: float, cash_usd: float, tie: Any = 0) -> tuple[float, float, Any]:
    """How the rule orders candidates when none meets the level (smallest first): the least
    shortfall (an excess over the limits, or minus the share of job streams met), then the least
    cash to the cent, then ``tie``."""
    return (shortfall, cents(cash_usd), tie)


def by_cash(items: Iterable[T], cash: Callable[[T], float]) -> list[T]:
    """``items`` cheapest first as the rule compares cash (to the cent), a tie in the given
    order: the order every table and list of options is shown in."""
    return sorted(items, key=lambda x: cents(cash(x)))


def cheapest_index(cash: Sequence[float], meets: Sequence[bool] | None = None) -> int | None:
    """The index of the least cash (to the cent; the first on a tie) among those that meet
    (``meets`` None: among all); None when none meets."""
    best: int | None = None
    for i, c in enumerate(cash):
        if meets is not None and not meets[i]:
            continue
        if best is None or cents(c) < cents(cash[best]):
            best = i
    return best


def cheapest_of(
    items: Sequence[T], cash: Callable[[T], float], meets: Callable[[T], bool]
) -> T | None:
    """The item the rule picks among ``items`` (their cash and whether each meets)."""
    i = cheapest_index([cash(x) for x in items], [meets(x) for x in items])
    return None if i is None else items[i]


def best_per_future(cash: np.ndarray, meets: np.ndarray) -> np.ndarray:
    """The rule over futures at once: for each row (a future) of ``cash`` and ``meets`` (future
    x option), the index of the cheapest option meeting the level there (to the cent, the first
    on a tie), or of the cheapest of all when none does."""
    rounded = np.round(np.asarray(cash, dtype=np.float64), 2)
    judged = np.where(meets, rounded, np.inf)
    none = ~np.asarray(meets).any(axis=1)
    judged[none] = rounded[none]
    return np.asarray(np.argmin(judged, axis=1))


def meets_with_confidence(share: float, confidence: float) -> bool:
    """Whether a share of futures meeting the level meets a confidence (a share is a count over
    a number of streams: compared with a tolerance far below one stream)."""
    return share >= confidence - 1e-9


def needed(streams: int, confidence: float) -> int:
    """How many of ``streams`` job streams must meet the level for ``confidence``."""
    return max(1, int(np.ceil(confidence * streams - 1e-9)))
