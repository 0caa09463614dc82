"""The futures of an answer (and of a sweep), as a nested design: K job streams, each priced
under M money draws of its own.

Inputs come in two sorts (``sweep.known``: ``Input.money``). Those that change what is played (the
workload, a GPU's speed, the spot market) are drawn once per *job stream*; those that move money
only (price groups, what servers fetch, a kind's declared money fields, the discount rate) are
drawn once per *future*. Every stream is played once per option and priced under each of its M
money draws, so a design of K x M futures costs K plays per option and K x M repricings (a ledger
each, about a fiftieth of a play), where independent futures would cost K x M plays. Every future
has prices of its own (a design crossing the same M prices with every stream would give a price
only M values), and every option of a future sees the same draws (common random numbers).

- Stream 0 is the base job stream: the scenario's own seed and every play input as written (the
  base run is played on it, and with no futures drawn it is the only one). Streams 1..K-1 each
  take the job seed of ``SeedSequence(seed, spawn_key=(s,))`` and a draw of every play input.
- With futures drawn, every money draw is drawn (none is the nominal); with none, the single
  money draw is the nominal (every price as written), so the base run is that design's future.
- Draws are a Latin hypercube (McKay, Beckman and Conover, 1979) per sort, over the K - 1 drawn
  streams and over the K x M futures: each input's range is cut into as many strata of equal
  probability as there are draws, each stratum drawn once in a random order, independently per
  input; a value is the distribution's quantile at a uniform point of its stratum. Every stratum
  is covered, so means and shares vary less than with plain draws (tests/sweep/test_design.py
  measures it).

A future is (s, m), numbered s x M + m. Statistics over the design (``sweep.odds``) treat the
K x M cash figures as a nested layout: the standard error of a mean over the futures is the
standard deviation of the K stream means over sqrt(K) (the variance of a grand mean of a
nested random-effects layout, Var(stream) / K + Var(money) / (K M)), and shares of streams (the
level is met or missed per stream) have K, not K x M, observations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tco.pricing import rental_paths
from tco.simulator.engine.prepared import Prepared
from tco.simulator.sweep.known import Input, inputs

MONEY_DRAWS = 4  # money draws per stream when some input moves money only
LHS_KEY = 0x1A7  # the design's own random stream, apart from the job streams' (keyed by index)
PATHS_KEY = 0x9A7  # rental price paths' own stream: turning them on leaves every other draw
RENTAL_PATHS = "market.rental_prices"  # the paths as an input of the odds (``Odds.inputs``)


@dataclass(frozen=True)
class Stream:
    """One job stream: its index, the seed its jobs are drawn from, and its play inputs drawn
    (none for stream 0, the base job stream)."""

    index: int
    seed: int
    draws: dict[str, float | str] = field(default_factory=dict)


@dataclass(frozen=True)
class MoneyDraw:
    """One draw of the money inputs: price-group multipliers and money-only paths (none: the
    nominal prices, the design of no futures)."""

    index: int
    draws: dict[str, float | str] = field(default_factory=dict)
    # A month's standard normal step of rental prices' Brownian motion, for each month of the
    # horizon (empty: prices follow their curve; ``costs.rental_path``).
    shock: tuple[float, ...] = ()

    @property
    def multipliers(self) -> dict[str, float]:
        """``prices.<group>`` draws, by price group's word ('cloud', 'spot', ...)."""
        return {
            p.removeprefix("prices."): float(v)
            for p, v in self.draws.items()
            if p.startswith("prices.")
        }

    @property
    def paths(self) -> dict[str, float | str]:
        """The money-only draws of the scenario itself (not price groups)."""
        return {p: v for p, v in self.draws.items() if not p.startswith("prices.")}


@dataclass(frozen=True)
class Design:
    """K job streams x M money draws, and the inputs they are drawn from."""

    streams: tuple[Stream, ...]
    money: tuple[tuple[MoneyDraw, ...], ...]  # per stream, its money draws
    inputs: tuple[Input, ...]
    drawn: bool  # futures were asked for (False: the base run alone, nominal money)

    @property
    def k(self) -> int:
        return len(self.streams)

    @property
    def m(self) -> int:
        return len(self.money[0])

    @property
    def futures(self) -> int:
        return self.k * self.m

    def future(self, s: int, m: int) -> int:
        return s * self.m + m

    def draws_of(self, s: int, m: int) -> dict[str, float | str]:
        """Every input drawn in future (s, m), in the inputs' order (stream 0's play inputs are
        as written: not listed)."""
        both = {**self.streams[s].draws, **self.money[s][m].draws}
        return {i.path: both[i.path] for i in self.inputs if i.path in both}


