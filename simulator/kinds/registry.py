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
from tco.simulator.costs.ledger import Ledger
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.runs import JobRuns
from tco.simulator.workload.calibration import GpuSpeed, speed_of
from tco.simulator.workload.jobs import Jobs

if typing.TYPE_CHECKING:
    import pandas as pd

Opt = TypeVar("Opt", bound=OptionModel)
P = TypeVar("P", bound=Plan)


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

    def other(self, index: int) -> Context:
        """The context of the option at ``index`` of the same scenario."""
        return dataclasses.replace(self, where=f"options[{index}]")

    def speed(self, gpu: str) -> GpuSpeed:
        """The speed of ``gpu`` for this scenario (its override, else calibrated)."""
        return speed_of(gpu, self.speed_overrides, self.speed_source)


class Kind(abc.ABC, Generic[Opt, P]):
    """One kind of option. Subclasses set the class attributes and implement the three stages."""

    name: ClassVar[str]  # as written after ``kind:`` in a scenario
    model: ClassVar[type[OptionModel]]  # the option's scenario section
    label: ClassVar[str]  # in plain words, e.g. "owned cluster"
    buys_hardware: ClassVar[bool] = False  # capex that pays back against renting (break-even)
    data_site: ClassVar[str | None] = None  # where its data lives: "cloud", "premises" (storage.py)

    def check(self, option: Opt, ctx: Context) -> None:
        """Raise ScenarioError when a name the option refers to is unknown (default: none)."""

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

    def caveats(self, name: str, quotes: tuple[Any, ...]) -> list[str]:
        """What an answer recommending option ``name`` of this kind rests on beyond its prices'
        stated sources (``quotes``: its plan's), in sentences. Default: nothing."""
        return []

    def report_tables(
        self, months: tuple[str, ...], ledger: Ledger
    ) -> list[tuple[str, pd.DataFrame]]:
        """Tables this kind adds to its section of the reports, as (title, frame)."""
        return []

    def resale_basis(self, option: Opt, options: tuple[OptionModel, ...]) -> str | None:
        """How the hardware the option sells at the horizon is valued ("market", "book"), or
        None when it sells none (``options``: the scenario's, for a kind that names another)."""
        return None


def costs(plan: Plan, runs: JobRuns, edges: np.ndarray) -> Ledger:
    """The option's ledger: its kind's, plus the plan's fixed monthly costs (data kept and
    moved) in cash and accounting alike, with running costs escalated month by month."""
    led = of(plan.option).ledger(plan, runs, edges)
    if not plan.fixed_costs and not plan.escalation:
        return led
    cash, acc = dict(led.cash), dict(led.accounting)
    for name, usd in plan.fixed_costs.items():
        cash[name] = cash.get(name, 0.0) + usd
        acc[name] = acc.get(name, 0.0) + usd
    years = np.arange(len(edges) - 1) / 12.0  # month m is m/12 years after the start
    for name, per_year in plan.escalation.items():
        for view in (cash, acc):
            if name in view:
                view[name] = view[name] * (1.0 + per_year) ** years
    return dataclasses.replace(led, cash=cash, accounting=acc)


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


def names() -> tuple[str, ...]:
    """Registered kinds, in registration order (the built-in ones first)."""
    return tuple(_KINDS)


@contextlib.contextmanager
def registered(cls: type[Kind[Any, Any]]) -> Iterator[Kind[Any, Any]]:
    """Register a kind for the duration of a ``with`` block (tests, notebooks), then remove it
    together with any ledger categories or series it declared."""
    saved = ledger_module.declarations()
    register(cls)
    try:
        yield _KINDS[cls.name]
    finally:
        _KINDS.pop(cls.name, None)
        ledger_module.restore(saved)
