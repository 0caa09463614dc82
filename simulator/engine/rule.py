"""The comparisons the one rule (``engine.verdicts``) is made of, on plain numbers: cash to the
cent, the cheapest with its tie (the first in the given order), the same over futures at once,
and how many job streams a confidence needs. Apart from the records so every room of the engine
(a result's own tables too) can call them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def cents(usd: float) -> float:
    """A cash figure as the rule compares it: to the cent."""
    return round(float(usd), 2)


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
