"""How much to buy or commit to: each option's numeric choices searched for the cheapest
configuration that meets the service level.

Every kind declares its own search (``Kind.search``); this module gives it an ``evaluate``
function that plays one configuration of the option on the prepared job stream (common random
numbers: the differences between configurations are theirs, not noise) and records the figures.
The scenario's own setting of each option is always evaluated, so the best is never worse than
what the user typed. The frontier is the set of configurations no other beats on both cash and
p95 wait.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from tco.pricing.book import PriceBook
from tco.simulator.core.fields import OptionModel
from tco.simulator.engine.metrics import measure
from tco.simulator.engine.prepared import Prepared, option_rng
from tco.simulator.engine.simulate import plan_option, play_option
from tco.simulator.engine.verdicts import cheapest_of
from tco.simulator.kinds import costing, registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.runs import JobRuns

GIVEN = "as given"  # the knob of the scenario's own configuration


@dataclass(frozen=True)
class Config:
    """One evaluated configuration of one option."""

    option: str
    knobs: dict[str, Any]
    cash_usd: float
    npv_usd: float
    p95_wait_h: float
    p95_delay_h: float
    cannot_run_share: float
    meets_service_level: bool
    on_frontier: bool = False
    words: str = ""  # the configuration as its plan describes it


Evaluate = Callable[[OptionModel, dict[str, Any]], Config]


@dataclass
class Played:
    """A configuration's figures with the plan and runs behind them (a search may fit a part
    of it to the usage it got). ``runs`` is None once a search let go of them to bound its
    memory (``portfolio.Mixer``: the same configuration plays them again, identically)."""

    config: Config
    plan: Plan
    runs: JobRuns | None


def play_config(
    prepared: Prepared, index: int, option: OptionModel, book: PriceBook, knobs: dict[str, Any]
) -> Played:
    """``option`` (at position ``index`` of the scenario's options, for its context and its
    messages) played on the prepared jobs, with its ledger and figures."""
    level = prepared.scenario.service_level
    plan = plan_option(prepared.scenario, index, option, book, prepared.file)
    rng = option_rng(prepared.scenario.seed, option.name, "play")
    runs = play_option(prepared, plan, rng, index)
    led = costing.costs(plan, runs, prepared.edges)
    m = measure(
        prepared.jobs,
        runs,
        led,
        prepared.horizon_h,
        prepared.scenario.discount_rate,
        late_after_h=level.allowed_h,
        ends=plan.project_ends,
        taxed=None if plan.tax is None else plan.tax.after_tax,
    )
    config = Config(
        option=option.name,
        knobs=knobs,
        cash_usd=m.cash_usd,
        npv_usd=m.npv_usd,
        p95_wait_h=m.waits.p95_h,
        p95_delay_h=m.delays.p95_h,
        cannot_run_share=m.work.cannot_run_share,
        meets_service_level=not m.misses(level),
        words=plan.description,
    )
    return Played(config, plan, runs)


def evaluator(prepared: Prepared, index: int, book: PriceBook) -> Evaluate:
    """Play option ``index`` in another configuration on the prepared jobs; memoised by knobs."""
    seen: dict[str, Config] = {}

    def evaluate(option: OptionModel, knobs: dict[str, Any]) -> Config:
        key = repr(sorted(knobs.items()))
        if key not in seen:
            seen[key] = play_config(prepared, index, option, book, knobs).config
        return seen[key]

    return evaluate


def frontier(configs: list[Config]) -> list[Config]:
    """Configurations that meet the level and that no other meeting it beats on both cash and
    p95 delay (one that misses the level is no point of the choice)."""
    meeting = [c for c in configs if c.meets_service_level]

    def dominated(c: Config) -> bool:
        return not c.meets_service_level or any(
            o.cash_usd <= c.cash_usd
            and o.p95_delay_h <= c.p95_delay_h
            and (o.cash_usd < c.cash_usd or o.p95_delay_h < c.p95_delay_h)
            for o in meeting
        )

    return [replace(c, on_frontier=not dominated(c)) for c in configs]


def optimize(prepared: Prepared, book: PriceBook) -> list[Config]:
    """Every configuration evaluated, option by option (the scenario's own first in each)."""
    out: list[Config] = []
    for i, plan in enumerate(prepared.plans):
        evaluate = evaluator(prepared, i, book.frozen())
        kind = registry.of(plan.option)
        own = evaluate(plan.option, {GIVEN: True})
        out.append(own)
        for c in kind.search(plan.option, prepared, i, evaluate) if kind.can(Can.SEARCH) else []:
            same = (c.cash_usd, c.p95_delay_h) == (own.cash_usd, own.p95_delay_h)
            if not same and all(c.knobs != o.knobs for o in out if o.option == c.option):
                out.append(c)
    return frontier(out)


def search_option(prepared: Prepared, index: int, book: PriceBook) -> list[Config]:
    """One option's searched configurations (not its own setting)."""
    plan = prepared.plans[index]
    evaluate = evaluator(prepared, index, book.frozen())
    kind = registry.of(plan.option)
    return kind.search(plan.option, prepared, index, evaluate) if kind.can(Can.SEARCH) else []


def best(configs: list[Config]) -> Config | None:
    """The cheapest configuration meeting the service level (``engine.verdicts``: to the cent,
    the first evaluated on a tie)."""
    return cheapest_of(configs, lambda c: c.cash_usd, lambda c: c.meets_service_level)
