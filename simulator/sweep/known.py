"""The inputs a future is drawn from: the scenario's ``uncertain:`` entries, then what tco itself
knows to be uncertain about the options listed (each kind declares its own, with a source:
``Kind.uncertainties``), unless the scenario names the same path or leaves it out
(``odds: {without: [...]}``).

Two options declaring the same path (two spot options on ``prices.spot``) share one draw over
the union of their ranges: a future has one spot market.

Each input either changes what is played (the workload, a GPU's speed, the spot market, an
option's size) or moves money only (a price group, what servers fetch, the discount rate, a
field a kind declares among its ``money_fields``): ``Input.money``. The futures' design draws the
two apart (``sweep.design``): futures that differ in money only share their plays.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from tco.simulator.core.fields import OptionModel
from tco.simulator.engine.prepared import Prepared
from tco.simulator.kinds import registry
from tco.simulator.kinds.registry import KnownInput
from tco.simulator.scenario.distributions import LogNormal, Triangular, Uniform
from tco.simulator.scenario.uncertainty import Uncertain
from tco.simulator.training.work import ModelWork
from tco.simulator.workload import mfu
from tco.simulator.workload.calibration import speed_of


@dataclass(frozen=True)
class Input:
    """One input of the futures: where it is drawn, how, where its range comes from
    (``known``: tco's own, else the scenario's entry), and whether it moves money only."""

    uncertain: Uncertain
    source: str
    known: str | None = None  # its declared name (core.uncertain_names)
    money: bool = False

    @property
    def path(self) -> str:
        return self.uncertain.path


# A price group's multiplier, the discount rate, a yearly growth of prices (escalation: the
# ledgers are costed again, the jobs not played again).
MONEY_ROOTS = ("prices.", "discount_rate", "escalation.")
_OPTION = re.compile(r"^options\[(\d+|\*)\]\.(.+)$")


def moves_money_only(path: str, options: Sequence[OptionModel]) -> bool:
    """Whether a draw at ``path`` changes money only: a price group, the discount rate, or a
    field every option it reaches declares a money field (``Kind.money_fields``: the field or
    a part above it). Anything else is played again (never wrong, only slower)."""
    if path.startswith(MONEY_ROOTS):
        return True
    m = _OPTION.match(path)
    if m is None:
        return False
    reached = options if m[1] == "*" else options[int(m[1]) : int(m[1]) + 1]
    field = re.sub(r"\[\d+\]", "", m[2])
    heads = {".".join(field.split(".")[: i + 1]) for i in range(field.count(".") + 1)}
    return bool(reached) and all(heads & set(registry.of(o).money_fields) for o in reached)


def _merged(found: list[KnownInput]) -> KnownInput:
    first = found[0]
    low = min(k.low for k in found)
    high = max(k.high for k in found)
    modes = [k.mode for k in found]
    mode = None if any(m is None for m in modes) else min(max(modes[0] or low, low), high)
    sources = list(dict.fromkeys(k.source for k in found))
    money = all(k.money for k in found)
    return KnownInput(first.name, first.path, low, high, mode, "; ".join(sources), money)


def _uncertain(k: KnownInput) -> Uncertain:
    dist: Uniform | Triangular | LogNormal
    if k.sigma is not None:
        dist = LogNormal(kind="lognormal", median=k.mode or 1.0, sigma=k.sigma)
    elif k.mode is None:
        dist = Uniform(kind="uniform", low=k.low, high=k.high)
    else:
        dist = Triangular(kind="triangular", low=k.low, mode=k.mode, high=k.high)
    return Uncertain(path=k.path, distribution=dist)


def known(prepared: Prepared) -> list[Input]:
    """tco's own uncertain inputs for ``prepared``'s options, merged by path, in the order the
    options declare them (not those the scenario names or leaves out)."""
    sc = prepared.scenario
    named = {u.path for u in sc.uncertain}
    by_path: dict[str, list[KnownInput]] = {}
    for i, plan in enumerate(prepared.plans):
        for k in registry.of(plan.option).uncertainties(plan, f"options[{i}]"):
            if sc.odds.uses(k.name) and k.path not in named and k.low < k.high:
                by_path.setdefault(k.path, []).append(k)
    out = []
    for found in by_path.values():
        k = _merged(found)
        out.append(Input(_uncertain(k), k.source, k.name, k.money or moves_money_only(k.path, ())))
    if sc.odds.uses("speed"):
        out += [i for i in _speeds(prepared) if i.path not in named]
    if sc.odds.uses(MODEL_HOURS) and MODEL_HOURS not in named:
        out += _model_hours(prepared)
    return out


MODEL_HOURS = "workload.model_hours_scale"


def _model_hours(prepared: Prepared) -> list[Input]:
    """The GPU-hours of work stated as a model (a class or run's ``work: {model: ...}``), drawn
    in each future as the calibration's leave-one-out errors scatter (``workload.mfu``): one
    draw for every such class of a future (the utilisation a team reaches is its own, not a
    job's); lognormal, its 10-90 % range the jackknife's. None without such work."""
    if not any(isinstance(c.work, ModelWork) for _, c in prepared.scenario.workload.stated):
        return []
    q = mfu.spread_ln()
    k = KnownInput(
        MODEL_HOURS,
        MODEL_HOURS,
        0.0,
        0.0,
        1.0,
        f"the utilisation fit's leave-one-out errors over {len(mfu.observations())} published"
        f" runs: 80 % of runs within x{math.exp(-q):.2f} to x{math.exp(q):.2f} of the fit's"
        " hours (the jackknife's range; workload.mfu)",
        sigma=q / NormalDist().inv_cdf(0.5 + mfu.COVERED / 2),
    )
    return [Input(_uncertain(k), k.source, k.name)]


def _speeds(prepared: Prepared) -> list[Input]:
    """Each GPU the options run on, its speed drawn within the speed model's own spread (one
    standard deviation: ``GpuSpeed.spread``; triangular from spread^-2 to spread^2, about a
    lognormal's 95 % range). A GPU the work is stated on is left out: its speed relative to
    itself is 1 by definition. A speed the scenario sets (``speed:``) has no spread."""
    refs = set(prepared.jobs.reference_gpus)
    gpus: list[str] = []
    for plan in prepared.plans:
        for gpu in sorted(registry.of(plan.option).gpus_of(plan)):
            if gpu not in refs and gpu not in gpus:
                gpus.append(gpu)
    sc = prepared.scenario
    overrides = dict(sc.speed.scores) if sc.speed else {}
    out = []
    for gpu in gpus:
        s = speed_of(gpu, overrides)
        if s.spread <= 1.001:
            continue
        k = KnownInput(
            "speed",
            f"speed.{gpu}",
            1 / s.spread**2,
            s.spread**2,
            1.0,
            f"the speed model's spread for the {gpu} ({s.basis}: one standard deviation spans"
            f" x{s.spread:.2f}; workload.calibration), from spread^-2 to spread^2",
        )
        out.append(Input(_uncertain(k), k.source, k.name))
    return out


def inputs(prepared: Prepared) -> list[Input]:
    """Every input of the futures: the scenario's entries first (as written), then tco's."""
    options = prepared.scenario.options
    own = [
        Input(u, "the scenario's uncertain: block", None, moves_money_only(u.path, options))
        for u in prepared.scenario.uncertain
    ]
    return own + known(prepared)
