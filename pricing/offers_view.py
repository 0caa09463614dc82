"""``tco catalog gpus H100:8``: every instance with a GPU (and count), across providers, cheapest
per GPU-hour first. AWS from its bundled snapshot, the others from theirs; per provider and
instance type, the region where it is cheapest (its on-demand price; doubtful prices left out
unless asked for). Rows, for the CLI to print."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from tco.pricing import providers, snapshot
from tco.pricing.errors import PricingError

STALE_DAYS = 365  # a price older than a year is flagged (issue 42)
AWS_DATED_BY = "source: the bundled AWS snapshot's date (pricing/data/aws_snapshot.json)"


@dataclass(frozen=True)
class Row:
    provider: str
    instance_type: str  # as tco names it (provider:type)
    region: str
    gpu: str
    gpus: int
    gpu_memory_gb: float
    on_demand: float
    spot: float | None
    as_of: str
    confidence: str
    dated_by: str
    source: str
    date_known: bool  # False: only a date it held by (Offer.date_known)

    @property
    def per_gpu(self) -> float:
        return self.on_demand / self.gpus

    def age_days(self, today: date) -> int:
        return (today - date.fromisoformat(self.as_of)).days

    def date_words(self, today: date) -> str:
        """The date as a table shows it: ``<=`` before a date that bounds it (copied then, its
        own date unknown), ``old`` after one more than ``STALE_DAYS`` before ``today``."""
        bound = "" if self.date_known else "<="
        old = " old" if self.age_days(today) > STALE_DAYS else ""
        return f"{bound}{self.as_of}{old}"


def parse(text: str | None) -> tuple[str | None, int | None]:
    """``H100``, ``H100:8`` or None -> (GPU words, count); ValueError for a bad count."""
    if not text:
        return None, None
    gpu, sep, count = text.partition(":")
    if sep and not count.isdigit():
        raise ValueError(f"{text!r}: give GPU or GPU:COUNT, e.g. H100:8")
    return gpu.strip(), int(count) if sep else None


def _aws() -> list[Row]:
    out = []
    for region in snapshot.regions():
        for itype in snapshot.instance_types(region):
            e = snapshot.entry(itype, region)
            if e is None or e.on_demand_usd_per_hour is None or e.spec.gpu_model is None:
                continue
            s = e.spec
            out.append(
                Row(
                    "aws",
                    itype,
                    region,
                    s.gpu_model or "",
                    s.gpu_count,
                    s.gpu_memory_gib,
                    e.on_demand_usd_per_hour,
                    e.spot_avg_usd_per_hour or e.spot_min_usd_per_hour,
                    snapshot.as_of(),
                    "listed",
                    AWS_DATED_BY,
                    "AWS Price List API snapshot",
                    True,
                )
            )
    return out


def _others(provider: str) -> list[Row]:
    return [
        Row(
            o.provider,
            o.name,
            o.region,
            o.spec.gpu_model or "",
            o.spec.gpu_count,
            o.spec.gpu_memory_gib,
            o.on_demand_usd_per_hour,
            o.spot_usd_per_hour,
            o.as_of,
            o.confidence,
            o.dated_by,
            o.source,
            o.date_known,
        )
        for o in providers.get(provider).offers()
    ]


def rows(
    gpu_filter: str | None,
    provider: str | None = None,
    spot: bool = False,
    doubtful: bool = False,
) -> list[Row]:
    """Matching offers (``gpu_filter`` as :func:`parse` reads it; ``spot``: only those with a
    spot price, sorted by it), one per provider and type in its cheapest region."""
    words, count = parse(gpu_filter)
    names = providers.names()
    if provider is not None and provider not in names:
        raise PricingError(f"unknown provider {provider!r}; valid: {', '.join(names)}")
    found: list[Row] = []
    for p in [provider] if provider else names:
        found += _aws() if p == providers.AWS else _others(p)
    keep = [
        r
        for r in found
        if (words is None or words.lower() in r.gpu.lower())
        and (count is None or r.gpus == count)
        and (doubtful or r.confidence != "doubtful")
        and (not spot or r.spot is not None)
    ]
    best: dict[tuple[str, str], Row] = {}
    for r in keep:
        key = (r.provider, r.instance_type)
        if key not in best or (r.on_demand, r.region) < (best[key].on_demand, best[key].region):
            best[key] = r

    def price(r: Row) -> float:
        return (r.spot or 0.0) / r.gpus if spot else r.per_gpu

    return sorted(best.values(), key=lambda r: (price(r), r.provider, r.instance_type))
