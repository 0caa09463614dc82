"""The registry of option kinds: each kind of option is one module that registers itself here.

A kind says, for its options: the scenario section (a pydantic model whose ``kind`` is
``Literal["<name>"]``), how to check the names an option refers to, how to resolve it into a
:class:`~tco.simulator.kinds.plan.Plan` with its prices, how to play the job stream on that
plan (with a random generator of its own), its cash and accounting ledgers, and the tables it
adds to reports. Scenario validation, the run, summary.json and the reports ask the registry;
nothing switches on a kind's name. (SkyPilot's ``sky/utils/registry.py`` and Ciw's injected
classes are the models.)

Adding a kind: one module with a :class:`Kind` subclass decorated with :func:`register`, and one
import line in ``tco/simulator/kinds/__init__.py``. A test (or a notebook) can register a kind of
its own with :func:`registered`, which removes it again afterwards.
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.core.fields import OptionModel
from tco.simulator.costs import ledger as ledger_module
from tco.simulator.costs.data import DataSpec
from tco.simulator.costs.ledger import Ledger
from tco.simulator.kinds.capabilities import NOT_DECLARED, Can
from tco.simulator.kinds.market import Market
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.proposals import Load, Proposal, Where
from tco.simulator.kinds.runs import JobPlaces, JobRuns, declared_measures, forget_measures
from tco.simulator.kinds.site import Existing, Site
from tco.simulator.workload.calibration import GpuSpeed, speed_of
from tco.simulator.workload.jobs import Jobs

if typing.TYPE_CHECKING:
    import pandas as pd

Opt = TypeVar("Opt", bound=OptionModel)
P = TypeVar("P", bound=Plan)


# The scenario's ``uncertain:`` entries, as a kind's caveats read them (what the odds draw).
Drawn = tuple[Any, ...]


@dataclass(frozen=True, kw_only=True)
class Context:
    """What checking or resolving an option may use: where the option is (``file`` and ``where``,
    e.g. ``options[2]``, for messages), when and where the scenario runs, and the price book."""

    file: str
    where: str
    start: str  # first month, YYYY-MM
    horizon_months: int
    region: str
    book: PriceBook
    speed_overrides: Mapping[str, float] = field(default_factory=dict)  # GPU -> score
    speed_source: str = ""
    # The scenario's options by name, with their positions (a hybrid option refers to others).
    options: Mapping[str, tuple[int, OptionModel]] = field(default_factory=dict)
    market: Market = field(default_factory=Market)  # spot interruptions and capacity
    data: DataSpec | None = None  # the scenario's data: block (where a kind's data lives)
    site: Site | None = None  # what the site can power (site:)

    def other(self, index: int) -> Context:
        """The context of the option at ``index`` of the same scenario."""
        return dataclasses.replace(self, where=f"options[{index}]")

    def speed(self, gpu: str) -> GpuSpeed:
        """The speed of ``gpu`` for this scenario (its override, else calibrated), times the
        market's drawn speed of it (``Market.speed_scale``)."""
        s = speed_of(gpu, self.speed_overrides, self.speed_source)
        k = self.market.speed_scale.get(gpu, 1.0)
        if k == 1.0:
            return s
        return dataclasses.replace(
            s,
            scores={key: v * k for key, v in s.scores.items()},
            source=f"{s.source}; x {k:.4g} (market: speed_scale)",
        )


@dataclass(frozen=True)
class KnownInput:
    """An input a kind knows to be uncertain for one of its options, for the odds of every
    answer (``sweep.known``): its name, declared by the kind's module in
    ``core.uncertain_names`` (``odds: {without: [name]}`` leaves it out), the path it is
    drawn at, its range (triangular on low, mode, high; uniform when ``mode`` is None;
    lognormal when ``sigma`` is given) and where the range comes from, in a reader's words."""

    name: str
    path: str
    low: float
    high: float
    mode: float | None
    source: str
    money: bool = False  # it moves money only (a ledger's input): futures reprice, not replay
    sigma: float | None = None  # lognormal of median ``mode`` and this sigma (low, high: none)


@dataclass(frozen=True)
class WhatIfInput:
    """An input of a kind's options that the what-ifs change, one change at a time: its name in
    words, the changes tried (numbers: a fraction of the input's value, or in ``unit`` when
    given; words: a basis, e.g. "book"), and how one change is applied to an option's data
    (``apply(option, change) -> whether the option has the input``)."""

    name: str
    changes: tuple[float | str, ...]
    apply: Callable[[dict[str, Any], float | str], bool]
    unit: str | None = None  # e.g. "months"; None: a fraction
    words: Mapping[float, str] = field(default_factory=dict)  # changes said in words (-1: "none")
    # False: the input moves money only (a ledger's input, not a play's): a change keeps every
    # option's runs and rebuilds the ledgers, as re-playing would give the same runs.
    replays: bool = True


