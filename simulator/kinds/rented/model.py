"""What a rented option says in a scenario: one instance type, a fleet of types, every shape of
a GPU at some providers (``gpus:``), or a machine the scenario describes; where it is rented,
its billing and quota. Each rented kind's model subclasses :class:`CloudBase`."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator, model_validator

from tco.pricing import hardware, providers
from tco.pricing.records import Basis
from tco.simulator.core import defaults
from tco.simulator.core.fields import (
    Count,
    Date,
    Fraction,
    GpuCount,
    Name,
    NonNeg,
    OptionModel,
    Strict,
)


class CustomInstance(Strict):
    """A rented machine not in the AWS price book (e.g. another provider's bare metal)."""

    gpu: str
    gpus: GpuCount
    usd_per_hour: NonNeg
    price_source: str = Field(min_length=1)
    price_as_of: Date
    intra_node: str = "nvswitch_a100"
    inter_node: str = "ib_hdr"


class RentByGpu(Strict):
    """Rent a GPU, not named instance types: every shape of ``model`` at ``providers`` is a
    candidate for each job, and the fleet rule puts each job on the one that finishes it for
    the least money."""

    model: str = Field(min_length=1)  # a catalog GPU ("H100 SXM") or a family ("H100")
    providers: list[str] | None = Field(default=None, min_length=1)  # None: every provider
    gpus_per_instance: list[GpuCount] | None = Field(default=None, min_length=1)  # None: all
    # Where a shape may be rented (data residency: the regions the data may live in), as each
    # provider names its regions; None: where the price book prices it for the scenario.
    regions: list[str] | None = Field(default=None, min_length=1)
    # Offers whose price is not known to have held on or after this date are left out (a row
    # copied from a catalogue with no date of its own is left out too: its age is unknown).
    offers_since: Date | None = None
    # Keep to prices set these ways (``pricing.records.BASES``), e.g. [list, quote] leaves out
    # marketplaces' median listings and third parties' reports; None: any.
    price_basis: list[Basis] | None = Field(default=None, min_length=1)

    _model = field_validator("model")(lambda v: hardware.known_family(v))
    _providers = field_validator("providers")(lambda v: providers.known(v))
    _regions = field_validator("regions")(lambda v: providers.known_regions(v))

    def wanted(self) -> list[str]:
        """The providers asked for (every one tco knows when none is named)."""
        return self.providers or providers.names()


class CloudBase(OptionModel):
    """Fields every cloud option has; each kind adds ``kind`` (and its own fields)."""

    name: Name
    # Where it is rented (pricing.providers): AWS by default; an instance type may also be
    # written provider:type, so a fleet can mix providers. region: the provider's region
    # (default: the scenario's, where the provider has it, else the provider's default).
    provider: str = providers.AWS
    region: str | None = None
    instance_type: str | None = None
    instance_types: list[str] | None = Field(default=None, min_length=1)  # a fleet
    instance: CustomInstance | None = None
    gpus: RentByGpu | None = None  # every shape of a GPU at some providers (a fleet)
    usd_per_hour: NonNeg | None = None  # overrides the price book
    price_source: str | None = None  # required with usd_per_hour
    quota_instances: Count | None = None
    shared_instances: bool = False  # small jobs pack onto instances (see kinds/packing.py)
    idle_release_minutes: NonNeg = defaults.IDLE_RELEASE_MINUTES
    provisioning_delay_minutes: NonNeg = 0.0
    virtualization_overhead: Fraction | None = None
    billing_increment_s: Annotated[float, Field(ge=1)] | None = None
    billing_minimum_s: NonNeg | None = None

    @model_validator(mode="after")
    def _one_machine(self) -> CloudBase:
        given = [self.instance_type, self.instance_types, self.instance, self.gpus]
        if sum(g is not None for g in given) != 1:
            raise ValueError(
                "give one of instance_type (an EC2 type, priced from AWS), instance_types (a"
                " fleet: each job runs on the type that finishes it for the least money),"
                " gpus (every shape of a GPU at some providers, e.g. {model: H100, providers:"
                " [nebius, aws]}) or instance (a machine described in the scenario)"
            )
        if self.gpus is not None:
            if self.usd_per_hour is not None:
                raise ValueError("usd_per_hour prices one instance_type, not every shape of a GPU")
            if self.quota_instances is not None:
                raise ValueError(
                    "quota_instances counts instances of one type; with gpus, drop it (fleets"
                    " run unlimited) or use one instance_type"
                )
        if self.instance_types is not None:
            if len(set(self.instance_types)) != len(self.instance_types):
                raise ValueError("instance_types lists a type twice")
            if self.usd_per_hour is not None:
                raise ValueError("usd_per_hour prices one instance_type, not a fleet")
            if self.quota_instances is not None:
                raise ValueError(
                    "quota_instances counts instances of one type; with instance_types, drop"
                    " it (fleets run unlimited) or use one instance_type"
                )
        if self.shared_instances and self.quota_instances is not None:
            raise ValueError(
                "shared_instances runs unlimited; a quota on shared instances is not modelled"
            )
        if self.usd_per_hour is not None and not self.price_source:
            raise ValueError("usd_per_hour needs price_source: say where the price comes from")
        known = providers.names()
        for p in {self.provider, *(providers.split(t)[0] for t in self.types())}:
            if p not in known:
                raise ValueError(f"unknown provider {p!r}; valid: {', '.join(known)}")
        return self

    def types(self) -> list[str]:
        """The instance types this option may rent, as tco names them (bare for AWS,
        ``provider:type`` for the others; none for a custom instance)."""
        given = self.instance_types or ([self.instance_type] if self.instance_type else [])
        out = []
        for t in given:
            p, itype = providers.split(t)
            out.append(providers.qualified(self.provider if ":" not in t else p, itype))
        return out
