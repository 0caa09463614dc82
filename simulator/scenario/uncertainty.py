"""What the budget owner does not know: the scenario's ``uncertain:`` block.

Each entry puts a distribution on one input, by path:

- a number of the scenario, written as in the file: ``workload.job_classes[0].arrivals_per_month``,
  ``options[1].power.usd_per_kwh``; ``[*]`` gives every element the same draw
  (``workload.job_classes[*].growth_per_month``). Paths start in ``workload``, ``options`` or
  ``discount_rate``: the calendar (start, horizon) and the seed are the sweep's frame, not
  inputs. A replication re-validates the scenario with the drawn values, so a draw outside a
  field's range is an error, not a silently clipped number.
- a price group's multiplier (1 = as priced): ``prices.cloud``, ``prices.server``,
  ``prices.electricity``, ``prices.facility``, ``prices.staff`` (the sensitivity groups of
  ``costs.ledger``), and the narrower ``prices.spot`` and ``prices.on_demand`` inside cloud
  prices (a commitment's fee is neither: it is paid whatever prices do). Costs are linear in
  prices, so these scale the ledgers: no re-simulation.

- a number of the market the rented options face (``kinds.market``):
  ``market.spot_interruption_quantile``, ``market.spot_scarcity``; and a GPU's training speed,
  ``speed.<GPU>`` (a multiplier, 1 = as calibrated: ``speed.H100 SXM``).

Beside the scenario's own entries, the odds of every answer draw what tco itself knows to be
uncertain (``sweep.known``: spot and on-demand prices, where interruptions sit in their buckets,
spot capacity, resale), each with its source; an entry of the scenario on the same path replaces
tco's, and ``odds: {without: [...]}`` leaves any of them out.

Distributions: uniform, triangular, normal (truncated), lognormal, choice
(``scenario.distributions``).
"""

from __future__ import annotations

import os
import re
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from tco.pricing import hardware
from tco.simulator.core import uncertain_names
from tco.simulator.core.fields import Strict
from tco.simulator.costs import ledger
from tco.simulator.scenario.distributions import (
    Choice,
    Distribution,
    LogNormal,
)

# The odds of an answer: how many futures by default. The probability that the recommendation
# is best is a share of futures, with standard error sqrt(p (1 - p) / n): at most 5 points at 100
# futures (p = 0.5) and 3 at p = 0.9; enough to tell "nearly always" from "a coin toss", not 0.93
# from 0.95 (ask for more with --odds).
DEFAULT_FUTURES = 100
# What tco itself knows to be uncertain about the work (``sweep.known`` says each one's range
# and source); the kinds declare their own (``core.uncertain_names``: the list is open).
uncertain_names.declare(__name__, "speed", "workload.model_hours_scale")
SWEEPABLE = ("workload", "options", "discount_rate", "market", "escalation")
_INDEX = re.compile(r"^([A-Za-z_]\w*)((?:\[(?:\d+|\*)\])*)$")


def price_groups() -> dict[str, str]:
    """``prices.<word>`` -> the price group or subgroup it scales ('cloud' -> 'cloud prices',
    'spot' -> 'spot prices')."""
    return {g.split()[0]: g for g in (*ledger.groups(), *ledger.subgroups())}


# Fields that name or type a thing: a future that renames an option or changes its kind is
# another scenario, not a draw of an input (a drawn name once ended in a traceback). A field
# naming another option is refused where the scenario is known (model.check_references).
IDENTITIES = ("name", "kind")


class Uncertain(Strict):
    """One uncertain input: where it is, and how it is distributed."""

    path: str = Field(min_length=1)
    distribution: Distribution

    @model_validator(mode="after")
    def _path(self) -> Uncertain:
        if self.path.startswith("prices."):
            word = self.path.removeprefix("prices.")
            if word not in price_groups():
                raise ValueError(
                    f"unknown price group {word!r}; valid: "
                    + ", ".join(f"prices.{w}" for w in price_groups())
                )
            if isinstance(self.distribution, Choice) and any(
                isinstance(v, str) for v in self.distribution.values
            ):
                raise ValueError("a price multiplier must be a number")
            if self.distribution.lowest() < 0:
                raise ValueError(
                    "a price multiplier cannot be negative (a negative price would be paid to"
                    " the buyer); give a distribution with low >= 0 (1 = as priced)"
                )
        elif self.path.startswith("speed."):
            gpu = self.path.removeprefix("speed.")
            if gpu not in hardware.gpus():
                raise ValueError(
                    f"{self.path!r}: no GPU {gpu!r} in the catalog; valid: speed.<GPU> with"
                    f" GPU one of {', '.join(hardware.gpus())}"
                )
            if self.distribution.lowest() <= 0 and not isinstance(self.distribution, LogNormal):
                raise ValueError("a speed multiplier must be above 0 (1 = as calibrated)")
        else:
            for part in self.path.split("."):
                if not _INDEX.match(part):
                    raise ValueError(f"{self.path!r} is not a path like options[0].power.pue")
            root = re.split(r"[.\[]", self.path)[0]
            last = re.split(r"[.\[]", self.path.split(".")[-1])[0]
            if last in IDENTITIES:
                raise ValueError(
                    f"{self.path!r}: a {last} says which thing it is, not a quantity to draw;"
                    " draw a number or a choice of its settings (e.g. options[0].servers)"
                )
            if root not in SWEEPABLE:
                raise ValueError(
                    f"{self.path!r}: paths start in {', '.join(SWEEPABLE)} (or prices.<group>);"
                    " the start, horizon and seed frame the sweep"
                )
        return self

    @property
    def speed_gpu(self) -> str | None:
        """The GPU of a ``speed.<GPU>`` path (a multiplier on its training speed), else None."""
        return self.path.removeprefix("speed.") if self.path.startswith("speed.") else None

    @property
    def is_price_group(self) -> bool:
        return self.path.startswith("prices.")


