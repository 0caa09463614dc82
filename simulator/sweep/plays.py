"""One option played on one job stream of a design (``sweep.design``) and priced under each of
the stream's money draws: the compact record (:class:`Outcome`) that odds, sweeps and the
robust search aggregate, and the stream's model (:class:`StreamModel`) that plays it.

A stream's model is the scenario with its play inputs drawn (a new job stream, GPU speeds, the
spot market), validated again and its plans resolved from the frozen prices; a money draw's
scenario (only when it changes money-only paths of the scenario, e.g. what servers fetch) is that
model's scenario with those paths set, validated again. Price groups scale the ledgers (costs
are linear in prices). Nothing here plays twice what only money changes.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import OptionModel
from tco.simulator.costs import ledger as ledgers
from tco.simulator.costs import rental_path
from tco.simulator.costs.finance import npv
from tco.simulator.engine.metrics import job_delays, measure
from tco.simulator.engine.prepared import Prepared, option_rng
from tco.simulator.engine.simulate import plan_option, play_option, revised
from tco.simulator.kinds import costing
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.runs import JobRuns
from tco.simulator.scenario.model import Scenario, validate
from tco.simulator.scenario.uncertainty import price_groups, set_path
from tco.simulator.sweep.design import Design, MoneyDraw, Stream


@dataclass(frozen=True)
class Outcome:
    """One option on one job stream: the level's verdict and figures there (a property of the
    play), and its cash and NPV under each money draw (USD over the horizon; ``cumulative``:
    per money draw, cash to the end of each month, kept for sweeps only)."""

    name: str
    meets: bool
    p95_wait_h: float
    p95_delay_h: float
    cannot_run_share: float
    late_work: float  # reference GPU-hours of jobs later than the level allows, or unable to run
    delivered_work: float  # reference GPU-hours delivered within the horizon
    cash: tuple[float, ...]
    npv: tuple[float, ...]
    cumulative: tuple[tuple[float, ...], ...] = ()

    @property
    def mean_cash(self) -> float:
        """Over the money draws: the stream's figure a race compares."""
        return float(np.mean(self.cash))


@dataclass(frozen=True)
class Candidate:
    """What to play: an option of the scenario (``index``: its place; its model then comes from
    the stream's scenario, with any money draw applied) or another one (a mix the search
    composed of them, ``option``), named ``name`` in the outcomes."""

    name: str
    index: int | None = None
    option: OptionModel | None = None


def apply_draws(data: dict[str, Any], draws: dict[str, Any]) -> None:
    """Set drawn inputs in scenario data (a GPU's speed: the market's multiplier of it)."""
    for path, value in draws.items():
        if path.startswith("speed."):
            market = data.setdefault("market", {})
            market.setdefault("speed_scale", {})[path.removeprefix("speed.")] = value
        else:
            set_path(data, path, value)


def stream_model(base: Prepared, book: PriceBook, stream: Stream) -> Prepared:
    """The model of one stream: ``base`` with the stream's job seed and play inputs."""
    if stream.index == 0:
        return base
    draws = stream.draws

    def drawn(data: dict[str, Any]) -> None:
        data["seed"] = stream.seed
        apply_draws(data, draws)

    try:
        return revised(base, book, drawn)
    except ScenarioError as exc:
        text = ", ".join(f"{p} = {v!r}" for p, v in draws.items())
        raise ScenarioError(base.file, "uncertain", f"a draw ({text}) is invalid: {exc}") from None


def money_scenario(model: Prepared, book: PriceBook, money: MoneyDraw) -> Scenario | None:
    """The stream's scenario under a money draw's own paths (None: it has none, only price
    groups, which scale ledgers)."""
    paths = money.paths
    if not paths:
        return None
    data = model.scenario.model_dump()
    apply_draws(data, paths)
    try:
        return validate(data, model.file, book, check=False)
    except ScenarioError as exc:
        text = ", ".join(f"{p} = {v!r}" for p, v in paths.items())
        raise ScenarioError(model.file, "uncertain", f"a draw ({text}) is invalid: {exc}") from None


