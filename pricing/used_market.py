"""What a GPU server fetches on the used market, per GPU generation, fitted to every dated price.

Model: a server held ``t`` years sells for ``exp(-k t)`` of its price, with a decay rate ``k`` per
*segment* (a data-centre generation, or GeForce cards). Each observation in
``pricing/data/used_market.csv`` (derived from the shared ``hardware/gpu_price_history.csv`` and
``costs.md`` section 5, each row naming its rows there) is a range of ages and a range of used over
new price, so a range of rates: a single figure is a point, a wide one ("$4,000-18,000 by config")
an interval the true rate lies in, never dropped as too wide.

The fit is Bayesian on ``ln k``, on a grid (deterministic, no sampler):

- prior: Epoch AI's long-run 0.14 orders of magnitude a year (k 0.322; Cottier et al., arXiv
  2405.21015), one standard deviation a factor of 2 (``PRIOR_SPREAD``, an ASSUMPTION: Hopper's
  scarcity held it at half the trend);
- each observation: its rate interval seen through noise of ``sigma / sqrt(weight)`` in ``ln k``
  (interval-censored normal). The weight is its confidence (``CONFIDENCE_WEIGHTS``: a primary
  dataset 1, a secondary page 0.5, a model's curve 0.25, marketing or unverified 0.1, an
  ASSUMPTION of the order, stated), shared among the rows of one ``group`` (a table's ages, or
  pairs that end at one used price, are one observation, not four);
- ``sigma`` is estimated from the data (empirical Bayes: the value that makes all segments'
  observations most likely together).

A segment's rate is ``exp`` of its posterior mean of ``ln k``; its band, the 5-95 % range a new
observation of primary quality would fall in (posterior and noise), is what the odds draw.
Segments without an observation (Blackwell, Ada and Turing data-centre cards, AMD) decay at
Epoch's rate, banded by the slowest and fastest fitted data-centre generations.
``leave_one_out`` refits without each group and says how far off its prediction lands.
"""

from __future__ import annotations

import csv
import functools
import math
from collections import Counter
from dataclasses import dataclass
from importlib import resources

import numpy as np

EPOCH_DECAY_PER_YEAR = 0.14 * math.log(10)  # 0.14 OOM/yr as a continuous rate (0.322)
PRIOR_SPREAD = math.log(2)  # one SD of a generation's ln k around Epoch's (ASSUMPTION)
CONFIDENCE_WEIGHTS = {"primary": 1.0, "secondary": 0.5, "model": 0.25, "low": 0.1}  # ASSUMPTION
BAND_Z = 1.6449  # the band is the 5-95 % range
# ln k from 0.005 to 3 a year: a generation keeping 99.5 % a year to one losing 95 %.
_GRID = np.linspace(math.log(0.005), math.log(3.0), 3001)
SIGMA_BOUNDS = (0.05, 1.5)

# Catalog GPUs by market segment (NVIDIA and AMD architecture names).
SEGMENTS = {
    "V100 SXM2 16GB": "Volta",
    "V100 SXM2 32GB": "Volta",
    "A100 SXM 40GB": "Ampere",
    "A100 SXM 80GB": "Ampere",
    "A40": "Ampere",
    "A10G": "Ampere",
    "H100 SXM": "Hopper",
    "H100 PCIe": "Hopper",
    "H200 SXM": "Hopper",
    "B200 (HGX 1000W)": "Blackwell",
    "L4": "Ada",
    "L40S": "Ada",
    "T4": "Turing",
    "MI300X": "CDNA 3",
    "RTX 3060 12GB": "consumer",
    "RTX 4090": "consumer",
}


