"""``candidates:``: options the search may propose beyond those a scenario lists, from the
hardware catalog (owned servers of every catalogued model) and the price data (every provider's
shapes of every GPU), narrowed by what the scenario allows. ``advice.candidates`` proposes
them; this is what a scenario may say about them."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

from tco.pricing import hardware, providers
from tco.pricing.records import Basis
from tco.simulator.core.fields import Date, NonNeg, Strict


class Candidates(Strict):
    """Which catalog options the search may propose: GPU models or families (default every
    one the catalog knows), providers to rent from (default every one), whether to propose
    servers to buy and rentals, a ceiling on capex, how many to play at most, and how far a
    candidate's lower bound on cash may be above the best listed option's cash before it is
    dropped (``within``)."""

    gpus: list[str] | None = Field(default=None, min_length=1)
    providers: list[str] | None = Field(default=None, min_length=1)
    # Data residency: the regions rentals may be in, as each provider names them (None: any).
    regions: list[str] | None = Field(default=None, min_length=1)
    # Rentals only from offers whose price is known to have held on or after this date.
    offers_since: Date | None = None
    owned: bool = True
    rented: bool = True
    max_capex_usd: NonNeg | None = None
    # Keep to prices set these ways (``pricing.records.BASES``), owned and rented: [list,
    # quote] leaves out estimates, third parties' reports and marketplaces' median listings.
    price_basis: list[Basis] | None = Field(default=None, min_length=1)
    most: Annotated[int, Field(ge=1, le=20)] = 4
    within: Annotated[float, Field(ge=1, le=100)] = 1.1

    _gpus = field_validator("gpus")(lambda v: [hardware.known_family(w) for w in v or []] or v)
    _providers = field_validator("providers")(lambda v: providers.known(v))
    _regions = field_validator("regions")(lambda v: providers.known_regions(v))

    def gpu_models(self) -> list[str]:
        """The catalog GPU models asked for, in the catalog's order."""
        if self.gpus is None:
            return list(hardware.gpus())
        wanted = {m for words in self.gpus for m in hardware.gpu_family(words)}
        return [m for m in hardware.gpus() if m in wanted]

    def wanted_providers(self) -> list[str]:
        return self.providers or providers.names()
