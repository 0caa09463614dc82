"""What a mix is, apart from how one is searched (``advice.portfolio``): two of the scenario's
options a composing kind makes one (``Kind.compose``), its parts' roles and its own knobs, its
name, the pairs the registered kinds compose, and a mix made again from what a summary keeps of
it (``tco track`` replays a plan whose answer is a mix)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tco.simulator.core.fields import OptionModel
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.registry import Mix

WAIT_KNOB = "wait_before_burst_h"  # a mix's own knob: how long a job waits for the base
BASE, OVERFLOW = "base", "overflow"  # a mix's parts' roles: the base takes the work first
ROLES = (BASE, OVERFLOW)
ORDER_KNOB = "order_month"  # a mix's own knob: the base ordered then (rented until it arrives)


def mix_name(base: str, target: str) -> str:
    return f"mix: {base} + {target}"


def _composers() -> list[registry.Kind[Any, Any]]:
    return [registry.get(n) for n in registry.names() if registry.get(n).can(Can.COMPOSE)]


def rebuilt(
    options: Sequence[OptionModel],
    name: str,
    parts: Sequence[tuple[str, str, Mapping[str, Any]]],
    wait_h: float,
) -> OptionModel | None:
    """The mix ``name`` a search found, made again from what a summary keeps of it: its parts
    as (role, option, knobs) ("base" with its size and order month, "overflow" with its fitted
    knobs) and the wait before it bursts; None when the options or a composer are missing."""
    by_name = {o.name: o for o in options}
    roles = {role: (by_name.get(option), dict(knobs)) for role, option, knobs in parts}
    (base, base_knobs), (target, target_knobs) = (roles.get(r, (None, {})) for r in ROLES)
    if base is None or target is None:
        return None
    order = base_knobs.pop(ORDER_KNOB, None)
    mix = Mix(base, target, float(wait_h), base_knobs, target_knobs, order)
    return next((m for c in _composers() if (m := c.compose(mix, name)) is not None), None)


def pairs(options: Sequence[OptionModel]) -> list[tuple[registry.Kind[Any, Any], Mix]]:
    """Every (composer, mix at the options as written) the registered kinds make of two
    listed options; the base must have a size to search."""
    out = []
    composers = _composers()
    for base in options:
        kind = registry.of(base)
        if not kind.can(Can.SIZE) or kind.size(base) is None:
            continue
        for target in options:
            if target is base:
                continue
            mix = Mix(base=base, target=target, wait_h=0.0)
            for composer in composers:
                if composer.compose(mix, mix_name(base.name, target.name)) is not None:
                    out.append((composer, mix))
                    break
    return out
