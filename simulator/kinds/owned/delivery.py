"""When an owned option's servers arrive: the answer takes the lead time as written; where the
scenario's ``uncertain:`` block draws it, the odds play each future's own delivery (the hybrid's
cloud covers the wait), and the answer says how likely the delivery it takes is, from the
distribution's cumulative probability (closed form)."""

from __future__ import annotations

from typing import Any

from tco.simulator.core.fields import OptionModel
from tco.simulator.kinds.owned.model import Owned
from tco.simulator.kinds.registry import Drawn

FIELD = "lead_time_months"


def drawn_lead_time(option: Owned, options: tuple[OptionModel, ...], drawn: Drawn) -> Any:
    """The ``uncertain:`` entry drawing this option's lead time (None: it is as written)."""
    places = [i for i, o in enumerate(options) if o.name == option.name]
    paths = {f"options[{i}].{FIELD}" for i in places} | {f"options[*].{FIELD}"}
    return next((u for u in drawn if u.path in paths), None)


def delivery_odds(option: Owned, options: tuple[OptionModel, ...], drawn: Drawn) -> list[str]:
    """P(in service within the lead time the answer takes), and the months by which 90 % of
    futures have their servers, when the odds draw the lead time."""
    u = drawn_lead_time(option, options, drawn)
    if u is None:
        return []
    d, n = u.distribution, option.lead_time_months
    late = float(d.quantile(0.9))
    return [
        f"{option.name}'s servers are taken to be in service {n:g} months after each order;"
        f" the odds draw the lead time ({d.words()} months, the scenario's): in service within"
        f" {n:g} months in {d.cdf(n):.0%} of futures, within {late:.1f} months in 90%."
    ]
