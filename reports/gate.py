"""Thresholds a team can gate a build on: ``tco compare OLD NEW --fail-if 'cash > +10%'``.

Grammar of one condition (several may be given; the build fails when any holds)::

    [SCOPE.]MEASURE OP AMOUNT        or        recommendation changed

- ``SCOPE``: an option's name (of either run: a name neither has is refused, naming the valid
  ones), or ``recommended`` (the recommendation's own figures on each side, whichever option it
  is: a switch to a dearer option is a rise in ``recommended.cash``); none: any option present
  in both runs.
- ``MEASURE``: ``cash`` or ``npv`` (USD over the horizon), ``p95_delay`` (hours from arrival to
  finish, what the service level judges) or ``p95_wait`` (hours from arrival to start).
- ``OP``: ``>`` (the change grew past AMOUNT) or ``<`` (it fell below AMOUNT).
- ``AMOUNT``: the change from OLD to NEW, signed or not: ``+10%`` or ``10%`` (relative to OLD),
  ``5000`` or ``-5000`` (in the measure's unit: USD or hours).

Examples: ``cash > +10%``, ``recommended.cash > 5000``, ``own-8xA40.p95_delay > 12``,
``npv < -20%``, ``recommendation changed``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MEASURES = {
    "cash": "cash_usd",
    "npv": "npv_usd",
    "p95_delay": "p95_delay_h",
    "p95_wait": "p95_wait_h",
}
UNITS = {"cash": "USD", "npv": "USD", "p95_delay": "h", "p95_wait": "h"}
# Matched against the stripped text: a leading \s* before the greedy scope backtracked
# quadratically on leading blanks (60,000 blanks ran for minutes).
_CONDITION = re.compile(
    r"(?:(?P<scope>.+)\.)?(?P<measure>cash|npv|p95_delay|p95_wait)\s*(?P<op>[<>])\s*"
    r"(?P<amount>[+-]?\d+(?:\.\d+)?)\s*(?P<pct>%)?"
)
MAX_CONDITION = 1_000  # characters: an option's name is at most a few dozen
FORMS = (
    "[OPTION.|recommended.]cash|npv|p95_delay|p95_wait > or < AMOUNT (a change: +10% of the"
    " old figure, or 5000 in USD or hours), or 'recommendation changed'; e.g. 'cash > +10%',"
    " 'recommended.cash > 5000'"
)


class GateError(ValueError):
    """A condition that does not follow the grammar (the message says what would)."""


@dataclass(frozen=True)
class Gate:
    text: str
    scope: str | None  # an option's name, "recommended", or None: any option
    measure: str | None  # None: the recommendation changed
    op: str = ">"
    amount: float = 0.0
    relative: bool = False

    def moved(self, delta: float, share: float | None) -> float | None:
        """The change this condition reads: the share of the old figure, or the delta in the
        measure's unit (None: a share of an old figure of 0)."""
        return share if self.relative else delta

    def crosses(self, moved: float) -> bool:
        """Whether ``moved`` (:meth:`moved`) is past this condition's line."""
        limit = self.amount / 100 if self.relative else self.amount
        return moved > limit if self.op == ">" else moved < limit


def parse(text: str) -> Gate:
    """One condition, or GateError naming the forms that are valid."""
    if len(text) > MAX_CONDITION:
        raise GateError(f"--fail-if: a condition of {len(text):,} characters; give {FORMS}")
    text = text.strip()
    if re.fullmatch(r"recommendation\s+changed", text):
        return Gate(text, None, None)
    m = _CONDITION.fullmatch(text)
    if m is None:
        raise GateError(f"--fail-if {text!r}: give {FORMS}")
    amount = float(m["amount"])
    return Gate(text.strip(), m["scope"], m["measure"], m["op"], amount, m["pct"] is not None)


def hits(diff: dict[str, Any], gate: Gate) -> list[str]:
    """What makes ``gate`` hold in the comparison ``diff`` (``compare.compare``), one phrase
    per option; empty when it does not hold. A scope naming no option in both runs is an
    error: a gate that can never fail would pass a build silently."""
    rec = diff["recommendation"]
    if gate.measure is None:
        return [f"recommendation {rec['old']} -> {rec['new']}"] if rec["changed"] else []
    if gate.scope == "recommended":
        r = diff["recommended"]
        if r["new"] is None or r["old"] is None:  # nothing to hold the line against: say so
            side = "new" if r["new"] is None else "old"
            return [f"the {side} run recommends no option (none meets the level)"]
        switch = f" ({r['old']} -> {r['new']})" if r["old"] != r["new"] else ""
        rows = [{**r, "option": f"recommended{switch}"}]
    else:
        names = [t["option"] for t in diff["totals"]]
        if gate.scope is not None and gate.scope not in names:
            raise GateError(
                f"--fail-if {gate.text!r}: {gate.scope!r} is an option of neither run; give"
                f" recommended or one of: {', '.join(names)}"
            )
        rows = [t for t in diff["totals"] if gate.scope is None or t["option"] == gate.scope]
    rows = [t for t in rows if t[MEASURES[gate.measure]]["delta"] is not None]
    if not rows:
        both = ", ".join(t["option"] for t in diff["totals"] if t["cash_usd"]["delta"] is not None)
        if gate.scope is None:
            raise GateError(f"--fail-if {gate.text!r}: no option is in both runs; it cannot hold")
        raise GateError(
            f"--fail-if {gate.text!r}: {gate.scope!r} is not an option of both runs (or has no"
            f" {gate.measure} on one side); options of both: {both}"
        )
    out = []
    for t in rows:
        c = t[MEASURES[gate.measure]]
        moved = gate.moved(c["delta"], c["share"])
        if moved is None:  # relative to an old figure of 0
            continue
        if gate.crosses(moved):
            shown = f"{moved:+.1%}" if gate.relative else f"{moved:+,.2f} {UNITS[gate.measure]}"
            out.append(f"{t['option']} {gate.measure} {shown}")
    return out
