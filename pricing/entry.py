"""What is known of one EC2 instance type in one region: the record every price source fills.

The bundled snapshot, the cache of live answers and a live fetch all give a :class:`PriceEntry`;
the price book reads only this record. Its dict form (:meth:`PriceEntry.to_dict`) is the shape
stored in ``aws_snapshot.json`` and in cache files, and :func:`snapshot_document` is the one
builder of a snapshot file (used by ``tco prices snapshot`` and ``scripts/build_snapshot.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields
from typing import Any

from tco.pricing.records import InstanceSpec

SNAPSHOT_SCHEMA = "tco.aws-snapshot/1"
# The stored spec: InstanceSpec's fields but the instance type (it is the entry's key).
_SPEC_FIELDS = tuple(f.name for f in fields(InstanceSpec) if f.name != "instance_type")


@dataclass(frozen=True, kw_only=True)
class PriceEntry:
    """Prices per instance-hour in ``currency`` (None: unknown) and the instance's specs.

    ``currency``: what AWS quoted every figure in, USD but in AWS China (CNY); the price book
    converts at the scenario's dated rate when it answers, so a cached answer never holds a rate.

    ``reserved``: effective $/h of reserved terms, keyed ``"<years>yr/<class>/<payment>"`` (the
    upfront fee amortised over the term). ``savings_plans``: plan $/h keyed
    ``"<plan>/<years>yr/<payment>"``, None when unknown (the bundled snapshot: AWS does not
    publish them). ``price_list_*``: the Price List version a live answer came from.
    ``spot_interruption_bucket``: the Spot Instance Advisor's frequency of interruption in the
    trailing month (``<5%`` ... ``>20%``); bundled data only, no API gives it.
    ``spot_avg_usd_per_hour``, ``spot_max_usd_per_hour``: the mean and the highest current spot
    price over the region's availability zones (None: only the lowest is known).
    """

    instance_type: str
    on_demand_usd_per_hour: float | None
    spot_min_usd_per_hour: float | None
    reserved: dict[str, float]
    savings_plans: dict[str, float] | None
    spec: InstanceSpec
    price_list_version: str | None = None
    price_list_publication_date: str | None = None
    spot_interruption_bucket: str | None = None
    currency: str = "USD"
    spot_avg_usd_per_hour: float | None = None
    spot_max_usd_per_hour: float | None = None

    @classmethod
    def from_dict(cls, instance_type: str, data: Any) -> PriceEntry:
        """Read the stored form, checking every value (ValueError says which is wrong)."""
        if not isinstance(data, dict):
            raise ValueError("a price entry must be a mapping")
        spec = data.get("spec")
        if not isinstance(spec, dict) or set(_SPEC_FIELDS) - set(spec):
            raise ValueError(f"spec must have {', '.join(_SPEC_FIELDS)}")
        sp = data.get("savings_plans")
        return cls(
            instance_type=instance_type,
            on_demand_usd_per_hour=_usd(data.get("on_demand_usd_per_hour"), "on-demand"),
            spot_min_usd_per_hour=_usd(data.get("spot_min_usd_per_hour"), "spot price"),
            reserved=_rates(data.get("reserved") or {}, "reserved"),
            savings_plans=None if sp is None else _rates(sp, "savings_plans"),
            spec=_spec(instance_type, spec),
            price_list_version=data.get("price_list_version"),
            price_list_publication_date=data.get("price_list_publication_date"),
            spot_interruption_bucket=_bucket(data.get("spot_interruption_bucket")),
            currency=_currency(data.get("currency", "USD")),
            spot_avg_usd_per_hour=_usd(data.get("spot_avg_usd_per_hour"), "zone-average spot"),
            spot_max_usd_per_hour=_usd(data.get("spot_max_usd_per_hour"), "highest-zone spot"),
        )

    def to_dict(self, price_list: bool = True) -> dict[str, Any]:
        """The stored form (``price_list``: keep the Price List version fields)."""
        s = self.spec
        out: dict[str, Any] = {
            "on_demand_usd_per_hour": self.on_demand_usd_per_hour,
            "reserved": dict(self.reserved),
            "savings_plans": None if self.savings_plans is None else dict(self.savings_plans),
            "spot_min_usd_per_hour": self.spot_min_usd_per_hour,
            "spot_avg_usd_per_hour": self.spot_avg_usd_per_hour,
            "spot_max_usd_per_hour": self.spot_max_usd_per_hour,
            "spot_interruption_bucket": self.spot_interruption_bucket,
            "spec": {f: getattr(s, f) for f in _SPEC_FIELDS},
        }
        if self.currency != "USD":  # (USD entries keep the snapshot's and cache's bytes)
            out["currency"] = self.currency
        if price_list:
            out["price_list_version"] = self.price_list_version
            out["price_list_publication_date"] = self.price_list_publication_date
        return out


def _spec(instance_type: str, s: dict[str, Any]) -> InstanceSpec:
    """The stored spec, each field converted to its declared type."""
    model = s["gpu_model"]
    return InstanceSpec(
        instance_type=instance_type,
        gpu_model=None if model is None else str(model),
        **{
            f.name: {"int": int, "float": float, "str": str, "bool": bool}[str(f.type)](s[f.name])
            for f in fields(InstanceSpec)
            if f.name not in ("instance_type", "gpu_model")
        },
    )


SPOT_BUCKETS = ("<5%", "5-10%", "10-15%", "15-20%", ">20%")


def _bucket(value: Any) -> str | None:
    if value is None:
        return None
    if value in SPOT_BUCKETS:
        return str(value)
    raise ValueError(f"spot interruption bucket {value!r} is not one of {', '.join(SPOT_BUCKETS)}")


def _currency(value: Any) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Z]{3}", value):
        raise ValueError(f"currency {value!r} is not an ISO 4217 code such as USD or CNY")
    return value


# As a scenario's own prices are bounded (simulator.core.fields.BIG): a stored price of 1e308 is
# a corrupt file, and summing it overflowed to inf.
LARGEST_USD_PER_HOUR = 1e9


def _usd(value: Any, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} price {value!r} is not a number")
    if not 0 <= value <= LARGEST_USD_PER_HOUR:
        raise ValueError(
            f"{what} price {value!r} is not a USD/h from 0 to {LARGEST_USD_PER_HOUR:g}"
        )
    return float(value)


def _rates(table: Any, what: str) -> dict[str, float]:
    if not isinstance(table, dict):
        raise ValueError(f"{what} must be a mapping of term to USD/h")
    out = {}
    for key, value in table.items():
        rate = _usd(value, f"{what} {key}")
        if rate is not None:
            out[str(key)] = rate
    return out


def snapshot_document(
    entries: dict[str, dict[str, PriceEntry]], as_of: str, provenance: dict[str, str]
) -> dict[str, Any]:
    """A snapshot file's document: region -> instance type -> entry (Price List fields left
    out), with its date and provenance."""
    return {
        "schema": SNAPSHOT_SCHEMA,
        "as_of": as_of,
        "currency": "USD",
        "provenance": provenance,
        "regions": {
            region: {t: e.to_dict(price_list=False) for t, e in table.items()}
            for region, table in entries.items()
        },
    }


def snapshot_json(doc: dict[str, Any]) -> str:
    """The file text: sorted keys, one-space indent, trailing newline (stable bytes)."""
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def check_snapshot(doc: Any, where: str) -> dict[str, Any]:
    """The document, if it is a snapshot this version reads; ValueError otherwise."""
    if not isinstance(doc, dict) or doc.get("schema") != SNAPSHOT_SCHEMA:
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise ValueError(f"{where}: schema is {found!r}, expected {SNAPSHOT_SCHEMA!r}")
    for key in ("as_of", "currency", "provenance", "regions"):
        if key not in doc:
            raise ValueError(f"{where}: no {key!r}")
    if doc["currency"] != "USD":
        raise ValueError(f"{where}: currency is {doc['currency']!r}; tco reads USD snapshots")
    return doc
