"""The whole month's check in one call, for the CLI and notebooks: a plan folder, a usage log
and optionally a FOCUS bill in; the plan against actuals and the re-forecast out."""

from __future__ import annotations

from pathlib import Path

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.simulate import prepare
from tco.simulator.run import load_file
from tco.simulator.tracking import focus, plan, usage
from tco.simulator.tracking.forecast import Forecast, forecast
from tco.simulator.tracking.variance import Tracked, track
from tco.simulator.workload.traces import read as read_trace


def scenario_of(p: plan.Plan, given: str | Path | None, book: PriceBook) -> Prepared:
    """The plan's scenario, prepared: ``given``, else the file its summary names (as given to
    ``tco simulate``, else beside the plan folder's parent); it must be the same file (SHA-256),
    or the forecast would replay another plan."""
    where = "--scenario"
    candidates = [Path(given)] if given else [Path(p.scenario_file), Path(p.folder).parent.parent
                                              / Path(p.scenario_file).name]  # fmt: skip
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        raise ScenarioError(
            p.folder, where, f"the plan's scenario {p.scenario_file} is not found; give it with"
            " --scenario FILE"
        )  # fmt: skip
    scenario, digest = load_file(found, book)
    if digest != p.sha256:
        raise ScenarioError(
            str(found), where, f"not the file the plan was made from (SHA-256 {digest[:12]}...,"
            f" the plan's {p.sha256[:12]}...); give the plan's scenario, or plan again"
        )  # fmt: skip
    return prepare(scenario, book, str(found), digest)


def follow(
    plan_dir: str | Path,
    usage_log: str | Path,
    usage_format: str = "sacct",
    bill: str | Path | None = None,
    option: str | None = None,
    scenario: str | Path | None = None,
    budget: float | None = None,
    book: PriceBook | None = None,
    sacct_format: str | None = None,
    utc_offset_hours: float = 0.0,
) -> tuple[Tracked, Forecast]:
    """The plan in ``plan_dir`` (for ``option``, default its recommendation) against the usage
    in ``usage_log`` and the ``bill``, and the re-forecast against ``budget`` (default the
    plan's total)."""
    book = book or PriceBook("snapshot")
    p = plan.load(plan_dir, option)
    jobs, _ = read_trace(
        Path(usage_log), usage_format, timestamps=True, utc_offset_hours=utc_offset_hours,
        field_name="--usage", sacct_format=sacct_format, allow_empty=True,
    )  # fmt: skip
    used = usage.of(jobs, p)
    billed = None if bill is None else focus.read(bill, p.months)
    tracked = track(p, used, billed)
    if not tracked.recorded:
        raise ScenarioError(
            str(usage_log), "--usage", f"no job of it falls in the plan's months ({p.months[0]}"
            f" to {p.months[-1]}); give the log of the months since the plan started"
        )  # fmt: skip
    return tracked, forecast(tracked, scenario_of(p, scenario, book), book, budget)
