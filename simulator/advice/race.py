"""The decision over futures, raced (issue 37): candidates (the options as listed, configurations
of the mixes the search composes) are played on the job streams of the futures' design
(``sweep.design``) a few streams at a time, and stop being played once the streams played
already decide them. Plays go where the decision is still open.

- *Meeting the level* is counted, not estimated: over K streams a candidate meets the level when
  it meets it on at least ``need = ceil(confidence x K)`` of them (``engine.verdicts``). One that
  has missed on more than K - need cannot; it is told to its search at once, and it stops being
  played once it cannot meet the lowest confidence of the frontier either.
- *Dearer*: a sequential paired test on each stream's cash (the mean over its money draws), with
  a Bonferroni bound over the looks and the pairs: after ``FIRST_STAGE`` streams in common,
  candidate i is dropped when its mean cash over the r streams it shares with l is above l's
  and the mean logarithm of the ratio of their costs exceeds t(1 - alpha / (looks x (k - 1)),
  r - 1) standard errors (costs on a stream scale with its load: the ratio's spread is the
  options' own), l meeting the level on enough streams so far (k: candidates, looks: rounds of
  the race). The
  cheapest candidate is dropped, at any look against any other, with probability at most alpha
  (union bound; normal, independent streams): tests/advice/test_race.py measures it. A candidate
  dropped for one that later cannot meet the level plays again.
- *Frontier only*: a candidate that can no longer meet the level in enough streams is kept for
  the frontier of lower confidences only while it is not dearer (mean over the streams in
  common) than one that still can: a dearer one is on no point of the frontier.
- Candidates still playing once every stream is out are played on every stream; so are the
  answer and its runner-up (the best of another family), whose odds are read on the same
  futures.
- A budget of job-plays (jobs played, summed over plays, each by its kind's ``play_weight``:
  a job placed without a queue counts a tenth) is a ceiling: the cost of playing the answer and
  its runner-up on every stream is kept aside from the start; past the rest no candidate is
  added, and only the leader and its runner-up are played to the end.

The race only decides; ``advice.robust`` proposes the mixes' configurations from what it is told
(met, missed, dropped), and ``sweep.odds`` reads the odds off the candidates played on every
stream.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from tco.simulator.engine.findings import Dropped
from tco.simulator.engine.verdicts import by_cash, needed, rank
from tco.simulator.sweep.plays import Candidate, Outcome

ERROR = 0.05  # alpha: the chance of dropping the cheapest candidate at all
FIRST_STAGE = 4  # streams in common before a candidate may be dropped as dearer
CHUNK = 4  # streams a round adds, whatever the workers (their count must not move the answer)


@dataclass
class Entry:
    """A candidate in the race and what is known of it."""

    key: Hashable
    candidate: Candidate
    family: str  # an option as listed, or a mix (its configurations race each other too)
    words: str
    weight: float = 1.0  # job-plays a job of its play counts for (``Kind.play_weight``)
    played: dict[int, Outcome] = field(default_factory=dict)
    implied_misses: int = 0  # streams on which theory says it misses (not played)
    state: str = "racing"  # racing, done (every stream), out
    why: str = ""
    by: Hashable | None = None  # dropped as dearer than this one (revived if it fails)
    told: str = ""  # what its search was told of it: "", "looks" (so far), "meets", "misses"

    def misses(self) -> int:
        return sum(1 for o in self.played.values() if not o.meets) + self.implied_misses

    def meets(self) -> int:
        return sum(1 for o in self.played.values() if o.meets)

    def cash(self, s: int) -> float:
        return self.played[s].mean_cash

    def mean_cash(self) -> float:
        return float(np.mean([o.mean_cash for o in self.played.values()]))


class Listener(Protocol):
    """A search of one family's configurations (``advice.robust``): told when an entry of its
    family is found to meet the level on enough streams, to miss it on too many, or to be
    dearer; it answers with configurations to add."""

    @property
    def family(self) -> str: ...

    def start(self) -> list[Entry]: ...

    def told(self, entry: Entry, event: str, race: Race) -> list[Entry]: ...


Play = Callable[[list[tuple[Entry, int]]], list[Outcome]]


class Race:
    """Candidates over K streams (see the module docstring)."""

    def __init__(
        self,
        k: int,
        confidence: float,
        lowest: float,
        play: Play,
        jobs_per_play: int,
        budget_job_plays: int,
        chunk: int = CHUNK,
        error: float = ERROR,
    ) -> None:
        self.k, self.confidence, self.play = k, confidence, play
        self.need = needed(k, confidence)
        self.need_low = min(self.need, needed(k, lowest))
        self.jobs = max(1, jobs_per_play)
        self.budget = budget_job_plays
        self.spent = 0.0  # job-plays: jobs played, by the weight of each candidate's kind
        # What finishing the answer and its runner-up on every stream may cost, kept aside.
        self.reserve = 2 * self.k * self.jobs
        self.chunk = max(1, chunk)
        self.error = error
        self.entries: dict[Hashable, Entry] = {}
        self.listeners: dict[str, Listener] = {}
        self.plays = 0
        self.stopped = ""
        self.revealed = 0  # streams 0..revealed-1 are out
        self.closed = False  # the budget is spent: no candidate is added
        self.ran_out = False  # the budget stopped the race (not every candidate was decided)
        self.unplayed: list[str] = []  # configurations proposed once the budget was spent

    # ------------------------------------------------------------------ entries

    def add(self, e: Entry) -> None:
        """A candidate (once: a key seen before is ignored), unless the budget is spent (then
        it is counted among the configurations never played) or theory already says it misses
        on too many streams."""
        if e.key in self.entries:
            return
        if self.closed:
            if e.words not in self.unplayed:
                self.unplayed.append(e.words)
            return
        self.entries[e.key] = e
        if e.misses() > self.k - self.need_low:
            self._out(e, f"misses the level on {e.misses()} of {self.k} job streams by theory")

    def listen(self, search: Listener) -> None:
        self.listeners[search.family] = search
        for e in search.start():
            self.add(e)

    def known(self, key: Hashable, s: int, outcome: Outcome) -> None:
        """An outcome known without a play (the base run's, the screening's on stream 0)."""
        if key in self.entries:
            self.entries[key].played[s] = outcome

    def _out(self, e: Entry, why: str, by: Hashable | None = None) -> None:
        e.state, e.why, e.by = "out", why, by

    # ------------------------------------------------------------------ rounds

    def feasible_so_far(self, e: Entry) -> bool:
        return e.misses() <= self.k - self.need

    def run(self) -> None:
        """Rounds until every candidate is done or out."""
        while True:
            racing = [e for e in self.entries.values() if e.state == "racing"]
            if not racing:
                break
            self.revealed = min(self.k, self.revealed + self.chunk)
            # The first round is always played: a race closed before any play has no leader
            # (0.13.0 answered "no option meets the level" to --odds 100000).
            if self.plays and self._over_budget(racing):
                racing = self._last_round()
                if not racing:
                    break
            pairs = [(e, s) for e in racing for s in range(self.revealed) if s not in e.played]
            self._play(pairs)
            self._judge()
        if not self.stopped:
            self.stopped = "every candidate was decided"

    def finish(self, keys: Sequence[Hashable]) -> None:
        """Play ``keys`` on every stream (the answer and its runner-up), whatever the race said."""
        todo = [self.entries[k] for k in keys if k in self.entries]
        self._play([(e, s) for e in todo for s in range(self.k) if s not in e.played])
        for e in todo:
            if len(e.played) == self.k and e.state != "done":
                e.state, e.why, e.by = "done", "", None

    def _play(self, pairs: list[tuple[Entry, int]]) -> None:
        if not pairs:
            return
        for (e, s), o in zip(pairs, self.play(pairs), strict=True):
            e.played[s] = o
        self.plays += len(pairs)
        self.spent += sum(e.weight for e, _ in pairs) * self.jobs

    def _over_budget(self, racing: list[Entry]) -> bool:
        need = sum(e.weight for e in racing for s in range(self.revealed) if s not in e.played)
        return self.spent + need * self.jobs + self.reserve > self.budget

    def _last_round(self) -> list[Entry]:
        """The budget is spent: no more candidates, every racing one out but the leader."""
        self.closed = self.ran_out = True
        self.stopped = (
            f"the budget of {self.budget:,} job-plays ran out ({self.plays:,} plays done);"
            " the leader was played on every job stream, the others stopped where they were"
        )
        racing = [e for e in self.entries.values() if e.state == "racing"]
        lead = self.leader()
        for e in racing:
            if lead is None or e.key != lead.key:
                self._out(e, f"the budget ran out after {len(e.played)} job streams")
        self.revealed = self.k
        return [lead] if lead is not None and lead.state == "racing" else []

    def leader(self) -> Entry | None:
        """The cheapest candidate (mean cash over its streams) meeting the level so far."""
        live = [
            e
            for e in self.entries.values()
            if e.state != "out" and e.played and self.feasible_so_far(e)
        ]
        return min(live, key=lambda e: rank(True, e.mean_cash(), str(e.key)), default=None)

    def excess(self, e: Entry) -> float | None:
        """How much dearer ``e`` is than the leader, as a share of the leader's cash (mean
        over the streams both were played on; None: no leader, or nothing in common)."""
        lead = self.leader()
        if lead is None or lead.key == e.key:
            return None
        common = set(e.played) & set(lead.played)
        if not common:
            return None
        mine = float(np.mean([e.cash(s) for s in common]))
        theirs = float(np.mean([lead.cash(s) for s in common]))
        return (mine - theirs) / abs(theirs) if theirs else None

    def _judge(self) -> None:
        """After a round: who can no longer meet the level, who is dearer, who is revived, who
        is done, and what the searches propose."""
        news: list[tuple[Entry, str]] = []
        for e in self.entries.values():
            if e.state != "racing":
                continue
            if e.told in ("", "looks") and e.misses() > self.k - self.need:
                e.told = "misses"
                news.append((e, "misses"))
            elif e.told in ("", "looks") and e.meets() >= self.need:
                e.told = "meets"
                news.append((e, "meets"))
            elif not e.told and len(e.played) >= FIRST_STAGE and e.misses() == 0:
                e.told = "looks"  # met on every stream so far: the search may look further
                news.append((e, "looks"))
            if e.misses() > self.k - self.need_low:
                self._out(e, f"misses the level on {e.misses()} of {len(e.played)} job streams")
        self._drop_dearer(news)
        self._revive()
        for e in self.entries.values():
            if e.state == "racing" and len(e.played) == self.k:
                e.state = "done"
        for e, event in news:
            search = self.listeners.get(e.family)
            if search is not None:
                for new in search.told(e, event, self):
                    self.add(new)

    def _drop_dearer(self, news: list[tuple[Entry, str]]) -> None:
        live = [e for e in self.entries.values() if e.state in ("racing", "done")]
        judges = by_cash(
            (e for e in live if self.feasible_so_far(e) and len(e.played) >= FIRST_STAGE),
            lambda e: e.mean_cash(),
        )  # the cheapest first: a candidate is named dearer than the leader when it is
        for e in live:
            if e.state != "racing":
                continue
            for lead in judges:
                if lead.key == e.key:
                    continue
                gap = self.dearer_by(e, lead)
                if gap is not None:
                    r, diff, se = gap
                    why = f"dearer than {lead.words} by {diff:,.0f} USD (mean over {r} job streams"
                    if self.feasible_so_far(e):
                        why += f", ± {se:,.0f})"
                    else:
                        why = f"misses the level on {e.misses()} of {r} job streams and is " + why
                        why += ")"
                    self._out(e, why, lead.key)
                    news.append((e, "dearer"))
                    break

    def looks(self) -> int:
        return max(1, math.ceil(self.k / self.chunk))

    def dearer_by(self, e: Entry, lead: Entry) -> tuple[int, float, float] | None:
        """(streams, mean gap in USD, its standard error) when ``e`` is dropped against
        ``lead`` (None: it stays): by the paired test, or, when ``e`` can no longer meet the
        level in enough streams, by its mean alone (it matters to the frontier only when
        cheaper)."""
        common = sorted(set(e.played) & set(lead.played))
        r = len(common)
        if r < 2:
            return None
        mine = np.array([e.cash(s) for s in common])
        theirs = np.array([lead.cash(s) for s in common])
        d = mine - theirs
        mean = float(d.mean())
        se = float(d.std(ddof=1) / math.sqrt(r))
        if not self.feasible_so_far(e):
            return (r, mean, se) if mean > 0 else None
        if r < FIRST_STAGE or mean <= 0:
            return None
        from scipy.special import stdtrit  # Student's t quantile: only a race needs it

        pairs = max(1, len(self.entries) - 1)
        t = float(stdtrit(r - 1, 1.0 - self.error / (self.looks() * pairs)))
        # Costs on a stream scale together with its load: the test is on the logarithm of the
        # ratio of the two costs (their difference when a cost is not positive), whose spread
        # over streams is the two options' own, not the streams' load.
        x = np.log(mine / theirs) if (mine > 0).all() and (theirs > 0).all() else d
        spread = float(x.std(ddof=1) / math.sqrt(r))
        return (r, mean, se) if float(x.mean()) > t * spread else None

    def _revive(self) -> None:
        for e in self.entries.values():
            if e.state == "out" and e.by is not None:
                lead = self.entries.get(e.by)
                if lead is not None and not self.feasible_so_far(lead) and not self.closed:
                    e.state, e.why, e.by = "racing", "", None

    # ------------------------------------------------------------------ results

    def done(self) -> list[Entry]:
        """Candidates played on every stream, in the order they entered."""
        return [e for e in self.entries.values() if e.state == "done"]

    def dropped(self) -> list[Dropped]:
        return [
            Dropped(e.words, len(e.played), e.why)
            for e in self.entries.values()
            if e.state == "out"
        ]
