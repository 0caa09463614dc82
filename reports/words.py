"""Figures in words: money in the report's currency, shares, hours, the reference GPU's name
(shared by every part of the report that writes sentences)."""

from __future__ import annotations

import math

from tco.simulator.costs.money import Currency
from tco.simulator.engine.result import Result


def usd(x: float, cur: Currency) -> str:
    """A USD figure in the report's currency, whole units ('$1,234,567', 'EUR 1,061,728'), or
    'n/a'."""
    return "n/a" if math.isnan(x) else cur.text(x)


def pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{x:.0%}"


def hours(x: float) -> str:
    return f"{x:,.1f}"


def reference_label(result: Result) -> str:
    """'V100 SXM2 32GB' when every job class uses the same reference GPU."""
    refs = result.jobs.reference_gpus
    return refs[0] if len(refs) == 1 else "reference"


def more_or_less(x: float, cur: Currency) -> str:
    """A difference in words, never a negative amount: '$1,234 more', '$1,234 less', 'the
    same'."""
    if math.isnan(x):
        return "n/a"
    if abs(x) < 0.5:
        return "the same"
    return f"{cur.text(abs(x))} {'more' if x > 0 else 'less'}"


def share(p: float, se: float) -> str:
    """A share with its standard error ('84% ± 7%'; no error shown where it is 0: all or
    none)."""
    return f"{p:.0%}" if se <= 0 else f"{p:.0%} ± {se:.0%}"
