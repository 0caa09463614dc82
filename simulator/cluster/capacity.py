"""What happens to a cluster's capacity over time, as typed events: servers delivered, GPUs
failing and repaired, whole servers going down and coming back. Each names its group (the
servers of one model; a refresh's successor is a group of its own) and, on servers, its server
(numbered within the group in the order deliveries bring them).

The scheduler applies them in one order (:func:`order`): by time; at one instant a server going
down first, then GPUs failing (the largest loss first), then deliveries and repairs (the
smallest first), then servers coming back; and for the same change, later groups' deliveries
before earlier ones' and earlier groups' failures before later ones'. That order is the one the
model has always used: it decides which of several changes at one instant a look-ahead sees
first.
"""

from __future__ import annotations

from dataclasses import dataclass

# Ranks that put a whole server's change before (down) and after (up) any change of GPUs, and
# the stride that numbers group k's server s after every server of the groups before it, in the
# sort key only (no event carries them).
_WHOLE = 1 << 40
_STRIDE = 1 << 32


@dataclass(frozen=True)
class Delivery:
    """``gpus`` new GPUs (whole servers, or units of a pool) for ``group`` at ``at_h``."""

    at_h: float
    group: int
    gpus: int


@dataclass(frozen=True)
class GpuChange:
    """GPUs of one server leaving (``gpus`` < 0: a failure) or coming back (a repair); on a pool
    ``server`` is -1 (the pool's units change)."""

    at_h: float
    group: int
    server: int
    gpus: int


@dataclass(frozen=True)
class ServerDown:
    """A whole server fails: its jobs stop, its GPUs leave until it is up."""

    at_h: float
    group: int
    server: int


@dataclass(frozen=True)
class ServerUp:
    """A server that was down is back, with the GPUs in service."""

    at_h: float
    group: int
    server: int


Event = Delivery | GpuChange | ServerDown | ServerUp


def _where(e: GpuChange | ServerDown | ServerUp) -> int:
    return -1 - e.group if e.server < 0 else e.group * _STRIDE + e.server


def order(e: Event) -> tuple[float, int, int]:
    """The key events are applied in (see the module's docstring)."""
    if isinstance(e, Delivery):
        return (e.at_h, e.gpus, -1 - e.group)
    if isinstance(e, GpuChange):
        return (e.at_h, e.gpus, _where(e))
    return (e.at_h, -_WHOLE if isinstance(e, ServerDown) else _WHOLE, _where(e))


def units(e: Event) -> int:
    """The change in units a pool sees (its deliveries and GPU changes)."""
    assert isinstance(e, Delivery | GpuChange), e
    return e.gpus


def events(
    group: int,
    capacity: list[tuple[float, int]],
    changes: list[tuple[float, int, int]],
    outages: list[tuple[float, int, float]],
    pool_changes: list[tuple[float, int]] | None = None,
) -> list[Event]:
    """One group's events from its records: deliveries (time h, GPUs) after time 0 (those at 0
    are there from the start), GPU changes (time h, server, +/- GPUs), servers down whole
    (down h, server, back h), and on a pool its changes of units (time h, +/- units)."""
    out: list[Event] = [Delivery(t, group, u) for t, u in capacity if t > 0]
    out += [GpuChange(t, group, -1, u) for t, u in pool_changes or [] if t > 0]
    out += [GpuChange(t, group, s, u) for t, s, u in changes]
    out += [ServerDown(a, group, s) for a, s, _ in outages]
    out += [ServerUp(b, group, s) for _, s, b in outages]
    return out
