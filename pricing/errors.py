"""Errors of the pricing layer: one line each, saying what failed and what would be valid."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class PricingError(Exception):
    """A price or a catalog entry could not be given. The message is one line for the user."""


class UnknownPrice(PricingError):
    """The price is not known from this source (for example a Savings Plan rate in the snapshot)."""


def closest(name: str, valid: Iterable[str]) -> str:
    """' (did you mean X?)' for the nearest valid name, or '' when nothing is close."""
    match = difflib.get_close_matches(name, list(valid), n=1, cutoff=0.5)
    return f" (did you mean {match[0]!r}?)" if match else ""
