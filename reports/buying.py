"""What the answer says about what to buy: the servers each option runs (existing and bought),
and what the catalog search (``candidates:``) played and dropped."""

from __future__ import annotations

from tco.simulator.advice.candidates import reason
from tco.simulator.engine.result import Result


def servers(result: Result, compact: bool = False) -> list[str]:
    """How many servers each option that runs servers has, existing and bought (``compact``:
    only when the answer runs servers or one has existing servers)."""
    counted = [(o.name, o.servers) for o in result.options if o.servers is not None]
    if not counted:
        return []
    rec = result.recommendation.option
    if compact and not any(s[0] for _, s in counted) and rec not in dict(counted):
        return []
    said = [
        f"{name} {had} existing" + (f" + {new} bought" if new else ", none bought")
        if had
        else f"{name} {new}"
        for name, (had, new) in counted
    ]
    return [f"Servers: {'; '.join(said)} (every server in the option's description)."]


def catalog(result: Result) -> list[str]:
    """What the catalog search (``candidates:``) played and dropped, by reason."""
    found = result.candidates
    if not found:
        return []
    played = [c.option for c in found if not c.dropped]
    reasons: dict[str, int] = {}
    for c in found:
        if c.dropped:
            why = reason(c.dropped)
            reasons[why] = reasons.get(why, 0) + 1
    dropped = "; ".join(f"{n} for {why}" for why, n in reasons.items())
    text = f"The catalog search (candidates:) considered {len(found)} options the scenario does"
    # The ones played are named in the comparison beside this: a count here, not their names.
    text += f" not list: it played {len(played) or 'none'}{' (in the table)' if played else ''}"
    if dropped:
        text += f" and dropped {len(found) - len(played)} ({dropped})"
    return [text + "; each reason in summary.json (candidates)."]
