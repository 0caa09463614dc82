"""How market rental prices move over a horizon: the volatility of a GPU-hour's rental price,
fitted to dated prices (``pricing/data/rental_price_history.csv``, each row naming its source).

Model: in each future a rental price is its forward curve (today's price, or the scenario's
stated curve) times ``exp(sigma W(t) - sigma^2 t / 2)``, ``W`` a standard Brownian motion and
``t`` in years: a geometric Brownian motion whose mean is the forward curve (a forward is the
price expected, with no risk premium assumed), its log spreading as ``sigma sqrt(t)``.

Fit: the log change between consecutive points of one series over ``dt`` years is taken as
``N(0, sigma^2 dt)``; ``sigma`` by maximum likelihood, ``sqrt(mean(x^2 / dt))``, per GPU
architecture where a series exists, and pooled over every series for an architecture without
one (said where it is used). The drift is not fitted: the H100 series holds two changes of
opposite sign (-43 % in the year to 2025-10, +38 % in the five months after), and two changes
cannot fit a drift and a volatility both; the forward curve carries any trend the user states.

``leave_one_out`` refits without each change and says where the held-out change falls in the
refitted spread (its z score, and whether it lies in the 80 % band that P10-P90 shows).

Not used, and why (docs/MODEL.md): the 2023 peak ($7-12+, a range without a month); the
marketplace percentiles of ``tugot17/gpu-price-tracker`` (four weeks, 2025-10-19 to 2025-11-16:
their day-to-day changes are the changing mix of offers, 0.13-2.7 a year annualised, not a
price's path); AWS's list prices, which move in announced steps (p5 on-demand -44 % on
2025-06-01), not as a market does.
"""

from __future__ import annotations

import csv
import functools
import itertools
import math
from dataclasses import dataclass
from importlib import resources

from tco.pricing import hardware

BAND_Z = 1.2816  # the 80 % band: P10 to P90 of a normal


@dataclass(frozen=True)
class Change:
    """The log change of one series between two consecutive dated prices."""

    series: str
    gpu: str
    architecture: str
    start: str  # YYYY-MM
    end: str
    years: float
    log_change: float
    source: str


@dataclass(frozen=True)
class Held:
    """One change left out of the fit: the volatility of the others, and where it falls."""

    change: Change
    volatility_per_year: float
    z: float  # the held-out change over sigma sqrt(dt)

    @property
    def in_band(self) -> bool:
        """Whether the held-out change lies in the refitted P10-P90 band."""
        return abs(self.z) <= BAND_Z


@dataclass(frozen=True)
class Fit:
    """Each architecture's fitted volatility a year, and the pooled one for the rest."""

    changes: tuple[Change, ...]
    by_architecture: dict[str, float]
    pooled: float

    def volatility(self, gpu: str) -> tuple[float, str]:
        """The volatility a year of ``gpu``'s rental price and what it rests on."""
        arch = _architecture(gpu)
        n = sum(c.architecture == arch for c in self.changes)
        if arch in self.by_architecture:
            return self.by_architecture[arch], f"fitted on {n} dated {arch} rental price changes"
        series = sorted({c.gpu for c in self.changes})
        return self.pooled, (
            f"no dated {arch or gpu} rental prices: the fit on {', '.join(series)}"
            f" ({len(self.changes)} changes) is used"
        )


def _architecture(gpu: str) -> str:
    model = hardware.gpus().get(gpu)
    return model.architecture if model is not None else ""


def _months(month: str) -> int:
    y, m = month.split("-")
    return int(y) * 12 + int(m) - 1


def changes(rows: list[dict[str, str]] | None = None) -> tuple[Change, ...]:
    """Consecutive changes of every series in the rows (the shipped history by default)."""
    if rows is None:
        rows = history()
    out: list[Change] = []
    by_series: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        by_series.setdefault(r["series"], []).append(r)
    for name, points in sorted(by_series.items()):
        points = sorted(points, key=lambda r: _months(r["month"]))
        for a, b in itertools.pairwise(points):
            years = (_months(b["month"]) - _months(a["month"])) / 12.0
            x = math.log(float(b["usd_per_gpu_hour"]) / float(a["usd_per_gpu_hour"]))
            arch = _architecture(b["gpu"])
            out.append(Change(name, b["gpu"], arch, a["month"], b["month"], years, x, b["source"]))
    return tuple(out)


def volatility(found: tuple[Change, ...]) -> float:
    """The maximum-likelihood volatility a year of zero-drift changes: sqrt(mean(x^2 / dt))."""
    if not found:
        raise ValueError("no rental price changes to fit")
    return math.sqrt(sum(c.log_change**2 / c.years for c in found) / len(found))


def fit(found: tuple[Change, ...]) -> Fit:
    """The fit of ``found``: per architecture, and pooled."""
    archs = sorted({c.architecture for c in found})
    by = {a: volatility(tuple(c for c in found if c.architecture == a)) for a in archs}
    return Fit(found, by, volatility(found))


def leave_one_out(found: tuple[Change, ...]) -> list[Held]:
    """Each change held out of a fit of the others (pooled: every change shares one sigma)."""
    out = []
    for i, c in enumerate(found):
        sigma = volatility(found[:i] + found[i + 1 :])
        out.append(Held(c, sigma, c.log_change / (sigma * math.sqrt(c.years))))
    return out


def history() -> list[dict[str, str]]:
    """The shipped dated rental prices."""
    path = resources.files("tco.pricing").joinpath("data", "rental_price_history.csv")
    return list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))


@functools.cache
def fitted() -> Fit:
    """The fit of the shipped history (once per process)."""
    return fit(changes())
