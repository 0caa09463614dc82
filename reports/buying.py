"""What the answer says about what to buy: the servers each option runs (existing and bought),
what the recommendation pays for servers and gets back, and what the catalog search
(``candidates:``) played and dropped."""

from __future__ import annotations

import numpy as np

from tco.reports.decision import runner_up
from tco.reports.words import usd
from tco.simulator.advice.candidates import reason
from tco.simulator.costs import ledger
from tco.simulator.engine.result import Result
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.registry import Sale

# The ledger's charge for money paid to own something (FOCUS's ChargeCategory "Purchase").
PURCHASE = "Purchase"
# A sale's basis (``Kind.resale_basis``) in the first lines' words; the whole of it (the rate,
# its band and sources) is in the details.
RESALE_BASIS = {
    "market": "a used-market estimate",
    "book": "at book value, an assumption",
    "quote": "a dealer's quote",
    "curve": "on the scenario's own curve",
}


def servers(result: Result, compact: bool = False) -> list[str]:
    """How many servers each option that runs servers has, existing and bought (``compact``:
    only when one has existing servers; what the answer buys is in its first lines)."""
    counted = [(o.name, o.servers) for o in result.options if o.servers is not None]
    if not counted:
        return []
    if compact and not any(s[0] for _, s in counted):
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


def sale_of(result: Result, name: str) -> Sale | None:
    """What option ``name`` sells back (``Kind.sale``; None for a kind that sells nothing)."""
    spec = result.scenario.option(name)
    kind = registry.of(spec)
    if not kind.can(Can.SELL):
        return None
    return kind.sale(spec, tuple(result.scenario.options), result.option(name).ledger)


def capital(result: Result) -> list[str]:
    """When the recommendation buys servers: what it pays for them and when (the ledger's
    purchase categories: bought outright or financed), and what it counts back from selling
    them (a seller's price, on the basis the kind states) with how much of its lead over the
    runner-up rests on that (none when it buys nothing)."""
    name = result.recommendation.option
    if name is None:
        return []
    o = result.option(name)
    spent = [ledger.category(c) for c in o.ledger.cash]
    owned = [c for c in spent if c.charge == PURCHASE and not c.commitment]  # not a cloud's
    if not owned:
        return []
    paid = np.sum([o.ledger.cash[c.name] for c in owned], axis=0)
    if paid.sum() < 0.005:
        return []
    cur = result.scenario.money
    months = np.nonzero(paid >= 0.005)[0]
    first, last = result.months[months[0]], result.months[months[-1]]
    when = first if first == last else f"{first} to {last}"
    line = f"It pays {usd(float(paid.sum()), cur)} for servers ({when})"
    sale = sale_of(result, name)
    back = 0.0 if sale is None else sale.at_horizon_usd + sale.before_usd
    if sale is not None and back >= 0.005:
        spec = result.scenario.option(name)
        basis = registry.of(spec).resale_basis(spec, tuple(result.scenario.options))
        how = RESALE_BASIS.get(basis or "", "")
        line += f" and counts {usd(back, cur)} back from selling them{f' ({how})' if how else ''}"
        second = runner_up(result)  # the runner-up the first lines name
        lead = 0.0 if second is None else result.option(second).total_cash_usd - o.total_cash_usd
        if second is not None and lead > 0:
            rests = "all" if back >= lead else f"{back / lead:.0%}"
            line += f": {rests} of its {usd(lead, cur)} lead over {second} rests on that sale"
    return [line + "."]
