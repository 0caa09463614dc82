"""The fixed lifecycle of a run: scenario -> prepared model -> simulation -> advice -> result.

- ``engine.simulate``: :func:`prepare` (prices resolved once, the trace read once, jobs drawn)
  and the pure simulation of every option.
- :func:`simulate`: the engine's result with its advice: each option judged against the service
  level, the recommendation (with resized owned clusters), the break-even volumes, and what the
  recommendation depends on beyond prices (``advice.what_if``). A sweep's replications skip
  the advice (``advise=False``).

Random streams: see ``engine.prepared`` (:func:`option_rng`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from tco.pricing.book import PriceBook
from tco.simulator.advice import ahead
from tco.simulator.advice.breakeven import break_even_volumes
from tco.simulator.advice.candidates import with_candidates
from tco.simulator.advice.decision import decide
from tco.simulator.advice.portfolio import search
from tco.simulator.advice.recommendation import recommend, with_picks
from tco.simulator.advice.what_if import what_ifs
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine import allowance
from tco.simulator.engine.findings import Considered
from tco.simulator.engine.prepared import Prepared, option_rng
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import prepare, resolve_plans, simulate_options, version
from tco.simulator.scenario.candidates import Candidates
from tco.simulator.scenario.model import Scenario, read_scenario_file, validate
from tco.simulator.scenario.yaml_input import parse_yaml
from tco.simulator.sweep.known import inputs

__all__ = [
    "OddsRun",
    "Prepared",
    "load_file",
    "option_rng",
    "prepare",
    "resolve_plans",
    "run",
    "run_file",
    "simulate",
    "version",
]


@dataclass(frozen=True)
class OddsRun:
    """Where and how the odds of an answer are computed: ``futures`` (None: the scenario's
    ``odds.futures``; 0: none), on ``workers`` local processes (None: this process until the
    plays have taken a few seconds of CPU, then the CPUs', ``sweep.runner.GrowingRunner``) or
    on Dask (``engine``, ``scheduler``); ``progress`` is called with the futures done so far."""

    futures: int | None = None
    workers: int | None = 1
    engine: str = "local"
    scheduler: str | None = None
    progress: Callable[[int], None] | None = None


def simulate(
    prepared: Prepared,
    seed: int | None = None,
    progress: Callable[[str], None] | None = None,
    advise: bool = True,
    book: PriceBook | None = None,
    odds: OddsRun | None = None,
) -> Result:
    """Simulate every option on the same job stream and, with ``advise``, add the advice: the
    catalog's candidates when the scenario asks for them (``advice.candidates``), the decision
    over futures of the uncertain inputs (``advice.decision``: the options as listed
    and the mixes the portfolio search composes, raced on common job streams), resized clusters,
    break-even volumes and what-ifs (``book``: the prices to re-plan with)."""
    with allowance.allowing(prepared.file):
        if advise:
            ahead.check(prepared)  # a run past the limit is refused before it plays
        result = simulate_options(prepared, seed, progress)
        if not advise:
            return result
        return _advised(prepared, result, seed, book, odds)


def _advised(
    prepared: Prepared,
    result: Result,
    seed: int | None,
    book: PriceBook | None,
    odds: OddsRun | None,
) -> Result:
    """``result`` (the options as listed, played) with the advice ``simulate`` describes."""
    considered: tuple[Considered, ...] = ()
    if prepared.scenario.candidates is not None:  # options the user did not list
        prepared, result, considered = with_candidates(
            prepared, result, book or PriceBook("snapshot")
        )
    if seed is not None:
        prepared = prepared.with_seed(seed)
    # Advice re-plans with the prices this run resolved, never asking AWS again.
    frozen = (book or PriceBook("snapshot")).frozen()
    how = odds or OddsRun()
    try:
        futures = prepared.scenario.odds.count() if how.futures is None else how.futures
    except ValueError as exc:
        raise ScenarioError(prepared.file, "odds.futures", str(exc)) from None
    if futures and not inputs(prepared):
        futures = 0  # nothing is uncertain: the futures would all be the base run
    found = search(prepared, frozen, result)
    decision = decide(
        prepared,
        result,
        frozen,
        found,
        futures,
        how.workers,
        how.engine,
        how.scheduler,
        how.progress,
    )
    prepared, result = with_picks(prepared, result, decision, frozen)
    result = replace(result, standings=decision.standings)
    changes, flips = what_ifs(prepared, result, frozen)
    rec = recommend(prepared, result, frozen, decision, found)
    return replace(
        result,
        recommendation=rec,
        break_even_volumes=tuple(break_even_volumes(prepared, result)),
        what_ifs=tuple(changes),
        flip_points=tuple(flips),
        candidates=considered,
    )


def run(
    scenario: Scenario,
    book: PriceBook | None = None,
    file: str = "<scenario>",
    sha256: str = "",
    progress: Callable[[str], None] | None = None,
) -> Result:
    """Prepare and simulate a scenario in one call."""
    return simulate(prepare(scenario, book, file, sha256), progress=progress, book=book)


def load_file(
    path: str | Path,
    book: PriceBook | None = None,
    seed: int | None = None,
    months: int | None = None,
    search: str | None = None,
    catalog: bool = False,
) -> tuple[Scenario, str]:
    """A scenario file, validated (optionally with another seed, horizon or search: what the
    recommendation chooses from; ``catalog``: candidates from the catalog too, unless the
    scenario says which), and its SHA-256."""
    text, digest = read_scenario_file(path)
    scenario = validate(parse_yaml(text, str(path)), str(path), book or PriceBook())
    updates: dict[str, object] = {}
    if catalog and scenario.candidates is None:
        updates["candidates"] = Candidates()
    if search is not None:
        updates["search"] = search
    if seed is not None:
        updates["seed"] = seed
    if months is not None:
        updates["horizon_months"] = months
    if updates:
        scenario = scenario.model_copy(update=updates)
    return scenario, digest


def run_file(
    path: str | Path,
    book: PriceBook | None = None,
    seed: int | None = None,
    months: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Result:
    """Load a scenario file (optionally with another seed or horizon) and run it."""
    book = book or PriceBook()
    scenario, digest = load_file(path, book, seed, months)
    return run(scenario, book, str(path), digest, progress)
