"""Each option judged against the service level, and the recommendation among the options as
the scenario types them: the cheapest that meets the level, or the closest when none does. The
engine stores both in every result, once; the advice adds resized clusters beside them
(``advice.recommendation``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tco.simulator.engine.findings import Recommendation, Resize, Verdict
from tco.simulator.engine.result import OptionResult
from tco.simulator.scenario.service_level import ServiceLevel


def verdict(level: ServiceLevel, o: OptionResult) -> Verdict:
    """Whether ``o`` meets ``level``, why not, and how far it is (for the closest)."""
    reasons = o.metrics.misses(level)
    over_wait = level.shortfall(o.waits.p95_h, o.metrics.delays.p95_h)
    over_work = max(0.0, o.work.cannot_run_share - level.max_cannot_run_share)
    over_work += max(0.0, o.work.overdue_share - level.max_unfinished_share)
    return Verdict(o.name, not reasons, tuple(reasons), over_wait + 10.0 * over_work)


def choose(
    options: Sequence[OptionResult],
    verdicts: Mapping[str, Verdict],
    resizes: tuple[Resize, ...] = (),
) -> Recommendation:
    """The cheapest option (cash over the horizon) that meets the level, or the closest."""
    meeting = [o for o in options if verdicts[o.name].meets]
    if meeting:
        best = min(meeting, key=lambda o: o.total_cash_usd)
        return Recommendation(
            option=best.name,
            cash_usd=best.total_cash_usd,
            npv_usd=best.npv_usd,
            reason=(
                f"the cheapest of the {len(meeting)} options that meet the service level"
                if len(meeting) > 1
                else "the only option that meets the service level"
            ),
            closest=None,
            resizes=resizes,
        )
    closest = min(options, key=lambda o: (verdicts[o.name].shortfall, o.total_cash_usd))
    return Recommendation(
        option=None,
        cash_usd=None,
        npv_usd=None,
        reason="no option meets the service level: "
        + "; ".join(f"{v.option}: {', '.join(v.reasons)}" for v in verdicts.values()),
        closest=closest.name,
        resizes=resizes,
    )
