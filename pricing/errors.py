"""Errors of the pricing layer: one line each, saying what failed and what would be valid."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable


class PricingError(Exception):
    """A price or a catalog entry could not be given. The message is one line for the user."""


class UnknownPrice(PricingError):
    """The price is not known from this source (for example a Savings Plan rate in the snapshot)."""


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def closest(name: str, valid: Iterable[str]) -> str:
    """' (did you mean X?)' for the nearest valid names, or '' when nothing is close.

    Names that contain every word and number of ``name`` come first ('V100' -> the V100 models,
    not 'H100 SXM', which is closer letter by letter); otherwise the closest by characters.
    """
    names = list(valid)
    words = _words(name)
    match = [v for v in names if words and words <= _words(v)][:3]
    if not match:
        match = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    if not match:
        return ""
    return f" (did you mean {' or '.join(repr(m) for m in match)}?)"