def _steps(path: str) -> list[str | int]:
    out: list[str | int] = []
    for part in path.split("."):
        m = _INDEX.match(part)
        assert m is not None
        out.append(m[1])
        out += [-1 if i == "*" else int(i) for i in re.findall(r"\[(\d+|\*)\]", m[2])]
    return out


def get_path(data: Any, path: str) -> Any:
    """The value at ``path`` in scenario data (None where it leads nowhere or through [*])."""
    node = data
    for step in _steps(path):
        if step == -1:
            return None
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                return None
        elif not isinstance(node, dict) or step not in node:
            return None
        node = node[step]
    return node


def set_path(data: Any, path: str, value: Any) -> None:
    """Set ``path`` in scenario data (dicts and lists), in place; KeyError/IndexError when it
    does not lead to an existing number or text (or an optional one left unset)."""
    _set(data, _steps(path), value, path)


def _set(node: Any, steps: list[str | int], value: Any, path: str) -> None:
    head, rest = steps[0], steps[1:]
    if head == -1:
        if not isinstance(node, list) or not node:
            raise KeyError(f"{path}: [*] needs a non-empty list")
        for item in node:
            _set_list_item(item, rest, value, path)
        return
    if isinstance(head, int):
        if not isinstance(node, list) or head >= len(node):
            raise IndexError(f"{path}: no element [{head}]")
    elif not isinstance(node, dict) or head not in node:
        valid = ", ".join(node) if isinstance(node, dict) else "none"
        raise KeyError(f"{path}: no key {head!r} (valid here: {valid})")
    if rest:
        _set(node[head], rest, value, path)
    elif isinstance(node[head], bool) or not isinstance(node[head], int | float | str | None):
        raise KeyError(f"{path}: not a number or text in the scenario")
    else:
        node[head] = value


def _set_list_item(item: Any, rest: list[str | int], value: Any, path: str) -> None:
    if not rest:
        raise KeyError(f"{path}: [*] must be followed by a field")
    _set(item, rest, value, path)


ODDS_ENV = "TCO_ODDS"  # the number of futures when the scenario sets none (CI: 0 for speed)


class Odds(Strict):
    """How sure the answer is: ``futures`` drawn from the uncertain inputs (0: no odds; None:
    ``$TCO_ODDS`` if set, else ``DEFAULT_FUTURES``), every option on the same job stream in
    each future; ``without``: tco's own uncertainties left out (``all``, or names declared
    in ``core.uncertain_names``)."""

    futures: Annotated[int, Field(ge=0, le=100_000)] | None = None
    without: Literal["all"] | list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _known(self) -> Odds:
        if isinstance(self.without, list):
            known = uncertain_names.names()
            bad = [w for w in self.without if w not in known]
            if bad:
                raise ValueError(
                    f"without: unknown {', '.join(map(repr, bad))}; valid: all, {', '.join(known)}"
                )
        return self

    def uses(self, name: str) -> bool:
        return self.without != "all" and name not in self.without

    def count(self) -> int:
        """The number of futures to draw (ValueError naming ``$TCO_ODDS`` when it is not a
        whole number from 0 to 100,000)."""
        if self.futures is not None:
            return self.futures
        text = os.environ.get(ODDS_ENV)
        if text is None:
            return DEFAULT_FUTURES
        if not text.strip().isdigit() or int(text) > 100_000:
            raise ValueError(f"{ODDS_ENV}={text!r}: give a whole number of futures, 0 to 100000")
        return int(text)