class StreamModel:
    """A stream's model and what pricing under its money draws needs, built once per stream."""

    def __init__(self, base: Prepared, book: PriceBook, design: Design, s: int) -> None:
        self.book = book
        self.design = design
        self.model = stream_model(base, book, design.streams[s])
        self.priced = [money_scenario(self.model, book, m) for m in design.money[s]]
        words = price_groups()
        self.factors = [{words[w]: f for w, f in m.multipliers.items()} for m in design.money[s]]
        self.shocks = [np.asarray(m.shock) for m in design.money[s]]
        self._paths: dict[float, list[np.ndarray | None]] = {}

    def rental_paths(self, sigma: float) -> list[np.ndarray | None]:
        """Each money draw's rental price path at volatility ``sigma`` (None: prices keep to
        their curve), made once per volatility: every candidate renting alike shares them."""
        if sigma not in self._paths:
            self._paths[sigma] = [
                rental_path.path(shock, sigma) if shock.size and sigma else None
                for shock in self.shocks
            ]
        return self._paths[sigma]

    @property
    def jobs(self) -> int:
        return len(self.model.jobs)

    def plan_of(self, c: Candidate, scenario: Scenario | None = None) -> Plan:
        """The candidate's plan on this stream (``scenario``: under a money draw's paths)."""
        sc = scenario or self.model.scenario
        if c.index is not None:
            if scenario is None:
                return self.model.plans[c.index]
            return plan_option(sc, c.index, sc.options[c.index], self.book, self.model.file)
        assert c.option is not None
        return plan_option(sc, len(sc.options), c.option, self.book, self.model.file)

    def play(self, c: Candidate, cumulative: bool = False) -> Outcome:
        """Play the candidate on this stream and price it under each of the stream's money draws."""
        plan = self.plan_of(c)
        rng = option_rng(self.model.scenario.seed, plan.option.name, "play")
        index = c.index if c.index is not None else len(self.model.scenario.options)
        runs = play_option(self.model, plan, rng, index)
        return self.outcome(c, plan, runs, cumulative)

    def outcome(self, c: Candidate, plan: Plan, runs: JobRuns, cumulative: bool = False) -> Outcome:
        """The candidate's outcome from runs it already has on this stream (``plan``: the
        stream's own)."""
        m = self.model
        level = m.scenario.service_level
        nominal = costing.costs(plan, runs, m.edges)
        figures = measure(
            m.jobs,
            runs,
            nominal,
            m.horizon_h,
            m.scenario.discount_rate,
            level.allowed_h,
            ends=plan.project_ends,
        )
        cash, npvs, cum = [], [], []
        paths = self.rental_paths(plan.rental_volatility)
        for scenario, factors, rentals in zip(self.priced, self.factors, paths, strict=True):
            led = nominal
            if scenario is not None:  # the draw's paths: a ledger again where the plan moves
                moved = self.plan_of(c, scenario)
                if not same_plan(moved, plan):
                    led = costing.costs(moved, runs, m.edges)
            monthly = (
                ledgers.scaled(led.cash, factors, rentals) if led.cash else np.zeros(len(m.months))
            )
            rate = (scenario or m.scenario).discount_rate
            cash.append(float(monthly.sum()))
            npvs.append(npv(rate, monthly))
            if cumulative:
                cum.append(tuple(np.cumsum(monthly).tolist()))
        return Outcome(
            name=c.name,
            meets=not figures.misses(level),
            p95_wait_h=figures.waits.p95_h,
            p95_delay_h=figures.delays.p95_h,
            cannot_run_share=figures.work.cannot_run_share,
            late_work=late_work(m, runs, level.allowed_h, plan.project_ends),
            delivered_work=figures.work.delivered,
            cash=tuple(cash),
            npv=tuple(npvs),
            cumulative=tuple(cum),
        )


def same_plan(a: Plan, b: Plan) -> bool:
    """Whether two plans are equal, field by field (a money draw that leaves an option's plan as
    it was leaves its ledger too: an owned option's resale does not touch a cloud option)."""
    if type(a) is not type(b):
        return False
    return all(_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))


def _equal(x: Any, y: Any) -> bool:
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and np.array_equal(x, y)
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_equal(x[k], y[k]) for k in x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return type(x) is type(y) and all(
            _equal(getattr(x, f.name), getattr(y, f.name)) for f in dataclasses.fields(x)
        )
    try:
        return bool(x == y)
    except ValueError:  # something else holding arrays: taken as moved
        return False


def late_work(model: Prepared, runs: JobRuns, allowed_h: float, ends: bool = False) -> float:
    """Reference GPU-hours of the jobs later than the level allows (a delay over its hours,
    a job still queued at the horizon counted at its least; ``ends``: one unfinished when the
    project ends, ``job_delays``) or unable to run at all: the work a miss would have to have
    done elsewhere, on time."""
    d = job_delays(model.jobs, runs, model.horizon_h, ends)
    late = np.isnan(d) | (d > allowed_h)
    return float(model.jobs.work_ref_gpu_h[late].sum())


# Streams' models a bench keeps (the most recent first out): by jobs held, so a trace of a
# million jobs keeps two or three and a lab's thousands keep many (a race revisits streams).
KEEP_JOBS = 2_000_000


class Bench:
    """What every play needs, sent to each worker once: the base model, the frozen prices and
    the design; the streams' models are built when first asked for and kept while they fit."""

    def __init__(self, base: Prepared, book: PriceBook, design: Design) -> None:
        self.base, self.book, self.design = base, book, design
        self._models: OrderedDict[int, StreamModel] = OrderedDict()

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_models": OrderedDict()}  # built again where it is sent

    def model(self, s: int) -> StreamModel:
        found = self._models.get(s)
        if found is None:
            found = StreamModel(self.base, self.book, self.design, s)
            self._models[s] = found
            while len(self._models) > 1 and sum(m.jobs for m in self._models.values()) > KEEP_JOBS:
                self._models.popitem(last=False)
        else:
            self._models.move_to_end(s)
        return found


@dataclass(frozen=True)
class Task:
    """Candidates to play on one stream (``cumulative``: keep monthly cash, for a sweep)."""

    stream: int
    candidates: tuple[Candidate, ...]
    cumulative: bool = False


def play_task(bench: Bench, task: Task) -> list[Outcome]:
    """A task's plays, in its candidates' order (a runner's batch)."""
    model = bench.model(task.stream)
    return [model.play(c, task.cumulative) for c in task.candidates]


def play_tasks(bench: Bench, tasks: Sequence[Task]) -> list[list[Outcome]]:
    """Several tasks in one (a sweep's batch of streams)."""
    return [play_task(bench, t) for t in tasks]
