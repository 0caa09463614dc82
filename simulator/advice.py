"""What the recommendation says, as records: each option's verdict against the service level,
the smallest owned cluster that would meet it, and the recommendation itself
(``simulator.recommendation`` computes them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """Whether an option meets the level, and why not (each reason names measure and limit)."""

    option: str
    meets: bool
    reasons: tuple[str, ...]
    shortfall: float  # relative excess over the limits; 0 when met


@dataclass(frozen=True)
class Resize:
    """The smallest owned cluster (servers bought at once) that meets the level."""

    option: str
    servers: int | None  # None: no size up to MAX_SERVERS_FACTOR x meets it
    cash_usd: float
    p95_wait_h: float


@dataclass(frozen=True)
class Recommendation:
    option: str | None  # None: no option meets the level
    cash_usd: float | None
    npv_usd: float | None
    reason: str
    closest: str | None
    resizes: tuple[Resize, ...]


@dataclass(frozen=True)
class BreakEvenVolume:
    """Owning and renting cost the same at ``scale`` x the scenario's work."""

    owned: str
    rented: str
    scale: float | None  # None: not equal anywhere in (0, MAX_SCALE]
    utilisation: float | None  # the owned cluster's busy / available GPU-hours there
    gpu_hours_per_month: float | None  # reference GPU-hours of work a month there
    note: str  # why there is no such volume (empty when there is)


@dataclass(frozen=True)
class WhatIf:
    """The recommendation when ``input`` is changed by ``change`` (a factor, or a word)."""

    input: str
    change: float | str
    recommended: str | None
    recommended_cash_usd: float | None
    flips: bool


@dataclass(frozen=True)
class FlipPoint:
    """``input`` at ``factor`` x its value is where the recommendation turns to ``to``."""

    input: str
    factor: float
    to: str | None
