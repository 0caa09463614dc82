"""An owned option's scenario section (``Owned``) and its resolved plan (``OwnedPlan``), shared by
the kind (``owned``) and its costs (``owned.costs``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, model_validator

from tco.pricing import hardware
from tco.pricing.carbon import Pue
from tco.simulator.cluster.failures import Failures
from tco.simulator.core import defaults
from tco.simulator.core.fields import Count, GpuCount, Name, NonNeg, OptionModel
from tco.simulator.kinds.owned.financing import Financing
from tco.simulator.kinds.owned.generations import Generation, Refresh, Successor
from tco.simulator.kinds.owned.parts import (
    Delivery,
    Depreciation,
    Existing,
    Facility,
    OwnServer,
    Power,
    StaffTime,
    Tranche,
)
from tco.simulator.kinds.owned.resale import BROKER, Resale, Selling
from tco.simulator.kinds.plan import Plan


class Owned(OptionModel):
    """A purchased cluster of identical servers."""

    kind: Literal["owned"]
    name: Name
    server: str | OwnServer  # a catalog server's name, or one described here
    price_usd: NonNeg | None = None  # per server; default from the catalog
    # Yearly fall of the price of a server ordered later than the price's date; None: the
    # fitted trend of its GPU generation's new prices (pricing.new_prices).
    price_decline_per_year: Annotated[float, Field(ge=-0.5, le=0.9)] | None = None
    max_kw: NonNeg | None = None  # per server; default from the catalog
    existing: Existing | None = None  # servers already owned, in service from the start
    servers: GpuCount | None = None  # shortcut: all ordered in month 0
    tranches: Annotated[list[Tranche], Field(min_length=1)] | None = None
    lead_time_months: NonNeg = 0.0
    network_usd: NonNeg = 0.0  # one-off, with the first tranche
    installation_usd_per_server: NonNeg = 0.0
    depreciation: Depreciation = Depreciation()
    sell_at_horizon: bool = True
    # What servers sold fetch: the used market of their GPU's generation (resale.py), their book
    # value (cash and accounting agree), nothing, a quote per server or a curve of the
    # scenario's own; resale_scale multiplies it; resale_decay_per_year sets the market's rate.
    resale_value: Resale = "market"
    resale_scale: Annotated[float, Field(ge=0, le=10)] = 1.0
    resale_decay_per_year: Annotated[float, Field(ge=0, le=3)] | None = None
    power: Power = Power()
    facility: Facility = Facility()
    support_pct_per_year: Annotated[float, Field(ge=0, le=100)] = 0.0
    financing: Financing | None = None  # paid in cash when absent
    # GPUs fail at Llama 3's rate unless ``failures: null``; who replaces them: ``maintenance``.
    failures: Failures | None = Field(default_factory=Failures)
    refresh: Refresh | None = None  # every server replaced by a newer generation (generations.py)
    staff: StaffTime = StaffTime()
    scheduler: Literal["fifo", "backfill"] = "fifo"
    # Jobs placed on servers (a job inside one server when it fits in one; first fit), or the
    # cluster as one pool of GPUs (a job's GPUs may span servers): simulator/cluster/placement.py.
    placement: Literal["servers", "pool"] = "servers"
    backfill_depth: Count = defaults.BACKFILL_DEPTH

    @model_validator(mode="after")
    def _one_purchase_plan(self) -> Owned:
        if self.servers is not None and self.tranches is not None:
            raise ValueError("give either servers (all bought in month 0) or tranches, not both")
        if self.servers is None and self.tranches is None and self.existing is None:
            raise ValueError(
                "give servers (all bought in month 0), tranches, or existing (servers already"
                " owned)"
            )
        if self.existing is not None and self.financing is not None:
            raise ValueError(
                "financing pays for servers bought in the horizon; existing servers are paid"
                " for (a lease still running on them is not modelled): drop one"
            )
        return self

    @property
    def upkeep(self) -> Failures | None:
        """The failures as its maintenance runs them (``Failures.maintained``: a support
        contract replaces parts, no spares; or the owner's spares): what play and costs use."""
        return (
            None if self.failures is None else self.failures.maintained(self.support_pct_per_year)
        )

    @property
    def server_name(self) -> str:
        return self.server if isinstance(self.server, str) else self.server.name

    def server_model(self) -> hardware.ServerModel:
        """The server bought (PricingError for a catalog name it does not have)."""
        return hardware.server(self.server) if isinstance(self.server, str) else self.server.model()

    def unmixable(self) -> str | None:
        """What of this option servers of several models cannot go with yet (None: nothing)."""
        if self.refresh is not None:
            return "a refresh"
        return "placement: pool" if self.placement == "pool" else None

    def bought_from(self, month: int) -> Owned:
        """This option with nothing ordered before ``month`` (rented until then): the tranches
        ordered earlier are ordered in that month, the later ones keep theirs."""
        plan = [t.model_copy(update={"month": max(t.month, month)}) for t in self.purchase_plan()]
        if not plan:  # only existing servers: nothing to order later
            return self
        return self.model_copy(update={"servers": None, "tranches": plan})

    def purchase_plan(self) -> list[Tranche]:
        """The tranches bought in the horizon in order of their month (as written when months
        tie), with the ``servers`` shortcut expanded: servers are numbered in the order they
        are ordered. Existing servers are not in it (``existing``)."""
        if self.tranches is not None:
            return sorted(self.tranches, key=lambda t: t.month)
        return [] if self.servers is None else [Tranche(month=0, servers=self.servers)]

    def existing_servers(self) -> int:
        return 0 if self.existing is None else self.existing.servers

    def new_price_usd(self) -> float:
        """What one server bought in the horizon costs: as the scenario says (0 included: a
        gift is a price), else the server's catalog price. The one place this is decided."""
        return self.server_model().price_usd if self.price_usd is None else self.price_usd

    def existing_price_usd(self) -> float:
        """What one existing server cost when bought: as the scenario says, else the server's
        catalog price."""
        assert self.existing is not None
        e = self.existing
        return self.server_model().price_usd if e.price_usd is None else e.price_usd


@dataclass(frozen=True, kw_only=True)
class OwnedPlan(Plan):
    option: Owned
    price_usd_per_server: float
    max_kw_per_server: float
    deliveries: tuple[Delivery, ...]
    successor: Successor | None = None  # the refresh, resolved
    selling: Selling = BROKER  # the used market a seller meets (the market's)
    mix: tuple[Generation, ...] = ()  # other server models beside ``option.server``
    # The PUE its servers pay, with its source (``power.paid_pue``: its own, the site's or the
    # industry's average).
    pue: Pue
