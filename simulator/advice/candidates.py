"""Options the user did not list (``candidates:``): each kind proposes what it can make of
every GPU model the scenario allows (``Kind.propose``: servers of the catalog to buy, every
provider's shapes to rent), and only what cannot win is dropped: a GPU whose memory some job
does not fit (that work would never run), capex above the ceiling, and a proposal whose lower
bound on cash (``Proposal.bound_usd``: what no play of it can cost less than) is above the
cheapest option meeting the level on the base job stream so far, listed or already played
(times ``within``, 1.1 by default: the futures may favour it a little). The rest are played
lowest bound first beside the listed options and raced like them (``with_candidates``), so the
answer may be one of them, and is never dearer than the best listed option that meets the
level. An owned candidate too small to meet the level alone is played: it may be a mix's base.
"""

from __future__ import annotations

import math

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.engine.findings import Considered
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import with_option
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.proposals import Load, Proposal, Where
from tco.simulator.kinds.site import SiteFull
from tco.simulator.workload.speed import run_hours

# How each reason to drop a candidate begins, and what it is counted as in the answer's words.
MEMORY, CAPEX, BOUND, MOST = "memory:", "capex ", "costs at least ", "beyond the"
REASONS = {
    MEMORY: "memory",
    CAPEX: "capex above max_capex_usd",
    BOUND: "a lower bound on cash above the best meeting the level",
    MOST: "beyond candidates.most, bounds at or above the best meeting the level",
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
    where = Where(want.wanted_providers(), want.regions, want.offers_since, want.price_basis)
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


def with_candidates(
    prepared: Prepared, result: Result, book: PriceBook
) -> tuple[Prepared, Result, tuple[Considered, ...]]:
    """``prepared`` and its base ``result`` with the candidates that could win played as more
    options (each alone on the same jobs: the listed options' runs are kept), lowest bound
    first, and what was considered.

    A candidate is dropped only for what cannot win: it cannot run the work (memory) or is not
    allowed (capex), or its lower bound is above ``within`` x the cash of the best option that
    meets the level so far, listed or played (the best falls as candidates are played). Of those
    whose bound is at or above that best (so that only the futures might favour them), at most
    ``most`` are played; one whose bound is below it is always played (0.19.0 played the four
    lowest bounds of industrial's, four servers too small to meet the level, and dropped H100s
    on demand that met it 30 % cheaper)."""
    want = prepared.scenario.candidates
    if want is None:
        return prepared, result, ()
    meeting = [(o.total_cash_usd, o.name) for o in result.options if result.verdicts[o.name].meets]
    best, best_name = min(meeting) if meeting else (math.inf, "")
    found = proposed(prepared, book)
    order = sorted(
        (p for p, why in found if not why), key=lambda p: (p.bound_usd, p.option["name"])
    )
    dropped = {id(p): why for p, why in found if why}
    beyond = 0  # played with a bound at or above the best meeting cash of their time
    for p in order:
        if p.bound_usd > want.within * best:
            dropped[id(p)] = (
                f"{BOUND}${p.bound_usd:,.0f}, above {want.within:g} x {best_name}'s ${best:,.0f}"
                " (the best meeting the level)"
            )
            continue
        if p.bound_usd >= best and beyond >= want.most:
            dropped[id(p)] = (
                f"{MOST} {want.most} played whose bounds are at or above the best meeting the"
                f" level ({best_name}'s ${best:,.0f}; candidates.most)"
            )
            continue
        beyond += p.bound_usd >= best
        option = registry.get(p.option["kind"]).model.model_validate(p.option)
        try:
            prepared, result = with_option(prepared, result, option, book)
        except SiteFull as exc:
            dropped[id(p)] = f"beyond the site's power: {exc.message}"
            continue
        played = result.options[-1]
        if result.verdicts[played.name].meets and played.total_cash_usd < best:
            best, best_name = played.total_cash_usd, played.name
    considered = [
        Considered(p.option["name"], p.words, round(p.bound_usd, 2), dropped.get(id(p), ""))
        for p, _ in found
    ]
    considered.sort(key=lambda c: (bool(c.dropped), c.bound_usd, c.option))
    return prepared, result, tuple(considered)
