"""How the price of a new server of one GPU generation moves with the order date, fitted to the
dated new prices in ``pricing/data/new_price_history.csv`` (from the shared
``hardware/gpu_price_history.csv``, each row naming its row there; "new list" and "new street"
prices, no used or baseboard-only ones).

Rule: log price = a configuration's own level + a generation's slope x years, fitted by least
squares over the configurations priced at two dates or more (fixed effects: a DGX and a single
GPU are not compared with each other, only each with itself). A generation's slope is used when
at least two configurations were priced twice (Ampere: three; its slope is -2.0 % a year,
standard error 2.5 %); otherwise the price of a configuration is taken not to move (Hopper: one
configuration, 2023-09 to 2025-01, up 3.5 % a year with a standard error of 10 %; Volta: one,
and going up), and the answer says so. The data say new-channel prices move little while a
configuration is sold (A100 80GB: $17,500 in 2020, $17,499 in 2025); what falls is the price of
the *next* configuration, which the scenario names as another server.
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass
from datetime import date
from importlib import resources

from tco.pricing.used_market import SEGMENTS

MIN_CONFIGURATIONS = 2  # priced at two dates or more, for a generation's slope to be used


@dataclass(frozen=True)
class PriceTrend:
    """A generation's new-price slope (continuous, per year; 0 when not fitted), its standard
    error (None when not fitted) and what it rests on, in words."""

    segment: str
    per_year: float
    standard_error: float | None
    basis: str

    @property
    def decline_per_year(self) -> float:
        """The yearly fall of the price, 1 - exp(slope) (negative: a rise)."""
        return 1.0 - math.exp(self.per_year)


def _years(text: str) -> float:
    d = date.fromisoformat(text)
    return d.year + (d.timetuple().tm_yday - 1) / 365.25


@functools.cache
def _rows() -> tuple[tuple[str, str, float, float], ...]:
    path = resources.files("tco.pricing").joinpath("data", "new_price_history.csv")
    return tuple(
        (r["segment"], r["configuration"], _years(r["date"]), math.log(float(r["price_usd"])))
        for r in csv.DictReader(path.read_text("utf-8").splitlines())
    )


@functools.cache
def fit(segment: str) -> tuple[float, float, int, int] | None:
    """(slope, standard error, prices, configurations) of the fixed-effects fit, or None when
    no configuration of ``segment`` was priced twice."""
    groups: dict[str, list[tuple[float, float]]] = {}
    for s, config, t, y in _rows():
        if s == segment:
            groups.setdefault(config, []).append((t, y))
    groups = {k: v for k, v in groups.items() if len(v) >= 2}
    if not groups:
        return None
    centred = []
    for points in groups.values():
        mt = sum(t for t, _ in points) / len(points)
        my = sum(y for _, y in points) / len(points)
        centred += [(t - mt, y - my) for t, y in points]
    num = sum(t * y for t, y in centred)
    den = sum(t * t for t, _ in centred)
    slope = num / den
    n = len(centred)
    dof = n - len(groups) - 1
    resid = sum((y - slope * t) ** 2 for t, y in centred)
    se = math.sqrt(resid / dof / den) if dof > 0 else math.inf
    return slope, se, n, len(groups)


@functools.cache
def trend(gpu: str) -> PriceTrend:
    """The new-price trend a server of ``gpu`` is ordered at (see the module's rule)."""
    segment = SEGMENTS.get(gpu, "unknown")
    found = fit(segment)
    if found is None:
        return PriceTrend(
            segment, 0.0, None, f"no {segment} configuration priced twice: the price holds"
        )
    slope, se, n, configs = found
    if configs < MIN_CONFIGURATIONS:
        return PriceTrend(
            segment,
            0.0,
            None,
            f"one {segment} configuration priced twice ({slope:+.1%} a year, too few to fit):"
            " the price holds",
        )
    return PriceTrend(
        segment,
        slope,
        se,
        f"{segment} new prices {slope:+.1%} a year (standard error {se:.1%}), fitted on {n}"
        f" dated prices of {configs} configurations (gpu_price_history.csv)",
    )
