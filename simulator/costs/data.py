"""Data a training workload keeps and moves: the scenario's ``data:`` block, priced for each
option by where its data lives.

Cloud options pay AWS list prices (``pricing.storage``): datasets and checkpoints in S3 Standard,
a shared file system (FSx for Lustre or EFS) for the whole horizon, internet egress by monthly
tier, cross-AZ transfer both ways. Owned options pay the scenario's storage cost per TB-month (no
public figure is bundled) and its egress price (default 0: a flat-rate campus or colocation
uplink, an assumption). A kind says where its data lives with ``Kind.data_site``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from tco.pricing import storage
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import NonNeg, Strict
from tco.simulator.core.quote import Quote
from tco.simulator.costs.ledger import Category, declare

declare(
    Category("storage", "storage", None, "#7f7f7f", service="Storage/Object Storage"),
    Category("egress", "data transfer", None, "#bcbd22", service="Networking/Network Connectivity"),
)

FileSystem = Literal["fsx_lustre_persistent_125", "fsx_lustre_scratch_2", "efs_standard"]


class DataSpec(Strict):
    """What the workload stores and moves (TB = 1,024 GB)."""

    stored_tb: NonNeg = 0.0  # datasets, checkpoints and results kept, at the start
    stored_tb_added_per_month: NonNeg = 0.0  # kept checkpoints and results accumulate
    shared_filesystem_tb: NonNeg = 0.0  # a parallel file system next to the GPUs
    shared_filesystem: FileSystem = "fsx_lustre_persistent_125"
    egress_tb_per_month: NonNeg = 0.0  # models, results and logs leaving for the internet
    cross_az_tb_per_month: NonNeg = 0.0  # between availability zones (cloud only)
    owned_usd_per_tb_month: NonNeg | None = None  # storage next to owned servers
    owned_price_source: str | None = Field(default=None, min_length=1)
    owned_egress_usd_per_tb: NonNeg = 0.0
    # Where the data lives for cloud options: AWS (S3). A rental from another provider copies
    # it there: what is stored at the start, then what is added each month, out through AWS's
    # internet egress tiers. (Only AWS is a priced home: no other provider's storage or egress
    # price is in the bundled data.)
    home: Literal["aws"] = "aws"

    def any(self) -> bool:
        return any(
            v > 0
            for v in (
                self.stored_tb,
                self.stored_tb_added_per_month,
                self.shared_filesystem_tb,
                self.egress_tb_per_month,
                self.cross_az_tb_per_month,
            )
        )


def stored(data: DataSpec, months: int) -> np.ndarray:
    """TB kept in each month."""
    return data.stored_tb + data.stored_tb_added_per_month * np.arange(months)


def _quote(key: str, tier: int = 0) -> Quote:
    p = storage.prices()[key][tier]
    return Quote(p.item, p.usd, p.unit, p.source, p.as_of, f"{storage.REGION}; {p.confidence}")


def cloud(data: DataSpec, months: int, region: str) -> tuple[dict[str, np.ndarray], list[Quote]]:
    """Monthly USD by category, and the prices used, for data kept and moved on AWS."""
    gb = storage.GB_PER_TB
    s3 = storage.prices()["s3_standard"][0].usd
    fs = storage.prices()[data.shared_filesystem][0].usd
    keep = (stored(data, months) * s3 + data.shared_filesystem_tb * fs) * gb
    az = storage.prices()["cross_az"][0].usd
    out = storage.tiered_usd("internet_egress", data.egress_tb_per_month)
    move = np.full(months, out + data.cross_az_tb_per_month * gb * az * 2)  # paid both ways
    quotes = [_quote("s3_standard")]
    if data.shared_filesystem_tb:
        quotes.append(_quote(data.shared_filesystem))
    if data.egress_tb_per_month:
        quotes += [
            _quote("internet_egress", i) for i in range(len(storage.prices()["internet_egress"]))
        ]
    if data.cross_az_tb_per_month:
        quotes.append(_quote("cross_az"))
    if region != storage.REGION:
        quotes = [
            Quote(q.item, q.value, q.unit, q.source, q.as_of, f"{q.detail}; applied to {region}")
            for q in quotes
        ]
    return {"storage": keep, "egress": move}, quotes


def owned(data: DataSpec, months: int, file: str) -> tuple[dict[str, np.ndarray], list[Quote]]:
    """Monthly USD by category, and the prices used, for data kept next to owned servers."""
    tb = stored(data, months) + data.shared_filesystem_tb
    if data.owned_usd_per_tb_month is None:
        if not tb.any():
            tb_price = 0.0
        else:
            raise ScenarioError(
                file,
                "data.owned_usd_per_tb_month",
                "owned options keep data on storage of their own and no public $/TB-month is"
                " bundled; give your cost (e.g. a NAS's price / its life in months / its TB),"
                " or 0 when the servers' own disks hold it, with owned_price_source",
            )
    else:
        tb_price = data.owned_usd_per_tb_month
    source = data.owned_price_source or "set in the scenario file"
    quotes = [Quote("owned storage", tb_price, "USD per TB-month", "scenario", "undated", source)]
    egress = data.owned_egress_usd_per_tb
    quotes.append(
        Quote(
            "owned egress",
            egress,
            "USD per TB",
            "scenario" if egress else "default",
            "undated",
            "set in the scenario file" if egress else "ASSUMPTION: a flat-rate uplink",
        )
    )
    move = np.full(months, data.egress_tb_per_month * egress)
    return {"storage": tb * tb_price, "egress": move}, quotes


def moved_out(data: DataSpec, months: int, to: set[str]) -> tuple[np.ndarray, list[Quote]]:
    """USD a month to copy the data from its home to providers ``to`` (each copy paid): the
    stored TB in the first month, the TB added in each later one, through the home's internet
    egress tiers. The copy's storage there is not priced (no figure bundled)."""
    tb = np.full(months, data.stored_tb_added_per_month)
    tb[0] = data.stored_tb
    usd = np.array([storage.tiered_usd("internet_egress", t) for t in tb]) * len(to)
    tiers = range(len(storage.prices()["internet_egress"]))
    quotes = [
        Quote(
            q.item,
            q.value,
            q.unit,
            q.source,
            q.as_of,
            f"{q.detail}; the data copied from {data.home} to {', '.join(sorted(to))}"
            " (its storage there not priced)",
        )
        for q in (_quote("internet_egress", i) for i in tiers)
    ]
    return usd, quotes


def burst_copy(
    spec: DataSpec, copy_storage: np.ndarray, burst_gpu_h: np.ndarray
) -> dict[str, np.ndarray]:
    """What bursting costs in data (0.13.0 charged a hybrid's cloud jobs none): from the first
    month a job bursts, a copy of the data kept in the cloud (its storage and shared file
    system at AWS's prices, as the cloud option pays them), and the data copied out of the
    premises at their egress price: what is stored then, and each later month what was added.
    The results coming back are not priced (their size is not in the data: block)."""
    months = len(burst_gpu_h)
    used = np.nonzero(burst_gpu_h > 0)[0]
    if not len(used):
        return {}
    first = int(used[0])
    keep = np.where(np.arange(months) >= first, copy_storage, 0.0)
    tb = np.zeros(months)
    tb[first] = stored(spec, months)[first]
    tb[first + 1 :] = spec.stored_tb_added_per_month
    return {"storage": keep, "egress": tb * spec.owned_egress_usd_per_tb}