@dataclass(frozen=True)
class Observation:
    segment: str
    gpu: str
    years: tuple[float, float]
    ratio: tuple[float, float]  # used over new price
    role: str  # fit, left out
    confidence: str  # primary, secondary, model, low
    group: str  # rows of one group share one observation's weight
    derivation: str
    source: str

    def rates(self) -> tuple[float, float]:
        """The lowest and highest decay rate its corners imply (a used price at or above the
        new one: no decay, rate 0)."""
        corners = [max(0.0, -math.log(min(r, 1.0)) / y) for r in self.ratio for y in self.years]
        return min(corners), max(corners)

    def log_rates(self) -> tuple[float, float]:
        low, high = self.rates()
        return (math.log(low) if low > 0 else -math.inf, math.log(max(high, 1e-9)))


@dataclass(frozen=True)
class UsedMarket:
    """A segment's decay rate ``per_year`` with its band, and what it rests on."""

    segment: str
    per_year: float
    low: float
    high: float
    basis: str  # "fitted on N dated prices" or Epoch's long-run trend
    sources: tuple[str, ...]

    def rate_at(self, quantile: float) -> float:
        """The rate at ``quantile`` of the band: 0 its slowest loss of value, 0.5 the fitted
        rate, 1 its fastest (straight on each side of the fit)."""
        if quantile <= 0.5:
            return self.low + (self.per_year - self.low) * quantile * 2
        return self.per_year + (self.high - self.per_year) * (quantile - 0.5) * 2

    def share(self, years: float, per_year: float | None = None) -> float:
        """Used-market value over the price paid after ``years`` held."""
        return math.exp(-(self.per_year if per_year is None else per_year) * max(0.0, years))


@functools.cache
def observations() -> tuple[Observation, ...]:
    text = resources.files("tco.pricing").joinpath("data", "used_market.csv").read_text("utf-8")
    return tuple(
        Observation(
            r["segment"],
            r["gpu"],
            (float(r["years_low"]), float(r["years_high"])),
            (float(r["ratio_low"]), float(r["ratio_high"])),
            r["role"],
            r["confidence"],
            r["group"],
            r["derivation"],
            r["source"],
        )
        for r in csv.DictReader(text.splitlines())
    )


def _fitted_rows(segment: str, without: str | None = None) -> list[Observation]:
    return [
        o for o in observations() if o.segment == segment and o.role == "fit" and o.group != without
    ]


@functools.cache  # read by every likelihood of the sigma search
def weight(o: Observation) -> float:
    """Its confidence's weight, shared among its group's rows in its segment."""
    size = Counter(x.group for x in _fitted_rows(o.segment))[o.group]
    return CONFIDENCE_WEIGHTS[o.confidence] / max(size, 1)


def _log_likelihood(o: Observation, sigma: float) -> np.ndarray:
    """ln P(observation | ln k) on the grid: its interval of ln k through normal noise."""
    from scipy.special import ndtr  # here: scipy's import is 0.3 s a command may not need

    s = sigma / math.sqrt(weight(o))
    a, b = o.log_rates()
    if b - a < 1e-9:  # a point
        return -0.5 * ((a - _GRID) / s) ** 2 - math.log(s * math.sqrt(2 * math.pi))
    p = np.asarray(ndtr((b - _GRID) / s) - ndtr((a - _GRID) / s), dtype=float)
    out: np.ndarray = np.log(np.maximum(p, 1e-300))
    return out


def _log_posterior(
    segment: str, sigma: float, without: str | None = None
) -> tuple[np.ndarray, float]:
    """The normalised posterior of ln k on the grid, and ln of its evidence (the marginal
    likelihood, up to the grid's constant step)."""
    lp = -0.5 * ((_GRID - math.log(EPOCH_DECAY_PER_YEAR)) / PRIOR_SPREAD) ** 2
    lp = lp - math.log(PRIOR_SPREAD * math.sqrt(2 * math.pi))
    for o in _fitted_rows(segment, without):
        lp = lp + _log_likelihood(o, sigma)
    top = float(lp.max())
    p = np.exp(lp - top)
    total = float(p.sum())
    return p / total, top + math.log(total)


def _segments() -> list[str]:
    return sorted({o.segment for o in observations() if o.role == "fit"})


