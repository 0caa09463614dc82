"""A mix's knobs searched over the futures (issue 37): from the configuration the portfolio
search found best on the base job stream (``advice.portfolio``: its size, wait, order month and
fitted commitment), the configurations that meet the level in enough job streams, for the least
mean cash, are looked for by what the race tells of each (``advice.race``).

What theory says, and the search uses:

- *Waits.* A job that waited ``w`` for the owned servers before bursting is late by at least
  ``w``; with a rented target that starts a job at once (on demand), every job that bursts after
  waiting at most the level's hours L and every job that stays is on time, so a wait of L or less
  meets the level in every future (failures aside). Delays grow with the wait, so each size's
  longest wait that meets the level in enough streams is found by bisection on a grid of waits,
  ``WAIT_STEPS`` steps of L/8 from 0 to 2L; from a wait that misses, L is tried first when it
  lies below. Cost does not always fall with the wait (a longer wait rents less, but leaves
  more in the owned queue, which can tip), so from the longest wait that meets, shorter waits
  are tried one step at a time while each is cheaper than the one above it (the race drops the
  dearer of two at its paired test).
- *Sizes.* More servers shorten the queue: a wait that misses at n servers is tried at n + 1
  (then its longest wait that meets, as above), at most ``MAX_SIZE_STEPS`` sizes above the base
  stream's, unless a larger size was already found dearer; a wait that meets at a size no larger
  than the base stream's is tried with one server fewer (a smaller cluster waiting less can cost
  less), at most ``MAX_SIZE_STEPS`` sizes below.
- *Contention.* A configuration is refined only while it costs at most ``CONTENTION`` more than
  the leader (the cheapest candidate meeting the level so far): waiting less or buying more
  costs more, and a longer wait saves a share of the rented part only.
- *Theory's misses.* A configuration meets the level less often with fewer servers and with a
  longer wait: a stream on which (n', w') with n' >= n and w' <= w missed is counted a miss of
  (n, w) before any play, so a configuration theory rules out is never played.

The order month and the fitted commitment stay those of the base stream's search.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from tco.simulator.advice import composing
from tco.simulator.advice import portfolio as mixes
from tco.simulator.advice.race import Entry, Race
from tco.simulator.kinds import registry
from tco.simulator.sweep.plays import Candidate

WAIT_STEPS = 16  # the grid: k x L/8 for k = 0..16, from no wait to twice the level's hours
LEVEL_STEP = 8  # the level's own hours on that grid
MAX_SIZE_STEPS = 2
# A configuration that misses the level is sized up or waits less only while it costs at most
# this much more than the leader (the cheapest candidate meeting the level so far): those
# moves add capacity or rent more, and a family already far dearer only grows dearer.
CONTENTION = 0.10


def wait_grid(level_h: float) -> list[float]:
    """The waits tried, in hours (as a person would type them)."""
    return [float(f"{k * level_h / LEVEL_STEP:.3g}") for k in range(WAIT_STEPS + 1)]


@dataclass
class MixSearch:
    """One mix's configurations, (size, wait index on the grid), proposed to a race."""

    mixer: mixes.Mixer
    found: mixes.Portfolio
    grid: list[float]
    start_size: int
    start_wait: int
    lo: dict[int, int] = field(default_factory=dict)  # size -> longest wait index that meets
    hi: dict[int, int] = field(default_factory=dict)  # size -> shortest wait index that misses
    looks: dict[int, int] = field(default_factory=dict)  # size -> longest that met so far
    dearer_from: int | None = None  # the smallest size found dearer than a candidate meeting
    missed: dict[int, set[tuple[int, int]]] = field(default_factory=dict)  # stream -> (n, k)

    @property
    def family(self) -> str:
        return self.mixer.name

    @classmethod
    def of(cls, mixer: mixes.Mixer, found: mixes.Portfolio) -> MixSearch:
        grid = wait_grid(mixer.level_h)
        k0 = min(range(len(grid)), key=lambda k: abs(grid[k] - found.wait_h))
        return cls(mixer, found, grid, found.size, k0)

    def key(self, n: int, k: int) -> Hashable:
        return (self.family, n, k)

    def entry(self, n: int, k: int, race: Race | None = None) -> Entry | None:
        """The configuration as a candidate (None: its kinds refuse it), with the misses
        theory implies from what is known."""
        w = self.grid[k]
        try:
            option = self.mixer.option(n, w, self.found.fitted, self.found.order_month)
        except ValueError:
            return None
        e = Entry(
            key=self.key(n, k),
            candidate=Candidate(
                f"{self.family} [{self.mixer.knob} {n}, wait {w:g} h]", None, option
            ),
            family=self.family,
            words=self.words(n, w),
        )
        e.implied_misses = sum(
            1 for done in self.missed.values() if any(n2 >= n and k2 <= k for n2, k2 in done)
        )
        return e

    def words(self, n: int, w: float) -> str:
        size = registry.of(self.mixer.mix.base).size_words(self.mixer.knob, n)
        return f"{self.family} ({size}, bursting after {w:g} h)"

    def start(self) -> list[Entry]:
        e = self.entry(self.start_size, self.start_wait)
        return [] if e is None else [e]

    def knobs_of(self, key: Hashable) -> tuple[int, int]:
        """(size, wait index) of one of this search's keys."""
        assert isinstance(key, tuple) and len(key) == 3
        return int(key[1]), int(key[2])

    def told(self, e: Entry, event: str, race: Race) -> list[Entry]:
        n, k = self.knobs_of(e.key)
        proposals: list[tuple[int, int]] = []
        excess = race.excess(e)
        if excess is not None and excess > CONTENTION and event != "dearer":
            return []  # far dearer than the leader: neither more capacity nor a longer wait wins
        if event == "misses":
            for s, o in e.played.items():
                if not o.meets:
                    self.missed.setdefault(s, set()).add((n, k))
            self.hi[n] = min(self.hi.get(n, WAIT_STEPS + 1), k)
            down = self._down(n, k)
            if down is not None:
                proposals.append((n, down))
            elif self._look_below(n, k - 1, race):  # the longest that meets is settled
                proposals.append((n, k - 2))
            if self._may_grow(n):
                proposals.append((n + 1, k))
        elif event in ("meets", "looks"):
            # "looks": met on every stream played so far, not yet on enough: the next wait is
            # tried meanwhile (a bisection that waited for certainty would play in sequence).
            if event == "meets":
                self.lo[n] = max(self.lo.get(n, -1), k)
            self.looks[n] = max(self.looks.get(n, -1), k)
            top = self.hi.get(n, WAIT_STEPS + 1)
            mid = min(WAIT_STEPS, (k + top) // 2)
            if top - k > 1 and self.key(n, mid) not in race.entries:
                proposals.append((n, mid))
            elif self._look_below(n, k, race):
                proposals.append((n, k - 1))  # a longer wait may cost more: look below
            if self._may_shrink(n):
                proposals.append((n - 1, k))
        elif event == "dearer" and n > self.start_size:
            self.dearer_from = n if self.dearer_from is None else min(self.dearer_from, n)
        out = []
        for n2, k2 in proposals:
            if self.key(n2, k2) in race.entries:
                continue
            made = self.entry(n2, k2, race)
            if made is not None:
                out.append(made)
        return out

    def _down(self, n: int, k: int) -> int | None:
        """The next wait to try below a miss at size ``n``: the level's hours when they lie
        below it and nothing at this size is known to meet (theory: it meets), else halfway to
        the longest that meets."""
        lo = max(self.lo.get(n, -1), self.looks.get(n, -1) if self.looks.get(n, -1) < k else -1)
        if lo < 0 and k > LEVEL_STEP:
            return LEVEL_STEP
        j = (lo + k) // 2
        return j if lo < j < k else None

    def _look_below(self, n: int, k: int, race: Race) -> bool:
        """Whether to try the next shorter wait below ``k`` at size ``n``: cost does not always
        fall with the wait (a longer wait rents less but leaves more in the owned queue, which
        can tip), so the longest wait that meets is not taken for the cheapest unseen. From it,
        once settled (the next longer wait misses, or it is the grid's top), when it leads the
        race (a step below a configuration far dearer than the leader cannot win); then, step
        by step, for as long as each shorter wait is cheaper than the one above it on the
        streams both were played on. itp-cluster's brute-force grid (scripts/brute_force_mix.py)
        found the longest wait that meets the cheapest at every size, so this costs a play or
        two there; a queue that tips is found."""
        here = race.entries.get(self.key(n, k))
        if k <= 0 or here is None or here.misses() > race.k - race.need:
            return False
        above = race.entries.get(self.key(n, k + 1))
        if k == WAIT_STEPS or self.hi.get(n) == k + 1:  # the longest that meets
            excess = race.excess(here)
            return excess is None or excess <= 0.0
        if above is None or above.misses() > race.k - race.need:
            return False  # not settled: the bisection decides first
        common = set(above.played) & set(here.played)
        return bool(common) and sum(here.cash(s) for s in common) < sum(
            above.cash(s) for s in common
        )

    def _may_shrink(self, n: int) -> bool:
        """Fewer servers at the same wait, from a size that meets the level at or below the
        base stream's: over the futures a smaller cluster with a shorter wait can cost less."""
        return (
            n <= self.start_size
            and n - 1 > self.mixer.floor
            and n - 1 >= (self.start_size - MAX_SIZE_STEPS)
        )

    def _may_grow(self, n: int) -> bool:
        if n + 1 > self.mixer.limit or n + 1 > self.start_size + MAX_SIZE_STEPS:
            return False
        return self.dearer_from is None or n + 1 < self.dearer_from


def known_start(search: MixSearch) -> tuple[Hashable, Any] | None:
    """The base stream's play of the search's starting configuration (the portfolio search's
    best), to price instead of playing it again: (key, Played)."""
    for played in search.mixer.seen.values():
        knobs = played.config.knobs
        if (
            knobs.get(search.mixer.knob) == search.start_size
            and float(knobs.get(composing.WAIT_KNOB, -1.0)) == search.grid[search.start_wait]
            and knobs.get(composing.ORDER_KNOB) == search.found.order_month
            and all(knobs.get(k) == v for k, v in search.found.fitted.items())
        ):
            return search.key(search.start_size, search.start_wait), played
    return None
