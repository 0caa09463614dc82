"""The names of the inputs tco itself knows to be uncertain, which the odds of every answer draw
(``sweep.known``), declared by the module that owns each, as ledger categories are: a kind's
market inputs where the kind lives, the workload's where the scenario reads it. ``odds:
{without: [...]}`` takes any declared name: the list is open, as the kinds' capabilities are,
and a kind added with an input of its own adds its name without editing a list elsewhere."""

from __future__ import annotations

_NAMES: dict[str, str] = {}  # name -> the module that declared it


def declare(owner: str, *names: str) -> None:
    """Declare ``names`` as inputs ``owner`` (a module's ``__name__``) knows to be uncertain
    (idempotent: a module imported again declares again)."""
    for name in names:
        _NAMES.setdefault(name, owner)


def names() -> tuple[str, ...]:
    """Every declared name, in the order they were declared."""
    return tuple(_NAMES)


def owner(name: str) -> str | None:
    """The module that declared ``name`` (None: not declared)."""
    return _NAMES.get(name)