@functools.cache
def observation_spread() -> float:
    """``sigma``, the noise of one full-weight observation's ln k around its generation's: the
    value in 0.05-1.5 that makes every segment's observations most likely together (Brent's
    bounded search: deterministic, and 30 evaluations where a grid took 290)."""
    from scipy.optimize import minimize_scalar  # (lazily, as ndtr above)

    found = minimize_scalar(
        lambda s: -sum(_log_posterior(g, float(s))[1] for g in _segments()),
        bounds=SIGMA_BOUNDS,
        method="bounded",
        options={"xatol": 1e-4},
    )
    return float(found.x)


@dataclass(frozen=True)
class Posterior:
    mean: float  # of ln k
    sd: float

    def band(self, sigma: float) -> tuple[float, float]:
        half = BAND_Z * math.sqrt(self.sd**2 + sigma**2)
        return math.exp(self.mean - half), math.exp(self.mean + half)


def _posterior(segment: str, without: str | None = None) -> Posterior:
    p, _ = _log_posterior(segment, observation_spread(), without)
    mean = float((p * _GRID).sum())
    return Posterior(mean, math.sqrt(float((p * (_GRID - mean) ** 2).sum())))


@functools.cache
def _fitted(segment: str) -> UsedMarket | None:
    fit = _fitted_rows(segment)
    if not fit:
        return None
    post = _posterior(segment)
    low, high = post.band(observation_spread())
    groups = len({o.group for o in fit})
    return UsedMarket(
        segment,
        math.exp(post.mean),
        low,
        high,
        f"fitted on {groups} dated price{'s' if groups > 1 else ''} and published"
        " curves, weighed by their confidence, with Epoch AI's long-run rate as the prior",
        tuple(dict.fromkeys(o.source for o in fit)),
    )


@dataclass(frozen=True)
class LeftOut:
    """One group refitted without: its ages and observed shares, the share its segment's fit
    without it predicts at its mid-age, and the miss in ln k (0 inside its interval)."""

    segment: str
    group: str
    confidence: str
    observed: tuple[float, float]  # rate interval
    predicted: float  # rate without it
    miss: float  # ln k outside the interval, signed: + the fit loses value faster


def leave_one_out() -> tuple[LeftOut, ...]:
    """Each group of each fitted segment, predicted by the fit of the rest of its segment."""
    out = []
    for g in _segments():
        for group in dict.fromkeys(o.group for o in _fitted_rows(g)):
            rows = [o for o in _fitted_rows(g) if o.group == group]
            low = min(o.rates()[0] for o in rows)
            high = max(o.rates()[1] for o in rows)
            k = math.exp(_posterior(g, without=group).mean)
            miss = 0.0 if low <= k <= high else math.log(k / (high if k > high else low))
            out.append(LeftOut(g, group, rows[0].confidence, (low, high), k, miss))
    return tuple(out)


@functools.cache
def fitted_generations() -> tuple[UsedMarket, ...]:
    """Every data-centre generation with observations (GeForce cards are their own market)."""
    names = [g for g in _segments() if g != "consumer"]
    return tuple(m for m in map(_fitted, names) if m is not None)


@functools.cache
def used_market(gpu: str) -> UsedMarket:
    """The used market of ``gpu``'s segment: fitted where it has observations, else Epoch's
    long-run trend with the fitted generations' spread as its band."""
    segment = SEGMENTS.get(gpu, "unknown")
    fitted = _fitted(segment)
    if fitted is not None:
        return fitted
    rates = [m.per_year for m in fitted_generations()]
    return UsedMarket(
        segment,
        EPOCH_DECAY_PER_YEAR,
        min(rates),
        max(rates),
        "no dated used price: Epoch AI's long-run 0.14 orders of magnitude a year",
        ("Cottier et al., arXiv 2405.21015 (Epoch AI), via gpu_price_history.csv",),
    )
