"""The decision over futures (issue 37): what to buy, commit to and rent, chosen by the one rule
(``engine.verdicts``) over the futures' design (``sweep.design``) instead of one job stream.

The candidates are the options as listed and, unless the scenario says ``search: given`` or
``none``, each mix's configurations: from the best the portfolio search found on the base job
stream (``advice.portfolio``), ``advice.robust`` proposes more as the race (``advice.race``)
tells it which meet the level in enough streams. The race plays them on the streams on this
process, on local workers or on Dask (``sweep.runner``); what is known already (the base run's
plays, the portfolio search's) is priced, not played again.

The recommendation is the candidate meeting the level in at least ``service_level.confidence``
of the job streams with the least mean cash over the futures; with no futures drawn the base job
stream is the only one, the rule is the base run's, and each mix is the portfolio search's best
on it (no search over futures to make). The runner-up is the best candidate of
another family (another option as listed, or another mix), played on every stream too, so the
two answers' odds are read on the same futures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.advice import composing
from tco.simulator.advice import portfolio as mixes
from tco.simulator.advice.race import CHUNK, Entry, Race
from tco.simulator.advice.robust import MixSearch, known_start
from tco.simulator.core.fields import OptionModel
from tco.simulator.core.limits import env_number
from tco.simulator.engine.findings import Odds, SearchAccount, Standing
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import Result
from tco.simulator.engine.verdicts import rank_closest
from tco.simulator.kinds import registry
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.runs import JobRuns
from tco.simulator.sweep.design import Design, design, rental_paths_drawn
from tco.simulator.sweep.odds import Futures, closest, frontier, option_odds, robust_choice
from tco.simulator.sweep.plays import Bench, Candidate, Outcome, Task, play_task
from tco.simulator.sweep.runner import Runner, open_runner

# Jobs played in all (summed over plays, each by its kind's play_weight) a decision may spend:
# about 60-120 s of CPU at the owned queue's 10-20 us a job. A ceiling, raised by
# TCO_MAX_JOB_PLAYS, never overridden: a design whose answer and runner-up alone would cost more
# is cut to fewer job streams (the odds say how many).
JOB_PLAYS = 6_000_000
JOB_PLAYS_ENV = "TCO_MAX_JOB_PLAYS"


# The lowest confidence the race plays candidates to resolve (the frontier's points below it
# are read off the candidates played to resolve this one): a candidate that cannot meet the
# level in 80 % of the streams stops being played.
FRONTIER_FLOOR = 0.8


def budget() -> int:
    return int(env_number(JOB_PLAYS_ENV, JOB_PLAYS, "job-plays a search may spend", whole=True))


@dataclass(frozen=True)
class Pick:
    """A candidate the decision names: its name as an option of the result, the option to add
    to the result when it is not one of the scenario's (a mix's configuration), its words, and
    for a mix the knobs set."""

    name: str
    option: OptionModel | None
    words: str
    family: str
    knobs: dict[str, Any] = field(default_factory=dict)
    mix: mixes.Portfolio | None = None  # the portfolio search's best of that mix


@dataclass(frozen=True)
class Decision:
    chosen: Pick | None  # None: no candidate meets the level in enough streams
    closest: Pick | None
    runner_up: Pick | None
    odds: Odds | None  # None: no futures drawn
    standings: dict[str, Standing]  # by option name of the scenario (and the picks)
    design: Design
    # The candidates of the odds as the result names them: an option's own name, a mix's
    # configuration by its words (the answer's and the runner-up's by their mix's name).
    names: dict[str, str] = field(default_factory=dict)
    # Each mix's start (the portfolio search's best on the base job stream) as the futures
    # judged it, by the mix's name: what the base job stream alone would have picked.
    starts: dict[str, Standing] = field(default_factory=dict)


class Player:
    """Plays a race's (entry, stream) pairs: priced from runs already known on stream 0, the
    rest grouped by stream into tasks for the runner."""

    def __init__(
        self,
        bench: Bench,
        runner: Runner,
        known: dict[Hashable, tuple[Plan, JobRuns]],
        meanwhile: Callable[[], None] | None,
        progress: Callable[[int], None] | None,
    ) -> None:
        self.bench, self.runner, self.known = bench, runner, known
        self.meanwhile, self.progress = meanwhile, progress
        self.played = 0

    def __call__(self, pairs: list[tuple[Entry, int]]) -> list[Outcome]:
        out: list[Outcome | None] = [None] * len(pairs)
        by_stream: dict[int, list[int]] = defaultdict(list)
        for i, (e, s) in enumerate(pairs):
            if s == 0 and e.key in self.known:
                plan, runs = self.known[e.key]
                out[i] = self.bench.model(0).outcome(e.candidate, plan, runs)
            else:
                by_stream[s].append(i)
        tasks = [Task(s, tuple(pairs[i][0].candidate for i in at)) for s, at in by_stream.items()]
        positions = list(by_stream.values())
        meanwhile, self.meanwhile = self.meanwhile, None
        if tasks or meanwhile is not None:
            for t, outcomes in self.runner.map(tasks, meanwhile):
                for i, o in zip(positions[t], outcomes, strict=True):
                    out[i] = o
                self.played += len(outcomes)
                if self.progress is not None:
                    self.progress(self.played)
        assert all(o is not None for o in out)
        return [o for o in out if o is not None]


def listed_entries(
    prepared: Prepared, result: Result
) -> tuple[list[Entry], dict[Hashable, tuple[Plan, JobRuns]]]:
    """The options as listed, with their base runs on stream 0."""
    entries: list[Entry] = []
    known: dict[Hashable, tuple[Plan, JobRuns]] = {}
    for i, (plan, o) in enumerate(zip(prepared.plans, result.options, strict=False)):
        name = plan.option.name
        weight = registry.of(plan.option).play_weight
        entries.append(Entry(name, Candidate(name, i), name, name, weight=weight))
        known[name] = (plan, o.runs)
    return entries, known


def mix_searches(found: mixes.Search | None, scenario_search: str) -> list[MixSearch]:
    """A search over the futures for each mix whose best on the base stream meets the level."""
    if found is None or scenario_search != "portfolio":
        return []
    out = []
    for p in found.portfolios:
        mixer = found.mixers.get(p.option.name)
        if mixer is not None and p.config.meets_service_level:
            out.append(MixSearch.of(mixer, p))
    return out


def _pick(e: Entry, searches: dict[str, MixSearch]) -> Pick:
    search = searches.get(e.family)
    if search is None:
        return Pick(e.candidate.name, None, e.words, e.family)
    n, k = search.knobs_of(e.key)
    assert e.candidate.option is not None
    knobs: dict[str, Any] = {search.mixer.knob: n, composing.WAIT_KNOB: search.grid[k]}
    if search.found.order_month is not None:
        knobs[composing.ORDER_KNOB] = search.found.order_month
    knobs.update(search.found.fitted)
    return Pick(e.candidate.option.name, e.candidate.option, e.words, e.family, knobs, search.found)


def decide(
    prepared: Prepared,
    result: Result,
    book: PriceBook,
    found: mixes.Search | None,
    futures: int,
    workers: int | None = 1,
    engine: str = "local",
    scheduler: str | None = None,
    progress: Callable[[int], None] | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> Decision:
    """The decision over ``futures`` futures of ``prepared`` (0: the base job stream alone),
    ``result`` being its base run and ``found`` the portfolio search on it."""
    sc = prepared.scenario
    level = sc.service_level
    plan = design(prepared, futures)
    # Streams the finalists can afford with half the budget (the race has the other half).
    most = budget() // (4 * max(1, len(prepared.jobs)))
    capped = ""
    if plan.k > max(1, most):
        asked = plan.k * plan.m
        plan = design(prepared, max(1, most) * plan.m)
        capped = (
            f"{asked:,} futures were asked; the budget of {budget():,} job-plays affords"
            f" {plan.k:,} job streams x {plan.m} money draws ({JOB_PLAYS_ENV} raises it); "
        )
    frozen = book.frozen()
    bench = Bench(prepared, frozen, plan)
    entries, known = listed_entries(prepared, result)
    searches = {s.family: s for s in mix_searches(found, sc.search)}
    for s in searches.values():
        start = known_start(s)
        if start is not None and start[1].runs is not None:  # (else the race plays it)
            known[start[0]] = (start[1].plan, start[1].runs)
    race, chosen, runner_up = _race(
        bench, entries, known, searches, (workers, engine, scheduler), meanwhile, progress
    )
    race.stopped = capped + race.stopped
    picks = {e.key: _pick(e, searches) for e in race.entries.values()}
    named = {e.key: picks[e.key].name for e in (chosen, runner_up) if e is not None}
    standings = _standings(race, plan, chosen, named)
    starts = {}
    for family, search in searches.items():
        key = search.key(search.start_size, search.start_wait)
        if key in race.entries:
            starts[family] = _standings(race, plan, chosen, {key: family}).get(family)
    odds = None
    if plan.drawn and chosen is not None:
        odds = _odds(race, plan, chosen, runner_up, prepared, level.levels)
    best = chosen if chosen is not None and race.feasible_so_far(chosen) else None
    names = {e.candidate.name: e.words for e in race.entries.values()}
    for final in (chosen, runner_up):
        if final is not None:
            names[final.candidate.name] = picks[final.key].name
    return Decision(
        chosen=None if best is None else picks[best.key],
        closest=None if chosen is None or best is not None else picks[chosen.key],
        runner_up=None if runner_up is None else picks[runner_up.key],
        odds=odds,
        standings=standings,
        design=plan,
        names=names,
        starts={k: v for k, v in starts.items() if v is not None},
    )


def _race(
    bench: Bench,
    entries: list[Entry],
    known: dict[Hashable, tuple[Plan, JobRuns]],
    searches: dict[str, MixSearch],
    how: tuple[int | None, str, str | None],
    meanwhile: Callable[[], None] | None,
    progress: Callable[[int], None] | None,
) -> tuple[Race, Entry | None, Entry | None]:
    """Race the listed options and the mix searches over ``bench``'s design on a runner opened
    as ``how`` says (workers, engine, scheduler); the race and its two finalists."""
    prepared, plan = bench.base, bench.design
    level = prepared.scenario.service_level
    workers, engine, scheduler = how
    with open_runner(bench, play_task, workers, engine, scheduler, label="odds") as runner:
        player = Player(bench, runner, known, meanwhile, progress)
        race = Race(
            plan.k,
            level.confidence,
            max(min(level.levels), min(level.confidence, FRONTIER_FLOOR)),
            player,
            len(prepared.jobs),
            budget(),
            chunk=CHUNK,  # never the workers' count: the same rounds, the same answer, anywhere
        )
        for e in entries:
            race.add(e)
        for s in searches.values():
            if plan.drawn:
                race.listen(s)
            else:  # the base job stream alone: the portfolio search's best of each mix decides
                for e in s.start():
                    race.add(e)
        race.run()
        chosen, runner_up = _finalists(race, plan, level.confidence)
        if player.meanwhile is not None:  # nothing was played: it still runs, here
            player.meanwhile()
            player.meanwhile = None
    return race, chosen, runner_up


def _finalists(race: Race, plan: Design, confidence: float) -> tuple[Entry | None, Entry | None]:
    """The answer (or the closest) and its runner-up, each played on every stream. The
    runner-up is the best of the options as listed besides the answer (what the budget owner
    typed: the alternative a mix is measured against)."""
    chosen = _rule(race.done(), plan, confidence)
    if chosen is None:  # every candidate stopped early: the closest, finished
        contenders = [e for e in race.entries.values() if e.played]
        if not contenders:
            return None, None
        order = list(race.entries)
        best = min(
            contenders,
            key=lambda e: rank_closest(
                -e.meets() / len(e.played), e.mean_cash(), order.index(e.key)
            ),
        )
        race.finish([best.key])
        chosen = _rule(race.done(), plan, confidence)
        if chosen is None:
            return None, None
    others = [
        e
        for e in race.entries.values()
        if isinstance(e.key, str) and e.family != chosen.family and e.played
    ]
    if not others:
        return chosen, None
    meeting = [e for e in others if race.feasible_so_far(e)]
    pool = meeting or others
    second = min(
        pool,
        key=lambda e: rank_closest(
            -e.meets() / len(e.played) if not meeting else 0.0,
            e.mean_cash(),
            list(race.entries).index(e.key),
        ),
    )
    race.finish([second.key])
    rest = [e for e in race.done() if isinstance(e.key, str) and e.family != chosen.family]
    return chosen, _rule(rest, plan, confidence) or second


def futures_of(done: list[Entry], plan: Design) -> Futures:
    """The candidates played on every stream, as the futures' arrays."""
    table = {e.candidate.name: [e.played[s] for s in range(plan.k)] for e in done}
    return Futures.of_outcomes(table, plan.m)


