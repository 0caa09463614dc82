"""The distributions an uncertain input may take (the scenario's ``uncertain:`` block): uniform
(low, high), triangular (low, mode, high), normal truncated to [low, high] (mean, sd, low, high;
drawn by rejection), lognormal (median, sigma of the logarithm), choice (values, optional
weights). Each knows its quantile (a Latin hypercube's draws), its cumulative probability (what
an answer says of a drawn delivery: P(in service by month m)), its expected value, which tests
compare with samples, and itself in words."""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Annotated, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.simulator.core.fields import Strict

Real = Annotated[float, Field(ge=-1e9, le=1e9)]
Whole = Annotated[int, Field(ge=-(10**9), le=10**9)]


class Uniform(Strict):
    kind: Literal["uniform"]
    low: Real
    high: Real

    @model_validator(mode="after")
    def _order(self) -> Uniform:
        if not self.low < self.high:
            raise ValueError("low must be below high")
        return self

    def draw(self, rng: np.random.Generator) -> float:
        return float(rng.uniform(self.low, self.high))

    def quantile(self, u: float) -> float:
        """The value at cumulative probability ``u`` (a Latin hypercube's draws use it)."""
        return self.low + u * (self.high - self.low)

    def cdf(self, x: float) -> float:
        """P(a draw <= x)."""
        return min(max((x - self.low) / (self.high - self.low), 0.0), 1.0)

    def words(self) -> str:
        return f"uniform {self.low:g} to {self.high:g}"

    def expected(self) -> float:
        return (self.low + self.high) / 2

    def lowest(self) -> float:
        return self.low


class Triangular(Strict):
    kind: Literal["triangular"]
    low: Real
    mode: Real
    high: Real

    @model_validator(mode="after")
    def _order(self) -> Triangular:
        if not (self.low <= self.mode <= self.high and self.low < self.high):
            raise ValueError("need low <= mode <= high and low < high")
        return self

    def draw(self, rng: np.random.Generator) -> float:
        return float(rng.triangular(self.low, self.mode, self.high))

    def quantile(self, u: float) -> float:
        a, c, b = self.low, self.mode, self.high
        cut = (c - a) / (b - a)
        if u < cut:
            return a + math.sqrt(u * (b - a) * (c - a))
        return b - math.sqrt((1 - u) * (b - a) * (b - c))

    def cdf(self, x: float) -> float:
        a, c, b = self.low, self.mode, self.high
        if x <= a:
            return 0.0
        if x >= b:
            return 1.0
        if x <= c:
            return (x - a) ** 2 / ((b - a) * (c - a))
        return 1.0 - (b - x) ** 2 / ((b - a) * (b - c))

    def words(self) -> str:
        return f"triangular {self.low:g}, {self.mode:g}, {self.high:g} (low, mode, high)"

    def expected(self) -> float:
        return (self.low + self.mode + self.high) / 3

    def lowest(self) -> float:
        return self.low


class Normal(Strict):
    """A normal distribution truncated to [low, high] (by rejection: at least 5 % of the mass
    must lie inside, checked when the scenario is read)."""

    kind: Literal["normal"]
    mean: Real
    sd: Annotated[float, Field(gt=0, le=1e9)]
    low: Real
    high: Real

    @model_validator(mode="after")
    def _order(self) -> Normal:
        if not self.low < self.high:
            raise ValueError("low must be below high")
        if self._mass() < 0.05:
            raise ValueError("less than 5 % of the normal lies between low and high")
        return self

    def _cdf(self, x: float) -> float:
        return 0.5 * (1 + math.erf((x - self.mean) / (self.sd * math.sqrt(2))))

    def _mass(self) -> float:
        return self._cdf(self.high) - self._cdf(self.low)

    def draw(self, rng: np.random.Generator) -> float:
        while True:
            x = float(rng.normal(self.mean, self.sd))
            if self.low <= x <= self.high:
                return x

    def quantile(self, u: float) -> float:
        lo, hi = self._cdf(self.low), self._cdf(self.high)
        p = min(max(lo + u * (hi - lo), 1e-15), 1 - 1e-15)
        return min(max(NormalDist(self.mean, self.sd).inv_cdf(p), self.low), self.high)

    def cdf(self, x: float) -> float:
        x = min(max(x, self.low), self.high)
        return (self._cdf(x) - self._cdf(self.low)) / self._mass()

    def words(self) -> str:
        return f"normal, mean {self.mean:g}, sd {self.sd:g}, between {self.low:g} and {self.high:g}"

    def expected(self) -> float:
        a, b = (self.low - self.mean) / self.sd, (self.high - self.mean) / self.sd
        return self.mean + self.sd * (_pdf(a) - _pdf(b)) / self._mass()

    def lowest(self) -> float:
        return self.low


def _pdf(z: float) -> float:
    return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


class LogNormal(Strict):
    kind: Literal["lognormal"]
    median: Annotated[float, Field(gt=0, le=1e9)]
    sigma: Annotated[float, Field(gt=0, le=5)]

    def draw(self, rng: np.random.Generator) -> float:
        return float(rng.lognormal(math.log(self.median), self.sigma))

    def quantile(self, u: float) -> float:
        z = NormalDist().inv_cdf(min(max(u, 1e-15), 1 - 1e-15))
        return self.median * math.exp(self.sigma * z)

    def cdf(self, x: float) -> float:
        if x <= 0:
            return 0.0
        return NormalDist().cdf(math.log(x / self.median) / self.sigma)

    def words(self) -> str:
        return f"lognormal, median {self.median:g}, sigma {self.sigma:g}"

    def expected(self) -> float:
        return self.median * math.exp(self.sigma**2 / 2)

    def lowest(self) -> float:
        return 0.0


class Choice(Strict):
    """One of ``values``; whole numbers stay whole (a choice of servers: 2, 3 or 4)."""

    kind: Literal["choice"]
    values: list[Whole | Real | str] = Field(min_length=1)
    weights: list[Annotated[float, Field(ge=0, le=1e9)]] | None = None

    @model_validator(mode="after")
    def _weights(self) -> Choice:
        if self.weights is not None and (
            len(self.weights) != len(self.values) or sum(self.weights) <= 0
        ):
            raise ValueError("weights: one non-negative weight per value, not all zero")
        return self

    def draw(self, rng: np.random.Generator) -> float | str:
        p = None if self.weights is None else np.asarray(self.weights) / sum(self.weights)
        return self.values[int(rng.choice(len(self.values), p=p))]

    def quantile(self, u: float) -> float | str:
        w = np.asarray(self.weights or [1.0] * len(self.values), dtype=np.float64)
        edges = np.cumsum(w) / w.sum()
        i = int(np.searchsorted(edges, u, side="right"))
        return self.values[min(i, len(self.values) - 1)]

    def cdf(self, x: float) -> float:
        w = self.weights or [1.0] * len(self.values)
        under = sum(
            p for v, p in zip(self.values, w, strict=True) if not isinstance(v, str) and v <= x
        )
        return under / sum(w)

    def words(self) -> str:
        return "one of " + ", ".join(str(v) for v in self.values)

    def expected(self) -> float:
        w = self.weights or [1.0] * len(self.values)
        return sum(float(v) * x for v, x in zip(self.values, w, strict=True)) / sum(w)

    def lowest(self) -> float:
        return min(float(v) for v in self.values if not isinstance(v, str))


Distribution = Annotated[
    Uniform | Triangular | Normal | LogNormal | Choice, Field(discriminator="kind")
]