@dataclass(frozen=True)
class Sale:
    """What an option sells: USD back at the horizon and earlier (a refresh's old servers), and
    how it is valued, the range the used market's band gives the sale at the horizon, and what
    of it was bought and sold within a year."""

    at_horizon_usd: float
    before_usd: float
    basis: str  # in the answer's words, e.g. "book value"
    band_usd: tuple[float, float] | None = None  # the horizon's sale at the ends of its band
    # Hardware sold within a year of its delivery (bought to be resold): what it cost, and
    # what selling it brings back (part of the two above).
    quick_bought_usd: float = 0.0
    quick_usd: float = 0.0


@dataclass(frozen=True)
class UnitPrice:
    """A price a kind's ledger multiplies by a quantity, which a spreadsheet may expose as an
    input: the ledger category, USD per unit, the quantity's column label and unit."""

    category: str
    usd_per_unit: float
    quantity: str  # the quantity's column, e.g. "electricity used (kWh, PUE included)"
    unit: str  # e.g. "kWh"
    label: str  # the price in words, as the plan's quote names it (e.g. "electricity")
    share: bool = False  # a share (of the server price, say), not money: no currency to convert


@dataclass(frozen=True)
class Mix:
    """A portfolio of two of the scenario's options, as a composing kind makes it one option:
    ``base`` (its size knob at ``base_knobs``) takes the work first; a job that has waited
    ``wait_h`` for it goes to ``target`` (at ``target_knobs``)."""

    base: OptionModel
    target: OptionModel
    wait_h: float
    base_knobs: Mapping[str, Any] = field(default_factory=dict)
    target_knobs: Mapping[str, Any] = field(default_factory=dict)
    order_month: int | None = None  # the base ordered from then, rented until it arrives


