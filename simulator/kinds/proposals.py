"""What a kind proposes when the search may add options from the catalog (``candidates:``):
each kind that can turn a GPU model into an option of its own says how (``Kind.propose``), and
``advice.candidates`` prunes and ranks what they propose. Kinds know the catalog and the price
data; the advice knows the service level and the options listed."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tco.pricing.records import Basis
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware


@dataclass(frozen=True)
class Load:
    """The work a proposal is sized and bounded by: the jobs, the busy GPU-hours all of them
    take on given hardware over the horizon, and the horizon (its start, hours and months)."""

    jobs: Jobs
    gpu_hours: Callable[[Hardware], float]
    start: str
    horizon_h: float
    months: int

    @property
    def max_gpus(self) -> int:
        return int(self.jobs.gpus.max()) if len(self.jobs) else 1


@dataclass(frozen=True)
class Where:
    """Where a proposal may rent: the providers, and the regions allowed (None: any); and the
    ways its prices may have been set (``pricing.records.BASES``; None: any), owned or rented."""

    providers: list[str]
    regions: list[str] | None = None
    offers_since: str | None = None  # an ISO date (RentByGpu.offers_since)
    bases: list[Basis] | None = None


@dataclass(frozen=True)
class Proposal:
    """An option proposed from the catalog: its scenario entry, it in words, the most memory
    one of its GPUs has (GB), a lower bound on its cash over the horizon for the load (USD:
    what no play of it can cost less than; ``advice.candidates`` drops a proposal whose bound
    is above the best listed option's cash), and the capex it commits (None: nothing
    bought)."""

    option: dict[str, Any]
    words: str
    memory_gb: float
    bound_usd: float
    capex_usd: float | None = None


def slug(text: str) -> str:
    """A name part from catalog words: 'HGX H100 8-GPU' -> 'hgx-h100-8-gpu'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