def _rule(done: list[Entry], plan: Design, confidence: float) -> Entry | None:
    """The rule over the candidates played on every stream (the closest when none meets)."""
    if not done:
        return None
    f = futures_of(done, plan)
    i = robust_choice(f, confidence)
    return done[closest(f) if i is None else i]


def choices(done: list[Entry], chosen: Entry, plan: Design, confidence: float) -> list[Entry]:
    """One candidate per family, the choices a budget owner weighs: the answer for its own
    family, and each other family's pick by the rule among its candidates played on every
    stream (configurations of one mix are one choice, not rivals)."""
    out = [chosen]
    for family in dict.fromkeys(e.family for e in done):
        if family != chosen.family:
            pick = _rule([e for e in done if e.family == family], plan, confidence)
            if pick is not None:
                out.append(pick)
    return out


def _standings(
    race: Race, plan: Design, chosen: Entry | None, named: dict[Hashable, str]
) -> dict[str, Standing]:
    """The options as listed and the picks (``named``: a pick's key -> its name in the result)
    as the rule judged them. An option the race stopped early is put at the answer's mean cash
    plus its mean gap to the answer on the streams they share (the paired estimate the race's
    test used), so options are compared on the same futures."""
    out = {}
    ref = chosen if chosen is not None and len(chosen.played) == plan.k else None
    for e in race.entries.values():
        name = named.get(e.key, e.key if isinstance(e.key, str) else None)
        if name is None or not e.played:
            continue
        share = e.meets() / len(e.played)
        cash = e.mean_cash()
        common = [] if ref is None else sorted(set(e.played) & set(ref.played))
        if ref is not None and len(e.played) < plan.k and common:
            cash = ref.mean_cash() + float(np.mean([e.cash(s) - ref.cash(s) for s in common]))
        meets = race.feasible_so_far(e) if plan.drawn else share >= 1.0
        out[name] = Standing(meets=meets, cash_usd=cash, share=share, streams=len(e.played))
    return out