class Kind(abc.ABC, Generic[Opt, P]):
    """One kind of option. Subclasses set the class attributes and implement the three stages.

    What other modules may ask of a kind is declared here, never known by its name elsewhere:
    the knobs its search turns (``knobs``, ``search``) and those that size it (``sizes``,
    ``size_words``), the inputs the what-ifs change (``what_ifs``), what it sells
    (``sale``), the prices a spreadsheet may expose (``unit_prices``), and what an answer
    recommending it rests on (``caveats``)."""

    # What it can do beyond play and price (``kinds.capabilities``), and why it cannot do some
    # of the rest, where that is worth saying.
    can_do: ClassVar[frozenset[Can]] = frozenset()
    cannot: ClassVar[Mapping[Can, str]] = {}

    def can(self, capability: Can) -> bool:
        return capability in self.can_do

    def why_not(self, capability: Can) -> str:
        """Why it cannot (empty when it can)."""
        if self.can(capability):
            return ""
        return self.cannot.get(capability, NOT_DECLARED)

    name: ClassVar[str]  # as written after ``kind:`` in a scenario
    model: ClassVar[type[OptionModel]]  # the option's scenario section
    label: ClassVar[str]  # in plain words, e.g. "owned cluster"
    buys_hardware: ClassVar[bool] = False  # capex that pays back against renting (break-even)
    data_site: ClassVar[str | None] = None  # where its data lives: "cloud", "premises" (storage.py)

    # What other modules ask of every kind: required, so a kind that forgets one fails to
    # load instead of answering with a silent nothing (a rental that forgot its providers
    # would pay no data egress; a kind that forgot its GPUs would have no speed drawn).
    @abc.abstractmethod
    def gpus_of(self, plan: P) -> set[str]:
        """The GPU models the option of ``plan`` runs on (the odds' speed draws, the check that
        a model fits, an uncertain ``speed.<GPU>``)."""

    @abc.abstractmethod
    def providers_of(self, plan: P) -> set[str]:
        """The providers (``pricing.providers``) the option of ``plan`` rents from, for the cost
        of moving the data there from its home (``costs.data``) and for who bills it."""

    @abc.abstractmethod
    def servers_of(self, plan: P) -> tuple[int, int] | None:
        """The servers the option of ``plan`` runs within the horizon: (existing, bought);
        None when it buys none."""

    def existing_servers(self, option: Opt, ctx: Context) -> Existing | None:
        """The servers the option says the site already owns (default: none)."""
        return None

    def propose(
        self,
        gpu: str,
        where: Where,
        ctx: Context,
        load: Load,
        site: Mapping[str, OptionModel],
    ) -> list[Proposal]:
        """Options of this kind running ``gpu`` (a catalog model) that the search may add
        (``kinds.proposals``): rented from ``providers``, sized to ``load``, on the terms of
        the ``site``'s listed options. Default: none."""
        return []

    @abc.abstractmethod
    def keeps_existing(self, option: Opt, options: Mapping[str, OptionModel]) -> bool:
        """Whether the option runs the site's existing servers (one that does not is credited
        their sale at the start); ``options``: the scenario's, by name."""

    knobs: ClassVar[tuple[str, ...]] = ()  # what its search may set, in the order to show them
    sizes: ClassVar[tuple[str, ...]] = ()  # those of its knobs that size it (more: more capacity)
    # Fields of its options (a dotted path, or its first part for everything under it) that
    # move money only: a ledger's inputs, never a play's. A future that differs from another
    # only in these is priced again on the other's runs instead of played again
    # (``sweep.design``). A field left out is played again: slower, never wrong.
    money_fields: ClassVar[tuple[str, ...]] = ()
    # What playing one job costs, against a job queued on owned servers (about 10-20 us): the
    # decision's budget counts job-plays by it (``advice.race``). A kind that places its jobs
    # without a queue (rented instances, numpy) declares less.
    play_weight: ClassVar[float] = 1.0

    @abc.abstractmethod
    def check(self, option: Opt, ctx: Context) -> None:
        """Raise ScenarioError when a name the option refers to is unknown."""

    @abc.abstractmethod
    def plan(self, option: Opt, ctx: Context) -> P:
        """Resolve the option into hardware and prices (the run's only price look-up)."""

    @abc.abstractmethod
    def play(self, jobs: Jobs, plan: P, horizon_h: float, rng: np.random.Generator) -> JobRuns:
        """Who runs when on this option, and who cannot run and why."""

    @abc.abstractmethod
    def ledger(self, plan: P, runs: JobRuns, edges: np.ndarray) -> Ledger:
        """Monthly cash and accounting costs from the simulated usage (``edges``: month
        boundaries in hours)."""

    def search(
        self, option: Opt, prepared: Any, index: int, evaluate: Callable[..., Any]
    ) -> list[Any]:
        """Configurations of the option worth evaluating (``tco optimize``): the kind's
        searchable knobs. ``evaluate(option_variant, knobs)`` plays a variant on the prepared
        jobs and returns its figures. Default: nothing to search."""
        return []

    def job_places(self, plan: P, runs: JobRuns, ledger: Ledger) -> JobPlaces | None:
        """Where each job ran and what it cost (``runs.JobPlaces``); None: the kind does not
        say (jobs.csv leaves the columns empty)."""
        return None

    @abc.abstractmethod
    def caveats(
        self,
        option: Opt,
        options: tuple[OptionModel, ...],
        quotes: tuple[Any, ...],
        drawn: Drawn = (),
    ) -> list[str]:
        """What an answer recommending ``option`` rests on beyond its prices' stated sources
        (``quotes``: its plan's; ``options``: the scenario's; ``drawn``: its ``uncertain:``
        entries, which the odds draw), in sentences."""

    @abc.abstractmethod
    def uncertainties(self, plan: P, where: str) -> list[KnownInput]:
        """What this kind knows to be uncertain about the option of ``plan`` (at ``where``,
        e.g. ``options[2]``), with ranges and sources, for the odds."""

    def report_tables(
        self, months: tuple[str, ...], ledger: Ledger
    ) -> list[tuple[str, pd.DataFrame]]:
        """Tables this kind adds to its section of the reports, as (title, frame)
        (``Can.TABLES``)."""
        return []

    @abc.abstractmethod
    def resale_basis(self, option: Opt, options: tuple[OptionModel, ...]) -> str | None:
        """How the hardware the option sells at the horizon is valued ("market", "book"), or
        None when it sells none (``options``: the scenario's, for a kind that names another)."""

    def size_words(self, knob: str, value: int) -> str:
        """A size of one of ``sizes`` in words ("4 servers"): part of ``Can.SIZE``, asked only of
        a kind that declares it (``can``); any other refuses, saying why it has no size."""
        raise TypeError(f"{self.name} has no size: {self.why_not(Can.SIZE)}")

    def what_ifs(self) -> tuple[WhatIfInput, ...]:
        """The inputs of this kind's options the what-ifs change (default: none)."""
        return ()

    def sale(self, option: Opt, options: tuple[OptionModel, ...], ledger: Ledger) -> Sale | None:
        """What the option sells back, from its ledger (None: nothing)."""
        return None

    def unit_prices(self, option: Opt, others: Mapping[str, OptionModel]) -> tuple[UnitPrice, ...]:
        """Prices its ledger multiplies by a quantity (default: none); ``others``: the
        scenario's options by name (an option made of others prices by theirs)."""
        return ()

    def size(self, option: Opt) -> tuple[str, int, int, int] | None:
        """The knob of ``sizes`` that sizes the option as written, its value, a value below
        every size worth trying (a search's floor) and the largest worth trying; None when the
        option has no size (default)."""
        return None

    def with_knobs(self, option: Opt, knobs: Mapping[str, Any]) -> Opt:
        """The option with some of its declared ``knobs`` set (validated again: a value out of
        range is a ValueError). Default: knobs that are fields of its model."""
        unknown = set(knobs) - set(self.knobs)
        if unknown:
            raise ValueError(f"not a knob of {option.name}: {', '.join(sorted(unknown))}")
        data = {**option.model_dump(), **knobs}
        return type(option).model_validate(data)

    def fit_to_usage(self, plan: P, runs: JobRuns, edges: np.ndarray) -> dict[str, Any] | None:
        """Knobs that fit the option to the usage it got in ``runs`` (a commitment at the
        newsvendor level), or None when it has nothing to fit (default)."""
        return None

    def compose(self, mix: Mix, name: str) -> OptionModel | None:
        """An option of this kind named ``name`` made of ``mix``, or None when this kind does
        not compose those two (default: it composes nothing)."""
        return None

    def parts_of(self, plan: P, runs: JobRuns) -> list[tuple[Plan, JobRuns]]:
        """The plans and runs of the options it is made of (default: itself)."""
        return [(plan, runs)]

    def to_finish(self, plan: P, runs: JobRuns, horizon_h: float) -> dict[str, float] | None:
        """What finishing the work unfinished at the horizon costs on the option of ``plan``,
        by the ledger category whose prices it is at (one declared ``finishes``), when the
        operation continues past it. None (default): the kind does not price work by the job,
        and the option's share of its cost applies (``costing.share_to_finish``)."""
        return None

    @abc.abstractmethod
    def remarks(self, name: str, metrics: Any) -> list[str]:
        """What is worth saying about the run of option ``name`` (its ``engine.metrics``
        figures), in sentences: waste (what is worth saying about a declared measure is its
        ``Measure.remark``)."""


