"""The site a scenario describes beyond its options: the servers it already owns, as the
options that run them declare them (``Kind.existing_servers``; ``engine.existing`` credits
their sale to an option that does not run them), and what it can power (``site:``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

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


Cooling = Literal["air", "liquid", "immersion"]

# A site's PUE by how it is cooled, where the scenario states the cooling but no PUE: air at the
# industry's weighted average, liquid and immersion as new builds report them.
COOLING_PUE: dict[str, tuple[float, str]] = {
    "air": (
        1.54,
        "Uptime Institute Global Data Center Survey 2025, weighted average (thefreesheet.com"
        " 2026-01-19; secondary)",
    ),
    "liquid": (
        1.10,
        "direct-to-chip liquid cooling, new build: 1.05-1.15, central 1.10"
        " (research-viewer.pages.dev terrestrial-pue; secondary)",
    ),
    "immersion": (1.03, "immersion cooling: 1.02-1.05 (the same source; secondary)"),
}
# What air cools at most a rack: "greater adoption of racks in the 10 kW to 30 kW range. Few
# facilities exceed 30 kW" (Uptime Institute Global Data Center Survey 2025, keynote report 180).
AIR_RACK_KW = 30.0
# Building a site's power and cooling: $11.7 M per MW of critical load, the average of 19 US
# markets ($9.3 M San Antonio to $15.0 M Reno), without land, soft costs or equipment the owner
# furnishes (Cushman & Wakefield, Data Center Development Cost Guide 2025, pp. 6-9).
BUILD_USD_PER_KW = 11_700.0
BUILD_SOURCE = (
    "Cushman & Wakefield, Data Center Development Cost Guide 2025: $11.7 M per MW of critical"
    " load, average of 19 US markets ($9.3-15.0 M), without land or soft costs"
)


class Site(Strict):
    """What the site can power and house: ``it_kw``, the IT load its power and cooling serve (the
    servers' own draw; the PUE prices the rest), with its source, and optionally its racks, its
    cooling (air, liquid, immersion) or its PUE, and what building more power costs a kW. Servers
    that would draw more at once, need more racks or a denser rack than air cools are not bought:
    an option listing them is refused, and the searches size clusters within the site; the
    answer prices the power a larger cluster would need."""

    it_kw: Annotated[float, Field(gt=0, le=1e6)]
    source: str = Field(min_length=1)
    # Racks and the power each is built for: a rack holds as many servers of a model as its
    # kW allow at their maximum draw (none when one server draws more: a denser rack, liquid
    # cooled, is another site).
    racks: Annotated[int, Field(ge=1, le=100_000)] | None = None
    kw_per_rack: Annotated[float, Field(gt=0, le=1_000)] | None = None
    # How it is cooled and its PUE (the site's source for both): an owned option that states no
    # power.pue of its own pays the site's (the PUE given, else the cooling's, COOLING_PUE).
    cooling: Cooling | None = None
    pue: Annotated[float, Field(ge=1, le=3)] | None = None
    # What one more kW of power and cooling costs to build (USD; None: BUILD_USD_PER_KW, a
    # national average, said as such), and the months it takes.
    build_usd_per_kw: Annotated[float, Field(ge=0, le=1e6)] | None = None
    build_months: Annotated[int, Field(ge=0, le=240)] | None = None

    @model_validator(mode="after")
    def _racks_with_their_kw(self) -> Site:
        if (self.racks is None) != (self.kw_per_rack is None):
            raise ValueError("racks and kw_per_rack go together: how many, and each one's kW")
        if self.cooling == "air" and (self.kw_per_rack or 0.0) > AIR_RACK_KW:
            raise ValueError(
                f"air cooling serves racks of at most {AIR_RACK_KW:g} kW (Uptime Institute 2025:"
                f" few facilities exceed it), not {self.kw_per_rack:g}: say cooling: liquid or"
                " immersion, or kw_per_rack of 30 or less"
            )
        return self

    def pue_of(self) -> tuple[float, str] | None:
        """The site's PUE and its source (None: the scenario states neither PUE nor cooling)."""
        if self.pue is not None:
            return self.pue, f"site.pue: {self.source}"
        if self.cooling is not None:
            value, source = COOLING_PUE[self.cooling]
            return value, f"a {self.cooling}-cooled site (site.cooling): {source}"
        return None

    def build_cost(self) -> tuple[float, str]:
        """USD a kW of power and cooling built, and where the figure comes from."""
        if self.build_usd_per_kw is not None:
            return self.build_usd_per_kw, f"site.build_usd_per_kw: {self.source}"
        return BUILD_USD_PER_KW, f"{BUILD_SOURCE} (a national average, not this site's quote)"

    def per_rack(self, kw: float) -> int:
        """Servers drawing ``kw`` each that one of the site's racks holds (0: none)."""
        assert self.kw_per_rack is not None, "a site without racks"
        return int(self.kw_per_rack // kw + 1e-9)

    def racks_for(self, servers: dict[float, int]) -> int:
        """Racks the servers need (``servers``: kW each -> how many), each model in its own."""
        return sum(-(-n // max(self.per_rack(kw), 1)) for kw, n in servers.items() if n)


class SiteFull(ScenarioError):
    """Servers beyond the site's power or racks: a size a search skips, a listed option's
    error; ``more_kw``: the power they draw beyond the site's (0: it is not the power)."""

    def __init__(self, file: str, field: str, message: str, more_kw: float = 0.0) -> None:
        super().__init__(file, field, message)
        self.more_kw = more_kw

    def __reduce__(self) -> tuple[type[SiteFull], tuple[str, str, str, float]]:  # type: ignore[override]
        return (type(self), (self.file, self.field, self.message, self.more_kw))
