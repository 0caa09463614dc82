"""The site a scenario describes beyond its options: the servers it already owns, as the
options that run them declare them (``Kind.existing_servers``; ``engine.existing`` credits
their sale to an option that does not run them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tco.simulator.core.quote import Quote
from tco.simulator.costs.ledger import Asset


@dataclass(frozen=True)
class Existing:
    """Servers the site already owns, as an option declaring them says: what identifies them
    (so that two options naming the same servers count them once), them in words, and what
    they would fetch sold at the start with the figure's quote. An option that keeps none of
    them sells them then (``engine.simulate``)."""

    key: tuple[Any, ...]
    words: str
    sold_now_usd: float
    quote: Quote
    # Their sale at the start as the tax law sees it (what they cost, when, what they fetch).
    asset: Asset | None = None
