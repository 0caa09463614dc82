"""The answer is a mix (issue 24): owned servers for the base load, a rental for the peaks and
for the months before the servers arrive, and a commitment sized to what the rental is always
busy with. The search composes such mixes from the options the scenario lists and finds the
cheapest that meets the service level.

For every pair (base, target) of listed options that a composing kind makes a mix of
(``Kind.compose``; the base sized by its kind, ``Kind.size``), the target one of the base's two
cheapest rentals that meet the level as listed (``rentals``: for the answer; ``tco optimize``
tries every pair), on the prepared jobs (common random numbers: every configuration sees the same
arrivals and work):

1. Sizes of the base on a ladder from one step above its floor to twice its size as written,
   doubled further while the cheapest is the largest.
2. At each size, the longest wait before a job goes to the target that still meets the level:
   waiting longer sends fewer jobs to the target, so it costs less, and the delays grow (a job
   that waited ``w`` is late by at least ``w``). Twice the level's hours is tried first (if it
   meets, that is the size's wait), then zero (if it misses, no wait meets), then the interval
   between them is bisected.
3. Cost over sizes is taken as unimodal (capex grows, rented hours fall): the cheapest size on
   the ladder is refined by bisection between its neighbours.
   Cost does not always fall with the wait (the owned queue can tip): at the best size, shorter
   waits are tried a step (L/8) at a time while each meets the level for less.
4. At the best size and wait, the target is fitted to the usage it got (``Kind.fit_to_usage``:
   a commitment at the newsvendor level of the residual hourly usage) and played once more.
5. The best mix of all, at its size and wait, is played with its base ordered later (the months
   its queueing kind offers, every half year: renting until then), in case waiting pays.

The search is bounded: at most ``MAX_EVALUATIONS`` plays, and at most ``MAX_JOB_PLAYS`` jobs
played in all (a scenario of 42,000 jobs gets 35 plays), shared equally among its mixes: a
ceiling no floor overrides (a mix whose share is under ``MIN_EVALUATIONS_PER_MIX`` plays is not
searched: too few to find a size and a wait); the number spent is reported with the answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tco.pricing.book import PriceBook
from tco.simulator.advice import site_limit
from tco.simulator.advice.composing import ORDER_KNOB, WAIT_KNOB, mix_name, pairs
from tco.simulator.advice.optimize import Config, Played, frontier, optimize, play_config
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import OptionModel
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import Result
from tco.simulator.engine.verdicts import by_cash, cents, cheapest_of, rank
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.registry import Mix, QueueingKind
from tco.simulator.kinds.runs import JobRuns
from tco.simulator.kinds.site import SiteFull

WAIT_FRACTIONS = (2.0, 0.0)  # of the level's hours: the longest and the shortest wait tried
WAIT_BISECTIONS = 3
WAIT_STEP = 1 / 8  # of the level's hours: a shorter wait tried below the best (``shorter``)
SIZE_LADDER = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0)  # of the size as written
MAX_EVALUATIONS = 240
MIN_EVALUATIONS_PER_MIX = 4
# Plays cost about in proportion to the jobs: a run's plays are bounded to this many job-plays
# (about 10 s of CPU on this machine), and shared equally among its mixes.
MAX_JOB_PLAYS = 1_500_000
MAX_ORDER_MONTHS = 6  # later order months tried for the best mix
TARGETS = 2  # rentals a base is mixed with for the answer: its cheapest that meet the level


@dataclass(frozen=True)
class Portfolio:
    """The cheapest configuration of one mix that meets the level (or the closest)."""

    option: OptionModel  # the mix as one option of its composing kind, ready to simulate
    base: str
    target: str
    base_kind: str
    target_kind: str
    size_knob: str
    size: int
    wait_h: float  # how long a job waits for the base before it goes to the target
    order_month: int | None  # the base ordered then (None: as the base says)
    fitted: dict[str, Any]  # the target's knobs fitted to its usage (a commitment)
    knobs: dict[str, Any]  # all of them, as frontier.csv's columns
    config: Config
    evaluations: int
    words: str  # the mix in a sentence
    base_words: str  # its base part alone (the servers), for the answer's first line


@dataclass(frozen=True)
class Search:
    """Every mix searched: the best of each, every configuration evaluated, how many plays, and
    the mixers that played them (by mix name: what they played on the base job stream is reused
    when the mix is searched again over the futures)."""

    portfolios: tuple[Portfolio, ...]
    configs: tuple[Config, ...]
    evaluations: int
    mixers: dict[str, Mixer] = dataclasses.field(default_factory=dict)
    # The best mix as the search would find it with power to spare, when the site's power
    # held it at its largest size (by mix name), with the kW it would draw beyond the site's:
    # what more power would save, and how much power that is.
    more_power: dict[str, tuple[Portfolio, float]] = dataclasses.field(default_factory=dict)

    def best(self) -> Portfolio | None:
        return cheapest(self.portfolios)


def cheapest(portfolios: Sequence[Portfolio]) -> Portfolio | None:
    """The cheapest mix that meets the level (``engine.verdicts``: to the cent, the first
    searched on a tie)."""
    return cheapest_of(
        portfolios, lambda p: p.config.cash_usd, lambda p: p.config.meets_service_level
    )


# Job runs a mix's search keeps: a JobRuns holds 13 arrays a job, mostly of 8 bytes
# (kinds/runs.py), some 100 bytes a job run: 4 M of them about 400 MB.
KEEP_RUNS_JOBS = 4_000_000


class Mixer:
    """Plays configurations of one mix, memoised, within a budget."""

    def __init__(
        self,
        prepared: Prepared,
        book: PriceBook,
        composer: registry.Kind[Any, Any],
        mix: Mix,
        budget: int,
    ) -> None:
        self.prepared, self.book, self.composer, self.mix = prepared, book, composer, mix
        self.name = mix_name(mix.base.name, mix.target.name)
        size = registry.of(mix.base).size(mix.base)
        assert size is not None
        self.knob, self.given, self.floor, self.limit = size
        sized = lambda n: self.option(n, 0.0, {})  # noqa: E731 (the mix at a size)
        fits = site_limit.within(prepared, book, sized, self.floor, self.limit)
        self.site_bound, self.limit = fits < self.limit, fits
        self.budget = budget
        self.seen: dict[tuple[Any, ...], Played] = {}
        self.level_h = prepared.scenario.service_level.allowed_h
        # Runs kept in memory (job runs, over the configurations played): past it, only the
        # best configuration keeps its runs (0.13.0 kept every one: 2.4 million jobs over 120
        # months grew to 7.4 GB and ended in a MemoryError).
        self.keep_jobs = KEEP_RUNS_JOBS

    @property
    def spent(self) -> int:
        return len(self.seen)

    def option(
        self, n: int, wait_h: float, fitted: dict[str, Any], order: int | None = None
    ) -> OptionModel:
        m = Mix(
            base=self.mix.base,
            target=self.mix.target,
            wait_h=wait_h,
            base_knobs={self.knob: n},
            target_knobs=fitted,
            order_month=order,
        )
        made = self.composer.compose(m, self.name)
        assert made is not None
        return made

    def play(
        self,
        n: int,
        wait_h: float,
        fitted: dict[str, Any] | None = None,
        order: int | None = None,
    ) -> Played | None:
        """One configuration (None: over budget, or one the parts' kinds refuse)."""
        fitted = fitted or {}
        wait_h = float(f"{wait_h:.3g}")  # a figure a person would type
        key = (n, wait_h, tuple(sorted(fitted.items())), order)
        if key in self.seen:
            return self.seen[key]
        if self.spent >= self.budget:
            return None
        try:
            option = self.option(n, wait_h, fitted, order)
        except ValueError:
            return None
        knobs = {self.knob: n, WAIT_KNOB: wait_h, **fitted}
        if order is not None:
            knobs[ORDER_KNOB] = order
        index = len(self.prepared.scenario.options)
        try:
            self.seen[key] = play_config(self.prepared, index, option, self.book, knobs)
        except SiteFull:
            return None  # more servers than the site powers
        except ScenarioError:
            if order is None:
                raise
            return None  # ordered too late for the horizon (the kind says so)
        self._let_go()
        return self.seen[key]

    def _let_go(self) -> None:
        """Drop the runs of all but the best configuration when they hold more job runs than
        ``keep_jobs`` (in place: every reference to a configuration sees it)."""
        held = [p for p in self.seen.values() if p.runs is not None]
        if len(held) * len(self.prepared.jobs) <= self.keep_jobs:
            return
        best = min(self.seen.values(), key=_rank)
        for p in held:
            if p is not best:
                p.runs = None

    def with_runs(self, p: Played) -> tuple[Plan, JobRuns]:
        """``p``'s plan and runs, played again (identically: the same jobs and seed) when
        they were let go."""
        if p.runs is not None:
            return p.plan, p.runs
        index = len(self.prepared.scenario.options)
        again = play_config(self.prepared, index, p.plan.option, self.book, dict(p.config.knobs))
        assert again.runs is not None
        return again.plan, again.runs

    def cheapest_at(self, n: int) -> Played | None:
        """The longest wait (so the least rented) that meets the level at size ``n``. Delays
        grow with the wait, so: the longest tried first (it meets: done), then none at all (it
        misses: no wait meets), then the interval between them is bisected."""
        longest, shortest = WAIT_FRACTIONS[0] * self.level_h, 0.0
        top = self.play(n, longest)
        if top is None or top.config.meets_service_level:
            return top
        bottom = self.play(n, shortest)
        if bottom is None or not bottom.config.meets_service_level:
            return min((p for p in (top, bottom) if p is not None), key=_rank)
        lo, hi = shortest, longest  # lo meets, hi misses
        for _ in range(WAIT_BISECTIONS):
            mid = self.play(n, (lo + hi) / 2)
            if mid is None or mid.config.knobs[WAIT_KNOB] in (lo, hi):
                break
            if mid.config.meets_service_level:
                lo = mid.config.knobs[WAIT_KNOB]
            else:
                hi = mid.config.knobs[WAIT_KNOB]
        return min(
            (p for p in self.seen.values() if p.config.knobs[self.knob] == n),
            key=_rank,
        )

    def shorter(self, best: Played) -> Played:
        """``best`` or a shorter wait at its size, stepping down ``WAIT_STEP`` of the level's
        hours at a time while each step meets the level and costs less: a longer wait rents
        less but leaves more in the owned queue, which can tip (itp-cluster: 117 h cost more
        than 108 h on 15 of 25 job streams), so the longest wait that meets is not always the
        cheapest. Within the budget."""
        if not best.config.meets_service_level:
            return best
        n, wait_h = best.config.knobs[self.knob], float(best.config.knobs[WAIT_KNOB])
        step = WAIT_STEP * self.level_h
        while wait_h - step >= 0:
            p = self.play(n, wait_h - step)
            if p is None or not p.config.meets_service_level or _rank(p) >= _rank(best):
                return best
            best, wait_h = p, float(p.config.knobs[WAIT_KNOB])
        return best

    def ladder(self) -> list[int]:
        """Sizes from one above the floor to twice the span as written (at least two)."""
        span = max(self.given - self.floor, 1)
        steps = {self.floor + max(1, round(f * span)) for f in SIZE_LADDER}
        steps.add(self.floor + 2 * span)
        return sorted(s for s in steps if self.floor < s <= self.limit)

    def search(self) -> Portfolio | None:
        at: dict[int, Played] = {}
        for n in self.ladder():
            p = self.cheapest_at(n)
            if p is not None:
                at[n] = p
        if not at:
            return None
        # The cheapest at the top of the ladder: the ladder goes on, doubling, while that holds.
        while max(at) == min(at, key=lambda n: _rank(at[n])) and 2 * max(at) <= self.limit:
            top = self.floor + 2 * (max(at) - self.floor)
            q = self.cheapest_at(top)
            if q is None:
                break
            at[top] = q
        sizes = sorted(at)
        best_n = min(sizes, key=lambda n: _rank(at[n]))
        i = sizes.index(best_n)
        lo = sizes[i - 1] if i > 0 else self.floor
        hi = sizes[i + 1] if i + 1 < len(sizes) else best_n
        # Bisection of a unimodal cost between the best's neighbours: the better half is kept.
        while hi - lo > 2:
            left, right = (2 * lo + hi) // 3, (lo + 2 * hi) // 3
            for m in (left, right):
                if m not in at and m > self.floor:
                    q = self.cheapest_at(m)
                    if q is not None:
                        at[m] = q
            if left not in at or right not in at:
                break
            if _rank(at[left]) <= _rank(at[right]):
                hi = right
            else:
                lo = left
        best = self.shorter(min(at.values(), key=_rank))
        n, wait_h = best.config.knobs[self.knob], best.config.knobs[WAIT_KNOB]
        for plan, runs in self.composer.parts_of(*self.with_runs(best))[1:]:
            kind = registry.of(plan.option)
            if not kind.can(Can.FIT):
                continue
            fitted = kind.fit_to_usage(plan, runs, self.prepared.edges)
            if fitted:
                refit = self.play(n, wait_h, fitted)
                if refit is not None and _rank(refit) < _rank(best):
                    best = refit
        return self.portfolio(best)

    def portfolio(self, best: Played) -> Portfolio:
        knobs = dict(best.config.knobs)
        n, wait_h = knobs[self.knob], knobs[WAIT_KNOB]
        order = knobs.get(ORDER_KNOB)
        fitted = {k: v for k, v in knobs.items() if k not in (self.knob, WAIT_KNOB, ORDER_KNOB)}
        (base_plan, _), *rest = self.composer.parts_of(*self.with_runs(best))
        rented = "; ".join(p.description for p, _ in rest)
        until = "until they are in service"
        if order is not None:
            until = f"until they are in service (ordered in month {order + 1})"
        words = (
            f"{base_plan.description}; {rented} for the jobs that wait {wait_h:g} h for them"
            f" and for every job {until}"
        )
        return Portfolio(
            option=self.option(n, wait_h, fitted, order),
            base=self.mix.base.name,
            target=self.mix.target.name,
            base_kind=registry.of(self.mix.base).name,
            target_kind=registry.of(self.mix.target).name,
            size_knob=self.knob,
            size=int(n),
            wait_h=float(wait_h),
            order_month=order,
            fitted=fitted,
            knobs=knobs,
            config=best.config,
            evaluations=self.spent,
            words=words,
            base_words=base_plan.description,
        )

    def ordered_later(self, found: Portfolio) -> Portfolio:
        """``found`` with its base ordered in each later month its kind offers, if one is
        cheaper and still meets the level (the budget allowing: a few plays more)."""
        kind = registry.of(self.mix.base)
        if not isinstance(kind, QueueingKind):
            return found
        self.budget = self.spent + MAX_ORDER_MONTHS
        n, wait_h, fitted = found.size, found.wait_h, found.fitted
        best: Played | None = None
        horizon = self.prepared.scenario.horizon_months
        for m in kind.months_to_buy(self.mix.base, horizon)[1 : MAX_ORDER_MONTHS + 1]:
            p = self.play(n, wait_h, fitted, m)
            meets = p is not None and p.config.meets_service_level
            if meets and (best is None or _rank(p) < _rank(best)):  # type: ignore[arg-type]
                best = p
        if best is None or cents(best.config.cash_usd) >= cents(found.config.cash_usd):
            return dataclasses.replace(found, evaluations=self.spent)
        return self.portfolio(best)


def _rank(p: Played) -> tuple[bool, float, float]:
    """The rule's order (``engine.rule.rank``), a tie going to the least late."""
    c = p.config
    return rank(c.meets_service_level, c.cash_usd, c.p95_delay_h)


def most_job_plays(prepared: Prepared) -> int:
    """The most job-plays the search may spend on ``prepared`` (``advice.ahead``)."""
    if prepared.scenario.search == "none":
        return 0
    return min(MAX_JOB_PLAYS, len(prepared.jobs) * MAX_EVALUATIONS)


def budget(jobs: int, mixes: int) -> int:
    """Plays each of ``mixes`` mixes may use, for a scenario of ``jobs`` jobs (0: too few to
    search one)."""
    total = min(MAX_EVALUATIONS, MAX_JOB_PLAYS // max(jobs, 1))
    each = total // max(mixes, 1)
    return each if each >= MIN_EVALUATIONS_PER_MIX else 0


def rentals(pairs_: list[tuple[Any, Mix]], result: Result) -> list[tuple[Any, Mix]]:
    """The mixes whose rental is one of the ``TARGETS`` cheapest of their base's rentals that
    meet the level as listed (the base run's cash, by the rule): a mix rents for its overflow
    what the rental charges for the whole work, so a dearer rental makes a dearer mix."""
    out = []
    for base in dict.fromkeys(m.base.name for _, m in pairs_):
        mine = [(c, m) for c, m in pairs_ if m.base.name == base]
        ranked = by_cash(
            (x for x in mine if result.verdicts[x[1].target.name].meets),
            lambda x: result.option(x[1].target.name).total_cash_usd,
        )
        out += ranked[:TARGETS]
    return [x for x in pairs_ if x in out]  # in the scenario's order


def search(prepared: Prepared, book: PriceBook, result: Result | None = None) -> Search:
    """Every mix of the scenario's options searched, within the budget (``budget``); with the
    base run's ``result``, only the mixes of each base's cheapest rentals (``rentals``)."""
    frozen = book.frozen()
    found: list[Portfolio] = []
    configs: list[Config] = []
    mixers: dict[str, Mixer] = {}
    spent = 0
    todo = pairs(prepared.scenario.options) if prepared.scenario.search != "none" else []
    if result is not None:
        todo = rentals(todo, result)
    each = budget(len(prepared.jobs), len(todo))
    for composer, mix in todo if each else []:
        mixer = Mixer(prepared, frozen, composer, mix, each)
        p = mixer.search()
        if p is not None:
            found.append(p)
            mixers[p.option.name] = mixer
    best = cheapest(found)
    if best is not None:  # the best mix, ordered later (renting until then)?
        later = mixers[best.option.name].ordered_later(best)
        found[found.index(best)] = later
    freed = lambda held: Mixer(  # noqa: E731 (the held mix again, with power to spare)
        site_limit.without_site(prepared, frozen), frozen, held.composer, held.mix, each
    )
    more, spent = site_limit.more_power(best, mixers, freed)
    for mixer in mixers.values():
        spent += mixer.spent
        configs.extend(x.config for x in mixer.seen.values())
    return Search(tuple(found), tuple(configs), spent, mixers, more)


def optimize_with_mixes(prepared: Prepared, book: PriceBook) -> list[Config]:
    """``tco optimize``: every option's own search, then every mix's configurations, with the
    frontier drawn through all of them."""
    own = optimize(prepared, book)
    mixes = search(prepared, book).configs
    return frontier([*own, *mixes])
