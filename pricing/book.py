"""The price book: the one seam through which the simulator asks for prices and instance specs.

A PriceBook answers for an instance type in a region: on-demand $/h, Savings Plan $/h by plan
type, term and payment option, reserved $/h, spot $/h, and the instance's specs. Every answer is a
:class:`~pricing.records.Price` that names its source and date. The book never invents a price it
does not have: it raises :class:`~pricing.errors.UnknownPrice` saying what to do instead.
Scenario overrides are applied by the caller, which knows them.

Where prices come from (``mode``):

- ``snapshot``: the bundled, dated snapshot only.
- ``cache``: earlier live answers on disk (a stale one is used with a warning).
- ``live``: AWS through boto3 now; answers are cached; any failure stops the run.
- ``auto`` (default): without AWS credentials, the snapshot. With them, a fresh cache entry or a
  live answer; if the live call fails, a warning and the stale cache or the snapshot.

Warnings and notices collect in ``warnings``: the caller shows them. Each instance type is
resolved once per book, so one run never mixes sources for the same instance silently.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tco.pricing import providers, snapshot
from tco.pricing.cache import PriceCache, default_dir
from tco.pricing.entry import PriceEntry
from tco.pricing.errors import PricingError, UnknownPrice, closest
from tco.pricing.providers import Offer
from tco.pricing.providers.links import Link
from tco.pricing.records import (
    MODES,
    FxRate,
    InstanceSpec,
    Mode,
    Payment,
    PlanType,
    Price,
    Source,
)

# Which availability zone's spot price: the words a Price's detail uses for each.
SPOT_ZONES = {
    "lowest": "spot price (lowest AZ)",
    "average": "spot price (mean over AZs)",
    "highest": "spot price (highest AZ)",
}


@dataclass(frozen=True)
class Entry:
    """What is known of one instance type in one region, and from where."""

    data: PriceEntry
    source: Source
    as_of: str
    origin: str  # for people: "bundled AWS snapshot", "AWS Price List API", ...
    fetched_at: dt.datetime | None = None  # for cached live answers
    notes: tuple[str, ...] = ()  # why parts of a live answer are unknown


class PriceBook:
    """Prices and specs for EC2 instance types, from the source ``mode`` selects."""

    def __init__(
        self,
        mode: Mode = "snapshot",
        *,
        session: Any = None,
        cache: PriceCache | None = None,
        now: dt.datetime | None = None,
        offline: bool = False,
    ) -> None:
        if mode not in MODES:
            raise PricingError(f"unknown price mode {mode!r}; valid: {', '.join(MODES)}")
        self.mode: Mode = mode
        self.offline = offline
        self._session = session
        self.cache = (
            cache
            if cache is not None or offline
            else (PriceCache(default_dir()) if mode != "snapshot" else None)
        )
        self.now = now or dt.datetime.now(dt.UTC)
        self.warnings: list[str] = []
        self._entries: dict[tuple[str, str], Entry] = {}
        # Rates for prices AWS quotes in another currency (AWS China: CNY), by currency.
        self.rates: dict[str, FxRate] = {}

    def converting(self, rates: dict[str, FxRate]) -> PriceBook:
        """This book (its entries, cache and warnings shared) answering prices AWS quotes in
        another currency at ``rates``: one scenario's dated rates, not the book's."""
        view = copy.copy(self)
        view.rates = dict(rates)
        return view

    def frozen(self) -> PriceBook:
        """A book that answers only from what this one has resolved (and the bundled snapshot
        for anything else): picklable, for the workers of a sweep, never calling AWS again."""
        book = PriceBook("snapshot", now=self.now)
        book._entries = dict(self._entries)
        book.rates = dict(self.rates)
        return book

    # ------------------------------------------------------------ where entries come from

    def session(self) -> Any:
        if self._session is None:
            import boto3  # imported on first live use only
            from botocore.exceptions import BotoCoreError

            from tco.pricing.aws import LivePriceError

            try:
                self._session = boto3.Session()
            except BotoCoreError as exc:  # e.g. AWS_PROFILE names a profile that does not exist
                raise LivePriceError(
                    f"AWS session: {exc}; fix AWS_PROFILE or ~/.aws/config, or use"
                    " --prices snapshot"
                ) from None
        return self._session

    def has_credentials(self) -> bool:
        """Whether boto3 finds AWS credentials (environment, profile, instance role...). A
        profile that cannot be read counts as none, with a warning saying why."""
        try:
            return self.session().get_credentials() is not None
        except Exception as exc:
            self.warnings.append(f"AWS credentials unusable ({exc})")
            return False

    def _snapshot(self, instance_type: str, region: str) -> Entry:
        if region not in snapshot.regions():
            valid = snapshot.regions()
            raise PricingError(
                f"region {region!r} is not in the bundled price snapshot"
                f"{closest(region, valid)}; valid: {', '.join(valid)}"
            )
        found = snapshot.entry(instance_type, region)
        if found is None:
            valid = snapshot.instance_types(region)
            raise PricingError(
                f"instance type {instance_type!r} is not in the bundled price snapshot for "
                f"{region}{closest(instance_type, valid)}; valid: {', '.join(valid)}"
            )
        return Entry(found, "snapshot", snapshot.as_of(), "bundled AWS snapshot")

    def _live(self, instance_type: str, region: str) -> Entry:
        from tco.pricing import aws

        data, notes = aws.fetch_entry(self.session(), instance_type, region, self.now)
        if self.offline:
            return Entry(
                data,
                "offline-replay",
                snapshot.as_of(),
                "bundled snapshot replayed through the AWS APIs under moto (offline)",
                notes=tuple(notes),
            )
        if self.cache is not None and not notes:  # only whole answers are worth keeping
            self.cache.put(instance_type, region, data, self.now)
        return Entry(
            data,
            "aws-api",
            self.now.date().isoformat(),
            "AWS Price List API (live)",
            notes=tuple(notes),
        )

    def _cached(self, instance_type: str, region: str) -> Entry | None:
        if self.cache is None:
            return None
        hit = self.cache.get(instance_type, region)
        self.warnings.extend(self.cache.warnings)
        self.cache.warnings.clear()
        if hit is None:
            return None
        return Entry(
            hit.entry,
            "cache",
            hit.fetched_at.date().isoformat(),
            f"cached AWS answer fetched {hit.fetched_at:%Y-%m-%d %H:%M} UTC",
            hit.fetched_at,
        )

    def _fresh(self, e: Entry) -> bool:
        return (
            self.cache is not None
            and e.fetched_at is not None
            and self.now - e.fetched_at <= self.cache.ttl
        )

    def entry(self, instance_type: str, region: str) -> Entry:
        """Resolve (once) what is known about an instance type in a region."""
        key = (instance_type, region)
        if key not in self._entries:
            self._entries[key] = self._resolve(instance_type, region)
        return self._entries[key]

    def _resolve(self, instance_type: str, region: str) -> Entry:
        from tco.pricing.aws import LivePriceError

        if self.mode == "snapshot":
            return self._snapshot(instance_type, region)
        if self.mode == "live":
            fetched = self._live(instance_type, region)
            self.warnings.extend(fetched.notes)
            return fetched
        seen = len(self.warnings)
        cached = self._cached(instance_type, region)
        if self.mode == "cache":
            if cached is None:
                why = "; ".join(self.warnings[seen:]) or "none stored"
                raise PricingError(
                    f"no usable cached prices for {instance_type} in {region} ({why}); run `tco"
                    f" prices refresh {instance_type} --region {region}` with AWS credentials,"
                    " or use --prices snapshot"
                )
            if not self._fresh(cached):
                self.warnings.append(
                    f"cached prices for {instance_type} in {region} are from {cached.as_of},"
                    " older than the cache TTL; `tco prices refresh` updates them"
                )
            return cached
        # auto
        if not self.offline and not self.has_credentials():
            note = (
                f"no AWS credentials (SSO users: `aws sso login`): prices from the bundled"
                f" snapshot as of {snapshot.as_of()}"
            )
            if note not in self.warnings:
                self.warnings.append(note)
            return self._snapshot(instance_type, region)
        if cached is not None and self._fresh(cached):
            return cached
        live: Entry | None = None
        try:
            live = self._live(instance_type, region)
            if live.data.on_demand_usd_per_hour is not None:
                self.warnings.extend(live.notes)
                return live
            reason = "; ".join(live.notes)
        except LivePriceError as exc:
            reason = str(exc)
        try:
            fallback = cached or self._snapshot(instance_type, region)
        except PricingError:
            if live is None:
                raise
            self.warnings.extend(live.notes)
            return live  # the specs and what else was fetched beat nothing
        self.warnings.append(
            f"live prices failed ({reason}); using the {fallback.origin}"
            f" as of {fallback.as_of} for {instance_type} in {region}"
        )
        return fallback

    # ------------------------------------------------------------ the questions

    def spec(self, instance_type: str, region: str) -> InstanceSpec:
        """GPU model and count, memory, vCPUs and links of an instance type (``provider:type``
        for another provider's)."""
        if ":" in instance_type:
            return self._offer(instance_type, region, doubtful_ok=True).spec
        return self.entry(instance_type, region).data.spec

    def gpu_types(self, provider: str, region: str, gpu: Callable[[str], bool]) -> list[str]:
        """Every instance type of ``provider`` whose GPU ``gpu`` accepts (catalog names), as tco
        names them. AWS's are the bundled snapshot's types in ``region`` (their prices then come
        from this book's mode); another provider's, every type it offers (priced where
        :meth:`region_of` says)."""
        if provider == providers.AWS:
            models = _aws_gpu_models(region)
        else:
            models = providers.get(provider).gpu_models
        return [
            providers.qualified(provider, t)
            for t, model in sorted(models.items())
            if model is not None and gpu(model)
        ]

    def dated(self, instance_type: str, region: str) -> tuple[str, bool]:
        """When the price of ``instance_type`` held (ISO date) and whether that is known, or
        only a date it held by (a row copied from a catalogue whose commit dates are unknown)."""
        if ":" in instance_type:
            o = self._offer(instance_type, region, doubtful_ok=True)
            return o.as_of, o.date_known
        return self.entry(instance_type, region).as_of, True

    def link(self, instance_type: str) -> Link | None:
        """The network between two instances of another provider's type, with its source
        (None for AWS's, whose links come with the instance's spec from AWS's pages)."""
        if ":" not in instance_type:
            return None
        provider, itype = providers.split(instance_type)
        return providers.get(provider).link(itype)

    def region_of(self, instance_type: str, region: str) -> str:
        """The region an instance type is priced in when the scenario asks for ``region``
        (another provider's default when it has no such region)."""
        if ":" not in instance_type:
            return region
        provider, itype = providers.split(instance_type)
        return providers.get(provider).region_for(region, itype)

    def _offer(self, name: str, region: str, doubtful_ok: bool = False) -> Offer:
        """Another provider's offer (``provider:type``); a doubtful price is refused."""
        provider, itype = providers.split(name)
        found = providers.get(provider).offer(itype, region)
        if found.confidence == "doubtful" and not doubtful_ok:
            raise UnknownPrice(
                f"the price of {name} in {found.region} is doubtful ({found.doubtful_because};"
                f" {found.source}): choose another region or type, or give usd_per_hour with"
                " price_source"
            )
        return found

    def _offer_price(self, o: Offer, value: float | None, what: str) -> Price:
        label = providers.get(o.provider).label
        if value is None:
            raise UnknownPrice(
                f"{label} quotes no {what} for {o.instance_type} in {o.region} in the bundled"
                " snapshot; choose another kind or type, or give usd_per_hour with price_source"
            )
        sure = "" if o.confidence == "listed" else f"; {o.confidence} source"
        detail = (
            f"{what}, {label} {o.instance_type}, {o.region}, bundled snapshot of other clouds'"
            f" prices ({o.source}{sure})"
        )
        when = o.as_of if o.date_known else f"by {o.as_of}"
        return Price(float(value), "clouds-snapshot", when, detail, o.basis)

    def _price(
        self,
        e: Entry,
        value: float | None,
        what: str,
        instance_type: str,
        region: str,
        unlabelled: bool = False,  # the API names no currency (spot prices)
    ) -> Price:
        if value is None:
            why = f" ({'; '.join(e.notes)})" if e.notes else ""
            raise UnknownPrice(
                f"the {what} of {instance_type} in {region} is not known from the {e.origin}"
                f" (as of {e.as_of}){why}; give it in the scenario or run with live prices"
            )
        detail = f"{what}, {instance_type}, {region}, {e.origin}"
        quoted = e.data.currency
        if quoted == "USD":
            return Price(float(value), e.source, e.as_of, detail)
        rate = self.rates.get(quoted)
        if rate is None:
            raise UnknownPrice(
                f"the {what} of {instance_type} in {region} is quoted in {quoted} ({value:g}"
                f" {quoted}/h, {e.origin}) and tco computes in USD: set the scenario's"
                f" currency: {quoted} with exchange_rate: {{per_usd, as_of, source}} to convert"
                " it, or give usd_per_hour"
            )
        assumed = f" (the API names no currency: taken as {quoted})" if unlabelled else ""
        return Price(
            float(value) / rate.per_usd,
            e.source,
            e.as_of,
            f"{detail}: {value:g} {quoted}/h{assumed} at {rate.text()}",
        )

    def on_demand(self, instance_type: str, region: str) -> Price:
        """Linux, shared-tenancy on-demand $/h of one instance."""
        if ":" in instance_type:
            o = self._offer(instance_type, region)
            return self._offer_price(o, o.on_demand_usd_per_hour, "on-demand")
        e = self.entry(instance_type, region)
        return self._price(
            e, e.data.on_demand_usd_per_hour, "on-demand price", instance_type, region
        )

    def spot(self, instance_type: str, region: str, zone: str = "lowest") -> Price:
        """Spot $/h over the region's availability zones (Local Zones excluded): the ``lowest``,
        the ``average`` or the ``highest`` (``SPOT_ZONES``). Where a source knows only the lowest
        (a cache written before 0.10.0), the average and highest are unknown, not guessed."""
        if zone not in SPOT_ZONES:
            raise ValueError(f"zone: one of {', '.join(SPOT_ZONES)}, not {zone!r}")
        if ":" in instance_type:  # one spot price per region in the source data
            o = self._offer(instance_type, region)
            return self._offer_price(o, o.spot_usd_per_hour, "spot price")
        e = self.entry(instance_type, region)
        d = e.data
        value = {
            "lowest": d.spot_min_usd_per_hour,
            "average": d.spot_avg_usd_per_hour,
            "highest": d.spot_max_usd_per_hour,
        }[zone]
        return self._price(e, value, SPOT_ZONES[zone], instance_type, region, unlabelled=True)

    def spot_interruption_bucket(self, instance_type: str, region: str) -> str | None:
        """The Spot Instance Advisor's interruption bucket (``<5%`` ... ``>20%``) from the
        bundled snapshot whatever the price source (no API gives it); None when unknown."""
        found = snapshot.entry(instance_type, region) if region in snapshot.regions() else None
        return None if found is None else found.spot_interruption_bucket

    def reserved(
        self, instance_type: str, region: str, years: int, offering: str, payment: Payment
    ) -> Price:
        """Effective $/h of a reserved instance (upfront fee amortised over the term)."""
        e = self.entry(instance_type, region)
        key = f"{years}yr/{offering}/{payment}"
        return self._price(
            e,
            e.data.reserved.get(key),
            f"reserved {key} rate",
            instance_type,
            region,
        )

    def savings_plan(
        self, instance_type: str, region: str, plan: PlanType, years: int, payment: Payment
    ) -> Price:
        """Savings Plan $/h for one instance (unknown in the snapshot: AWS does not publish it)."""
        e = self.entry(instance_type, region)
        key = f"{plan}/{years}yr/{payment}"
        return self._price(
            e,
            (e.data.savings_plans or {}).get(key),
            f"{plan} Savings Plan {years}yr {payment} rate",
            instance_type,
            region,
        )


@functools.cache
def _aws_gpu_models(region: str) -> dict[str, str | None]:
    """The bundled snapshot's AWS instance types in ``region`` and their GPU models (read once:
    a rental by GPU asks on every plan)."""
    if region not in snapshot.regions():
        return {}
    out: dict[str, str | None] = {}
    for itype in snapshot.instance_types(region):
        e = snapshot.entry(itype, region)
        if e is not None:
            out[itype] = e.spec.gpu_model
    return out
