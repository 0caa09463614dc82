"""The whole month's check in one call, for the CLI and notebooks: a plan folder, a usage log
and optionally a FOCUS bill in; the plan against actuals and the re-forecast out."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.simulate import prepare
from tco.simulator.run import load_file
from tco.simulator.tracking import focus, plan_files, usage
from tco.simulator.tracking.forecast import Forecast, forecast
from tco.simulator.tracking.variance import Tracked, track
from tco.simulator.workload.traces import LoadReport
from tco.simulator.workload.traces import read as read_trace


def scenario_of(p: plan_files.Plan, given: str | Path | None, book: PriceBook) -> Prepared:
    """The plan's scenario, prepared: ``given``, else the file its summary names (as given to
    ``tco simulate``, else beside the plan folder's parent); it must be the same file (SHA-256),
    or the forecast would replay another plan."""
    where = "--scenario"
    candidates = (
        [Path(given)]
        if given
        else [Path(p.scenario_file), Path(p.folder).parent.parent / Path(p.scenario_file).name]
    )
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        raise ScenarioError(
            p.folder,
            where,
            f"the plan's scenario {p.scenario_file} is not found; give it with --scenario FILE",
        )
    scenario, digest = load_file(found, book)
    if digest != p.sha256:
        raise ScenarioError(
            str(found),
            where,
            f"not the file the plan was made from (SHA-256 {digest[:12]}...,"
            f" the plan's {p.sha256[:12]}...); give the plan's scenario, or plan again",
        )
    return prepare(scenario, book, str(found), digest)


# A usage log with more unreadable lines than this share is refused: what is left does not
# stand for what the cluster ran (a forecast from a sixth of a log read as a whole one is wrong).
MAX_UNREADABLE = 0.10


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
    through: str | None = None,
) -> tuple[Tracked, Forecast]:
    """The plan in ``plan_dir`` (for ``option``, default its recommendation) against the usage
    in ``usage_log`` and the ``bill`` over the whole months both cover (``through``: YYYY-MM,
    the last whole month, stated), and the re-forecast against ``budget`` (default the plan's
    total)."""
    book = book or PriceBook("snapshot")
    p = plan_files.load(plan_dir, option)
    jobs, report = read_trace(
        Path(usage_log),
        usage_format,
        timestamps=True,
        utc_offset_hours=utc_offset_hours,
        field_name="--usage",
        sacct_format=sacct_format,
        allow_empty=True,
    )
    unreadable = _unreadable(report, str(usage_log))
    used = usage.of(jobs, p, _through(through, p))
    billed = None if bill is None else focus.read(bill, p.months)
    tracked = track(p, used, billed)
    if unreadable:
        tracked = dataclasses.replace(tracked, notes=(*tracked.notes, unreadable))
    if not tracked.recorded:
        inputs = f"the usage log's last record in {_month_of(p, used.last_record_h)}"
        if billed is not None:
            inputs += f", the bill whole to {p.months[billed.whole - 1] if billed.whole else '-'}"
        raise ScenarioError(
            str(usage_log),
            "--usage",
            f"no whole month of the plan ({p.months[0]} to"
            f" {p.months[-1]}) is covered ({inputs}); give the logs of the months since the plan"
            " started, or --through YYYY-MM",
        )
    return tracked, forecast(tracked, scenario_of(p, scenario, book), book, budget)


def _unreadable(report: LoadReport, file: str) -> str:
    """What to say of a usage log's unreadable lines ('' when none); past ``MAX_UNREADABLE``
    of its lines, a one-line refusal."""
    if not report.bad_count:
        return ""
    share = report.bad_count / max(report.rows, 1)
    first = report.bad_lines[0] if report.bad_lines else (0, "")
    said = (
        f"{report.bad_count:,} of the usage log's {report.rows:,} lines are unreadable"
        f" (line {first[0]}: {first[1]})"
    )
    if share > MAX_UNREADABLE:
        raise ScenarioError(
            file,
            "--usage",
            f"{said}: more than {MAX_UNREADABLE:.0%}, so what is read does not"
            " stand for what the cluster ran (tco workload stats FILE says why each is)",
        )
    return f"{said}: left out"


def _through(text: str | None, p: plan_files.Plan) -> int | None:
    """The number of whole months ``--through YYYY-MM`` states (None: not given)."""
    if text is None:
        return None
    if text not in p.months:
        raise ScenarioError(
            p.folder,
            "--through",
            f"{text!r} is not a month of the plan; give YYYY-MM from"
            f" {p.months[0]} to {p.months[-1]}",
        )
    return p.months.index(text) + 1


def _month_of(p: plan_files.Plan, hour: float) -> str:
    """The calendar month (YYYY-MM) ``hour`` hours after the plan's start, said with where it
    lies when outside the plan's months."""
    if not np.isfinite(hour):
        return "no month (the log has no job)"
    at = time.gmtime(usage.start_epoch_s(p.start) + hour * 3600.0)
    month = f"{at.tm_year:04d}-{at.tm_mon:02d}"
    if month < p.months[0]:
        return f"{month}, before the plan's start"
    return month if month <= p.months[-1] else f"{month}, after the plan's horizon"