def _odds(
    race: Race,
    plan: Design,
    chosen: Entry,
    runner_up: Entry | None,
    prepared: Prepared,
    levels: tuple[float, ...],
) -> Odds:
    """The odds of the answer and its runner-up among the choices (one per family), the
    frontier over every candidate played on every stream, and the search's account."""
    from tco.simulator.sweep.known import inputs

    confidence = prepared.scenario.service_level.confidence
    done = race.done()
    f = futures_of(choices(done, chosen, plan, confidence), plan)
    shares = {n: v for n, v in f.shares().items() if v > 0}
    account = SearchAccount(
        candidates=len(race.entries),
        plays=race.plays,
        job_plays=round(race.spent),
        budget_job_plays=race.budget,
        stopped=race.stopped,
        dropped=tuple(race.dropped()),
        ran_out=race.ran_out,
        unplayed=tuple(race.unplayed),
    )
    words = {e.candidate.name: e.words for e in done}
    every = futures_of(done, plan)
    spreads = {n: _spread(every.cash[:, i]) for i, n in enumerate(every.names)}
    drawn = tuple((i.path, i.known is not None, i.source) for i in inputs(prepared))
    return Odds(
        futures=f.k * f.m,
        chosen=option_odds(f, chosen.candidate.name),
        runner_up=None if runner_up is None else option_odds(f, runner_up.candidate.name),
        best_shares=shares,
        inputs=drawn + rental_paths_drawn(prepared),
        streams=f.k,
        money_draws=f.m,
        confidence=confidence,
        frontier=tuple(frontier(every, levels, words)),
        search=account,
        spreads=spreads,
    )


def _spread(cash: np.ndarray) -> tuple[float, float, float]:
    p10, p50, p90 = np.percentile(cash, [10, 50, 90])
    return float(p10), float(p50), float(p90)
