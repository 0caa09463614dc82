"""The answer a budget owner acts on: the cheapest option that meets the service level.

Each option is judged against the scenario's service level (``simulator.service_level``). The
recommendation is the cheapest option (cash over the horizon) that meets it; if none does, the
one that comes closest (the smallest relative excess over the limits) and what would fix it.

For an owned cluster that misses the level, the smallest cluster that meets it is searched on the
same job stream (common random numbers: the difference is the cluster's, not noise): the wait
falls as servers are added, so sizes double until one meets the level and the smallest is then
found by bisection. Only that option is replayed. Its cost is shown beside the recommendation, as
the cheaper choice when it is one. (The full optimiser over every kind's choices is to come.)
"""

from __future__ import annotations

import math

from tco.pricing.book import PriceBook
from tco.simulator.advice import Recommendation, Resize, Verdict
from tco.simulator.kinds import registry
from tco.simulator.metrics import measure
from tco.simulator.prepared import Prepared, option_rng
from tco.simulator.result import OptionResult, Result

MAX_SERVERS_FACTOR = 64  # the search stops at 64x the servers the scenario gave


def _share(o: OptionResult) -> float:
    return o.work.cannot_run / o.work.demanded if o.work.demanded > 0 else 0.0


def verdict(result: Result, o: OptionResult) -> Verdict:
    level = result.scenario.service_level
    reasons = level.misses(o.waits.p95_h, _share(o))
    over_wait = max(0.0, o.waits.p95_h / max(level.p95_wait_hours, 1e-9) - 1.0)
    over_work = max(0.0, _share(o) - level.max_cannot_run_share)
    return Verdict(o.name, not reasons, tuple(reasons), over_wait + 10.0 * over_work)


def _with_servers(prepared: Prepared, index: int, servers: int) -> tuple[float, float, float]:
    """(cash USD, p95 wait h, share that cannot run) of option ``index`` resized to ``servers``,
    on the prepared job stream."""
    original = prepared.plans[index].option
    kind = registry.of(original)
    option = kind.resized(original, servers)
    assert option is not None
    ctx = prepared.scenario.context(prepared.file, index, PriceBook("snapshot"))
    plan = kind.plan(option, ctx)
    rng = option_rng(prepared.scenario.seed, option.name, "play")
    runs = kind.play(prepared.jobs, plan, prepared.horizon_h, rng)
    led = kind.ledger(plan, runs, prepared.edges)
    m = measure(prepared.jobs, runs, led, prepared.horizon_h, prepared.scenario.discount_rate)
    share = m.work.cannot_run / m.work.demanded if m.work.demanded > 0 else 0.0
    return m.cash_usd, m.waits.p95_h, share


def smallest_cluster(prepared: Prepared, index: int, start: int) -> Resize:
    """The fewest servers (at least ``start`` + 1) with which option ``index`` meets the level."""
    level = prepared.scenario.service_level
    name = prepared.plans[index].option.name

    def meets(n: int) -> tuple[bool, float, float]:
        cash, p95, share = _with_servers(prepared, index, n)
        return not level.misses(p95, share), cash, p95

    hi, limit = max(1, start) * 2, max(1, start) * MAX_SERVERS_FACTOR
    lo = start
    while True:
        ok, cash, p95 = meets(hi)
        if ok:
            break
        if hi >= limit:
            return Resize(name, None, math.nan, p95)
        lo, hi = hi, min(limit, hi * 2)
    best = (hi, cash, p95)
    while hi - lo > 1:  # invariant: lo misses, hi meets
        mid = (lo + hi) // 2
        ok, cash, p95 = meets(mid)
        if ok:
            hi, best = mid, (mid, cash, p95)
        else:
            lo = mid
    return Resize(name, best[0], best[1], best[2])


def recommend(prepared: Prepared, result: Result) -> Recommendation:
    """The recommendation of a run (``result`` simulated from ``prepared``)."""
    verdicts = {o.name: verdict(result, o) for o in result.options}
    resizes = tuple(
        smallest_cluster(prepared, i, registry.of(p.option).size(p.option) or 0)
        for i, p in enumerate(prepared.plans)
        if not verdicts[p.option.name].meets and registry.of(p.option).size(p.option)
    )
    return _choose(result, verdicts, resizes)


def recommend_without_resizes(result: Result) -> Recommendation:
    """The recommendation from the result alone (no resized clusters searched)."""
    return _choose(result, {o.name: verdict(result, o) for o in result.options}, ())


def _choose(
    result: Result, verdicts: dict[str, Verdict], resizes: tuple[Resize, ...]
) -> Recommendation:
    meeting = [o for o in result.options if verdicts[o.name].meets]
    if meeting:
        best = min(meeting, key=lambda o: o.total_cash_usd)
        return Recommendation(
            option=best.name,
            cash_usd=best.total_cash_usd,
            npv_usd=best.npv_usd,
            reason=f"the cheapest of the {len(meeting)} option(s) that meet the service level",
            closest=None,
            resizes=resizes,
        )
    closest = min(result.options, key=lambda o: (verdicts[o.name].shortfall, o.total_cash_usd))
    return Recommendation(
        option=None,
        cash_usd=None,
        npv_usd=None,
        reason="no option meets the service level: "
        + "; ".join(f"{v.option}: {', '.join(v.reasons)}" for v in verdicts.values()),
        closest=closest.name,
        resizes=resizes,
    )