def shape(futures: int, money: bool) -> tuple[int, int]:
    """(streams, money draws) for ``futures`` futures: ``MONEY_DRAWS`` money draws a stream when
    some input moves money only, and as many streams as the rest needs (at least the futures
    asked for: K x M >= futures); (1, 1) for none."""
    if futures <= 0:
        return 1, 1
    m = min(MONEY_DRAWS, futures) if money else 1
    return max(1, math.ceil(futures / m)), m


def latin_hypercube(found: list[Input], n: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """``n`` draws of ``found`` (a list of dicts, path -> value): a Latin hypercube, each input's
    strata in their own random order."""
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for i in found:
        u = (rng.permutation(n) + rng.random(n)) / n
        dist = i.uncertain.distribution
        for j in range(n):
            out[j][i.path] = dist.quantile(float(u[j]))
    return out


def job_seed(seed: int, s: int) -> int:
    """The seed of stream ``s``'s jobs (stream 0: the scenario's own)."""
    if s == 0:
        return seed
    jobs = np.random.SeedSequence(seed, spawn_key=(s,)).spawn(2)[1]
    return int(jobs.generate_state(1, dtype=np.uint32)[0])


def design(prepared: Prepared, futures: int) -> Design:
    """The design of ``futures`` futures of ``prepared`` (0: the base run alone), rooted at the
    scenario's seed: the same design on one process, several, or a Dask cluster."""
    found = inputs(prepared)
    if futures <= 0:
        nominal = ((MoneyDraw(0),),)
        return Design((Stream(0, prepared.scenario.seed),), nominal, tuple(found), False)
    play = [i for i in found if not i.money]
    money = [i for i in found if i.money]
    moves = rentals_move(prepared)
    k, m = shape(futures, bool(money) or moves)
    seed = prepared.scenario.seed
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(LHS_KEY, k, m)))
    drawn = latin_hypercube(play, k - 1, rng) if k > 1 else []
    streams = [Stream(0, seed)] + [Stream(s, job_seed(seed, s), drawn[s - 1]) for s in range(1, k)]
    priced = latin_hypercube(money, k * m, rng)
    shocks: list[tuple[float, ...]] = [()] * (k * m)
    if moves:
        paths = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(PATHS_KEY, k, m)))
        steps = paths.standard_normal((k * m, prepared.scenario.horizon_months))
        shocks = [tuple(row.tolist()) for row in steps]
    draws = tuple(
        tuple(MoneyDraw(s * m + j, priced[s * m + j], shocks[s * m + j]) for j in range(m))
        for s in range(k)
    )
    return Design(tuple(streams), draws, tuple(found), True)


def rental_paths_drawn(prepared: Prepared) -> tuple[tuple[str, bool, str], ...]:
    """The rental price paths as an input of the odds (path, tco's own, where it comes from:
    its first words, to the first parenthesis, are the answer's short form), or none when
    prices keep to their curve."""
    if not rentals_move(prepared):
        return ()
    moves = prepared.scenario.market.rental_prices
    assert moves is not None
    if moves.volatility != "fitted":
        said = f"{moves.volatility:.0%} a year, as the scenario states"
        return ((RENTAL_PATHS, False, f"{said} (around the curve)"),)
    fit = rental_paths.fitted()
    each = {g: fit.volatility(g) for g in {p.rented_gpu() for p in prepared.plans}}
    bases = "; ".join(f"{g}: {basis}" for g, (_, basis) in sorted(each.items()))
    sigmas = sorted({sigma for sigma, _ in each.values()} or {fit.pooled})
    level = f"{sigmas[0]:.0%}" if len(sigmas) == 1 else f"{sigmas[0]:.0%} to {sigmas[-1]:.0%}"
    series = ", ".join(sorted({c.gpu for c in fit.changes}))
    return (
        (
            RENTAL_PATHS,
            True,
            f"{level} a year, fitted on {len(fit.changes)} {series} changes; low confidence"
            f" (a geometric Brownian path a future around the curve; {bases}; dated prices"
            " from secondary sources: pricing/data/rental_price_history.csv)",
        ),
    )


def rentals_move(prepared: Prepared) -> bool:
    """Whether rental prices take a path of their own in each future (a volatility stated)."""
    moves = prepared.scenario.market.rental_prices
    return moves is not None and moves.volatility not in (None, 0.0)
