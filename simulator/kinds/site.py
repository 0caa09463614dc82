"""The site a scenario describes beyond its options: the servers it already owns, as the
options that run them declare them (``Kind.existing_servers``; ``engine.existing`` credits
their sale to an option that does not run them), and what it can power (``site:``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, model_validator

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Strict
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


class Site(Strict):
    """What the site can power and house: ``it_kw``, the IT load its power and cooling serve (the
    servers' own draw; the PUE of each option's ``power:`` prices the rest), with its source,
    and optionally its racks. Servers that would draw more at once, or need more racks, are not
    bought: an option listing them is refused, and the searches size clusters within the site
    (issue 56, item 1: cooling types and what more capacity costs are not modelled yet)."""

    it_kw: Annotated[float, Field(gt=0, le=1e6)]
    source: str = Field(min_length=1)
    # Racks and the power each is built for: a rack holds as many servers of a model as its
    # kW allow at their maximum draw (none when one server draws more: a denser rack, liquid
    # cooled, is another site).
    racks: Annotated[int, Field(ge=1, le=100_000)] | None = None
    kw_per_rack: Annotated[float, Field(gt=0, le=1_000)] | None = None

    @model_validator(mode="after")
    def _racks_with_their_kw(self) -> Site:
        if (self.racks is None) != (self.kw_per_rack is None):
            raise ValueError("racks and kw_per_rack go together: how many, and each one's kW")
        return self

    def per_rack(self, kw: float) -> int:
        """Servers drawing ``kw`` each that one of the site's racks holds (0: none)."""
        assert self.kw_per_rack is not None, "a site without racks"
        return int(self.kw_per_rack // kw + 1e-9)

    def racks_for(self, servers: dict[float, int]) -> int:
        """Racks the servers need (``servers``: kW each -> how many), each model in its own."""
        return sum(-(-n // max(self.per_rack(kw), 1)) for kw, n in servers.items() if n)


class SiteFull(ScenarioError):
    """Servers beyond the site's power or racks: a size a search skips, a listed option's
    error."""
