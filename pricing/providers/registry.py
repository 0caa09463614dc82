"""Where GPUs are rented, as plug-ins of the price book: each provider answers the same
questions (an instance type's offer in a region: GPUs, memory, on-demand and spot $/h, where the
price comes from and how sure it is; its regions and types; how it bills). AWS stays the price
book's own live provider (boto3, cache, snapshot, moto offline); the others answer from the
bundled, dated ``clouds_snapshot.json`` (``pricing.providers.snapshot``).

Adding a provider is one module in this folder that calls :func:`register`, and its name in
``pricing/providers/__init__.py``. Other modules never switch on a provider's name: they ask the
provider. An instance type of another provider is written ``provider:instance_type``
(``lambda:gpu_8x_h100_sxm5``); a bare name is AWS's.
"""

from __future__ import annotations

import abc
import functools
from dataclasses import dataclass

from tco.pricing.errors import PricingError, closest
from tco.pricing.providers.links import Link, link
from tco.pricing.records import Basis, InstanceSpec

AWS = "aws"


@dataclass(frozen=True)
class Offer:
    """One instance type of a provider in one region. USD per instance-hour; ``confidence``:
    listed (the provider's list as a catalog copied it), secondary (a third-party copy or a
    transcription), marketplace (a median of few offers), doubtful (refused unless the scenario
    gives the price itself)."""

    provider: str
    instance_type: str  # the provider's own name
    region: str
    spec: InstanceSpec  # instance_type there is the qualified name, provider:type
    on_demand_usd_per_hour: float
    spot_usd_per_hour: float | None
    source: str
    as_of: str  # an ISO date: when the price held (see dated_by)
    confidence: str
    doubtful_because: str
    notes: str
    # How as_of is known: "source: ..." (the source's date), "agreed: ..." (a dated third party
    # quoted the same price then) or "copied: ..." (the day it was copied: an upper bound).
    dated_by: str = "source"

    @property
    def date_known(self) -> bool:
        """Whether the price is known to have held on ``as_of`` (not only by then)."""
        return not self.dated_by.startswith("copied")

    @property
    def name(self) -> str:
        return qualified(self.provider, self.instance_type)

    @property
    def basis(self) -> Basis:
        """How its price was set (``records.BASES``): a listed price is a list price, a
        marketplace's a median listing, any other a third party's report of one."""
        found: dict[str, Basis] = {"listed": "list", "marketplace": "marketplace"}
        return found.get(self.confidence, "secondary")


class Provider(abc.ABC):
    """What tco may ask of a place that rents GPUs. A provider says what it offers
    (:meth:`offers`); its regions, types and look-ups are derived from that, indexed once."""

    name: str
    label: str
    default_region: str  # used when the scenario's region is not one of its regions
    billing_note: str  # how it bills, with its source (or that it is assumed)
    origin: str = "bundled snapshot"  # where its prices are, for messages
    file: str | None = None  # a user's price file (None: a provider tco ships)

    @abc.abstractmethod
    def offers(self) -> list[Offer]:
        """Every offer, in a stable order (for the catalog)."""

    def link(self, instance_type: str) -> Link:
        """The network between two of its instances of this type, and how sure that is."""
        return link(self.name, instance_type)

    @functools.cached_property
    def _index(self) -> dict[tuple[str, str], Offer]:
        return {(o.region, o.instance_type): o for o in self.offers()}

    @functools.cached_property
    def gpu_models(self) -> dict[str, str | None]:
        """Each instance type's GPU model (the catalog's name; None: not in the catalog)."""
        return {t: o.spec.gpu_model for (_, t), o in sorted(self._index.items())}

    @functools.cached_property
    def _regions(self) -> tuple[str, ...]:
        return tuple(sorted({r for r, _ in self._index}))

    def regions(self) -> list[str]:
        return list(self._regions)

    def instance_types(self, region: str | None = None) -> list[str]:
        return sorted({t for r, t in self._index if region in (None, r)})

    def find(self, instance_type: str, region: str) -> Offer | None:
        return self._index.get((region, instance_type))

    def region_for(self, wanted: str, instance_type: str | None = None) -> str:
        """The region a scenario's region stands for here: itself when offered, else the
        provider's default (its regions are named its own way); for an instance type offered in
        neither, the region where it is cheapest (doubtful prices aside)."""
        where = wanted if wanted in self._regions else self.default_region
        if instance_type is None or self.find(instance_type, where) is not None:
            return where
        elsewhere = [
            o
            for o in self._index.values()
            if o.instance_type == instance_type and o.confidence != "doubtful"
        ]
        if not elsewhere:
            return where
        return min(elsewhere, key=lambda o: (o.on_demand_usd_per_hour, o.region)).region

    def offer(self, instance_type: str, region: str) -> Offer:
        """The offer (PricingError naming what is valid when there is none)."""
        where = self.region_for(region, instance_type)
        found = self.find(instance_type, where)
        if found is None:
            valid = self.instance_types(where)
            raise PricingError(
                f"{self.label} has no instance type {instance_type!r} in {where} in the"
                f" {self.origin}{closest(instance_type, valid)}; valid: {', '.join(valid)}"
            )
        return found