class QueueingKind(Kind[Opt, P]):
    """A kind whose jobs wait in a queue for hardware it buys: a hybrid bursts a job from it to
    a cloud option when its patience runs out, and may buy it later (rent until then)."""

    @abc.abstractmethod
    def queue(
        self,
        jobs: Jobs,
        plan: P,
        horizon_h: float,
        rng: np.random.Generator,
        patience_h: float | np.ndarray | None,
    ) -> tuple[JobRuns, np.ndarray]:
        """The jobs queued, and when each gave up waiting after ``patience_h`` (NaN: never)."""

    @abc.abstractmethod
    def in_service_from_h(self, plan: P) -> float:
        """When its first hardware is in service (inf: never within the horizon)."""

    @abc.abstractmethod
    def bought_from(self, option: Opt, month: int, ctx: Context, field: str) -> Opt:
        """``option`` bought from ``month`` on (rented until then; ``field``: where the month
        is written, for messages)."""

    @abc.abstractmethod
    def months_to_buy(self, option: Opt, horizon_months: int) -> list[int]:
        """The months ``tco optimize`` tries buying it in."""


_KINDS: dict[str, Kind[Any, Any]] = {}
K = TypeVar("K", bound=type[Kind[Any, Any]])


def register(cls: K) -> K:
    """Class decorator: make a kind available to scenarios under ``cls.name``."""
    fields = cls.model.model_fields
    declared = typing.get_args(fields["kind"].annotation) if "kind" in fields else ()
    if declared != (cls.name,):
        raise TypeError(f"{cls.__name__}.model must declare kind: Literal[{cls.name!r}]")
    if cls.name in _KINDS and type(_KINDS[cls.name]) is not cls:
        raise ValueError(f"option kind {cls.name!r} is already registered")
    _KINDS[cls.name] = cls()
    return cls


def get(name: str) -> Kind[Any, Any]:
    """The kind registered under ``name`` (KeyError if none)."""
    return _KINDS[name]


def of(option: OptionModel) -> Kind[Any, Any]:
    """The kind of a validated option."""
    return _KINDS[option.kind]


def capabilities() -> list[tuple[str, Can, str]]:
    """Every registered kind and capability: (kind, capability, why it cannot: '' when it can)."""
    return [(n, c, _KINDS[n].why_not(c)) for n in _KINDS for c in Can]


def names() -> tuple[str, ...]:
    """Registered kinds, in registration order (the built-in ones first)."""
    return tuple(_KINDS)


@contextlib.contextmanager
def registered(cls: type[Kind[Any, Any]]) -> Iterator[Kind[Any, Any]]:
    """Register a kind for the duration of a ``with`` block (tests, notebooks), then remove it
    together with any ledger categories, series or measures it declared."""
    saved = ledger_module.declarations()
    measures = {m.name for m in declared_measures()}
    register(cls)
    try:
        yield _KINDS[cls.name]
    finally:
        _KINDS.pop(cls.name, None)
        forget_measures({m.name for m in declared_measures()} - measures)
        ledger_module.restore(saved)
