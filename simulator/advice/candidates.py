"""Options the user did not list (``candidates:``): each kind proposes what it can make of
every GPU model the scenario allows (``Kind.propose``: servers of the catalog to buy, every
provider's shapes to rent), and what cannot win is dropped before it is played: a GPU whose
memory some job does not fit (that work would never run), capex above the ceiling, and a
proposal whose lower bound on cash (``Proposal.bound_usd``: what no play of it can cost less
than) is above the cheapest listed option that meets the level on the base job stream (times
``within``, 1.1 by default: the futures may favour it a little). Of the rest, the ``most``
with the lowest bounds are played beside the listed options and raced like them, so the answer
may be one of them, and is never dearer than the best listed option that meets the level.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.engine.findings import Considered
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import with_option
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.proposals import Load, Proposal, Where
from tco.simulator.workload.speed import run_hours

# How each reason to drop a candidate begins, and what it is counted as in the answer's words.
MEMORY, CAPEX, BOUND = "memory:", "capex ", "costs at least "
REASONS = {
    MEMORY: "memory",
    CAPEX: "capex above max_capex_usd",
    BOUND: "a lower bound on cash above the best listed option's",
}


def reason(dropped: str) -> str:
    """A dropped candidate's reason without its figures, to count candidates by."""
    return next((words for head, words in REASONS.items() if dropped.startswith(head)), dropped)


def _load(prepared: Prepared) -> Load:
    jobs = prepared.jobs
    return Load(
        jobs=jobs,
        gpu_hours=lambda hw: float(np.sum(jobs.gpus * run_hours(jobs, hw))),
        start=prepared.scenario.start,
        horizon_h=prepared.horizon_h,
        months=prepared.scenario.horizon_months,
    )


def _why_not(p: Proposal, largest_gb: float, max_capex: float | None, listed: set[str]) -> str:
    if p.option["name"] in listed:
        return "named like a listed option"
    if largest_gb > p.memory_gb:
        return f"{MEMORY} a job needs {largest_gb:g} GB a GPU, it has {p.memory_gb:g} GB"
    if max_capex is not None and p.capex_usd is not None and p.capex_usd > max_capex:
        return f"{CAPEX}${p.capex_usd:,.0f} for the load, above max_capex_usd ${max_capex:,.0f}"
    return ""


def proposed(prepared: Prepared, book: PriceBook) -> list[tuple[Proposal, str]]:
    """Every proposal of every kind for every GPU model allowed, with why it cannot run the
    work or is not allowed ('' when it can)."""
    want = prepared.scenario.candidates
    assert want is not None
    sc = prepared.scenario
    ctx = sc.context(prepared.file, 0, book)
    load = _load(prepared)
    site = {o.name: o for o in sc.options}
    listed = set(site)
    largest = float(prepared.jobs.memory_gb.max()) if len(prepared.jobs) else 0.0
    where = Where(want.wanted_providers(), want.regions, want.offers_since)
    out = []
    for gpu in want.gpu_models():
        for name in registry.names():
            kind = registry.get(name)
            if not kind.can(Can.PROPOSE):
                continue
            if not (want.owned if kind.buys_hardware else want.rented):
                continue
            for p in kind.propose(gpu, where, ctx, load, site):
                out.append((p, _why_not(p, largest, want.max_capex_usd, listed)))
    return out


def pruned(
    found: list[tuple[Proposal, str]], best_usd: float, within: float, most: int
) -> tuple[list[Proposal], list[Considered]]:
    """The proposals to play (at most ``most``, lowest bounds first) and every one considered,
    with why it was dropped: it cannot run the work, or its bound is above ``within`` x
    ``best_usd`` (the best listed option's cash; inf: none meets the level, nothing is
    dropped for cost)."""
    ceiling = within * best_usd
    alive = sorted(
        (p for p, why in found if not why and p.bound_usd <= ceiling),
        key=lambda p: (p.bound_usd, p.option["name"]),
    )
    kept = alive[:most]
    kept_ids = {id(p) for p in kept}
    considered = []
    for p, why in found:
        if not why and p.bound_usd > ceiling:
            why = (
                f"{BOUND}${p.bound_usd:,.0f}, above {within:g} x the best listed"
                f" option's ${best_usd:,.0f}"
            )
        elif not why and id(p) not in kept_ids:
            why = f"not among the {most} with the lowest bounds (candidates.most)"
        considered.append(Considered(p.option["name"], p.words, round(p.bound_usd, 2), why))
    considered.sort(key=lambda c: (bool(c.dropped), c.bound_usd, c.option))
    return kept, considered


def with_candidates(
    prepared: Prepared, result: Result, book: PriceBook
) -> tuple[Prepared, Result, tuple[Considered, ...]]:
    """``prepared`` and its base ``result`` with the kept candidates played as more options
    (each alone on the same jobs: the listed options' runs are kept), and what was
    considered."""
    want = prepared.scenario.candidates
    if want is None:
        return prepared, result, ()
    meets = [o.total_cash_usd for o in result.options if result.verdicts[o.name].meets]
    best = min(meets) if meets else math.inf
    kept, considered = pruned(proposed(prepared, book), best, want.within, want.most)
    for p in kept:
        entry: dict[str, Any] = p.option
        option = registry.get(entry["kind"]).model.model_validate(entry)
        prepared, result = with_option(prepared, result, option, book)
    return prepared, result, tuple(considered)