_PROVIDERS: dict[str, Provider] = {}


def register(p: Provider) -> Provider:
    if p.name in _PROVIDERS and _PROVIDERS[p.name] is not p:
        raise ValueError(f"provider {p.name!r} is registered twice")
    _PROVIDERS[p.name] = p
    return p


def register_user(p: Provider) -> Provider:
    """A provider from a user's price file: it replaces an earlier file of the same name (a
    later run in the same process), never a provider tco ships."""
    old = _PROVIDERS.get(p.name)
    if p.name == AWS or (old is not None and old.file is None):
        raise PricingError(f"provider name {p.name!r} is tco's own; give the file another name")
    _PROVIDERS[p.name] = p
    return p


def shipped() -> list[str]:
    """The providers tco ships (not a user's price files), AWS first."""
    return [AWS, *sorted(n for n, p in _PROVIDERS.items() if p.file is None)]


def names() -> list[str]:
    """Every provider tco knows, AWS first."""
    return [AWS, *sorted(_PROVIDERS)]


def known(given: list[str] | None) -> list[str] | None:
    """``given`` when each is a provider tco knows, named once (ValueError naming the valid
    ones otherwise): a scenario field's validator."""
    valid = names()
    for p in given or []:
        if p not in valid:
            raise ValueError(f"unknown provider {p!r}; valid: {', '.join(valid)}")
    if given is not None and len(set(given)) != len(given):
        raise ValueError("a provider is named twice")
    return given


@functools.cache
def _aws_regions() -> frozenset[str]:
    """Every region of every AWS partition as botocore's bundled endpoints list them (offline;
    the price book asks AWS only of the ones it prices)."""
    import boto3

    session = boto3.session.Session()
    return frozenset(
        r
        for part in session.get_available_partitions()
        for r in session.get_available_regions("ec2", partition_name=part)
    )


def known_regions(given: list[str] | None) -> list[str] | None:
    """``given`` when each is a region AWS or one of the providers tco knows names (ValueError
    naming the closest and the valid ones otherwise): a region no provider has would leave a
    search no rental to propose, and say only that none fits."""
    if not given:
        return given
    valid = sorted(_aws_regions().union(*(p.regions() for p in _PROVIDERS.values())))
    for r in given:
        if r not in valid:
            raise ValueError(
                f"unknown region {r!r}{closest(r, valid)}; give regions as AWS or the providers"
                f" name them: {', '.join(valid)}"
            )
    return given


def get(name: str) -> Provider:
    """A provider other than AWS (PricingError naming the valid ones)."""
    found = _PROVIDERS.get(name)
    if found is None:
        raise PricingError(
            f"unknown provider {name!r}{closest(name, names())}; valid: {', '.join(names())}"
        )
    return found


def split(name: str) -> tuple[str, str]:
    """``provider:instance_type`` -> (provider, type); a bare name is AWS's."""
    provider, sep, itype = name.partition(":")
    return (provider, itype) if sep else (AWS, name)


def qualified(provider: str, instance_type: str) -> str:
    """The name an instance type goes by in tco: bare for AWS, ``provider:type`` otherwise."""
    if ":" in instance_type:
        return instance_type
    return instance_type if provider == AWS else f"{provider}:{instance_type}"
