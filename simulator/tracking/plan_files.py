"""A plan as ``tco simulate`` wrote it: summary.json (the option, its totals, the scenario file and
its SHA-256), monthly.csv (cash by category and month) and jobs.csv (each job's arrival, GPUs and
run time on the option), read back for tracking. One option: the recommendation, or another
listed one."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tco.simulator.kinds  # noqa: F401 (the kinds declare their ledger categories on import)
from tco.simulator.core.calendar import month_edges_h, months_of
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.input_files import InputFileError, read_input
from tco.simulator.costs.ledger import before_tax, category
from tco.simulator.kinds import registry
from tco.simulator.tracking.focus import cover


@dataclass(frozen=True)
class Plan:
    """One option of a plan, month by month (USD, GPU-hours, jobs, hours)."""

    folder: str
    option: str
    start: str  # YYYY-MM
    months: tuple[str, ...]
    cash: dict[str, np.ndarray]  # category -> USD a month, the cash view
    jobs: np.ndarray  # jobs arriving in each month
    gpu_hours: np.ndarray  # GPU-hours of the jobs arriving in each month, run on the option
    p95_wait_h: np.ndarray  # of the jobs arriving in each month (NaN: none)
    total_usd: float
    scenario_file: str
    sha256: str
    tco_version: str
    # The option is a mix the search composed (not listed in the scenario): its parts as
    # (role, option, knobs) and the wait before it bursts, to make it again for the forecast.
    mix_parts: tuple[tuple[str, str, dict[str, Any]], ...] = ()
    mix_wait_h: float = 0.0
    owns: bool = False  # the option buys servers: what no cloud bills is paid on premises
    # The plan's service figures by name, hours (as ``forecast.service_of`` names them; NaN: the
    # summary has none).
    service_h: dict[str, float] = field(default_factory=dict)

    def by_cover(self) -> dict[str, np.ndarray]:
        """USD a month by the part of a budget each category belongs to (``focus.cover``: paid
        on premises or to a cloud, and its FOCUS ServiceCategory), as a bill's rows are."""
        out: dict[str, np.ndarray] = {}
        for name, v in self.cash.items():
            c = category(name)
            key = cover(self.owns and not c.billed, c.focus_service()[0])
            out[key] = out.get(key, 0.0) + v
        return out

    def billed(self) -> np.ndarray:
        """USD a month in the categories a cloud bill holds (``Category.billed``)."""
        return self._summed(billed=True)

    def unbilled(self) -> np.ndarray:
        """USD a month in the others (servers, power, facility, staff, storage, egress)."""
        return self._summed(billed=False)

    def _summed(self, billed: bool) -> np.ndarray:
        rows = [v for k, v in self.cash.items() if category(k).billed == billed]
        return np.sum(rows, axis=0) if rows else np.zeros(len(self.months))


def _read(folder: Path, name: str) -> str:
    try:
        return read_input(folder / name, "a report folder tco simulate wrote").decode("utf-8")
    except InputFileError as exc:
        hint = " (write the plan with --format including csv)" if name.endswith(".csv") else ""
        raise ScenarioError(str(folder), name, f"{exc}{hint}") from None


def load(folder: str | Path, option: str | None = None) -> Plan:
    """The plan in ``folder`` for ``option`` (default: the recommendation); a folder whose files
    are not what ``tco simulate`` writes is a one-line error naming the folder."""
    path = Path(folder)
    try:
        return _load(path, option)
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, StopIteration) as exc:
        raise ScenarioError(
            str(path),
            "summary.json, monthly.csv, jobs.csv",
            f"not a report folder tco simulate"
            f" wrote ({type(exc).__name__}: {exc}); give the --out folder of a run",
        ) from None


def _load(path: Path, option: str | None) -> Plan:
    summary: dict[str, Any] = json.loads(_read(path, "summary.json"))
    names = [o["name"] for o in summary.get("options", [])]
    chosen = option or (summary.get("recommendation") or {}).get("option")
    if chosen is None:
        raise ScenarioError(
            str(path), "--option", f"the plan recommends no option; give one of: {', '.join(names)}"
        )
    if chosen not in names:
        raise ScenarioError(
            str(path),
            "--option",
            f"{chosen!r} is not an option of the plan; give one of: {', '.join(names)}",
        )
    sc = summary["scenario"]
    months = tuple(summary["months"])
    o = next(x for x in summary["options"] if x["name"] == chosen)
    # What the cluster ran and the clouds billed is tracked before income tax: a plan decided
    # after tax has its tax categories in the cash, which no bill or log holds.
    cash = before_tax(_monthly(_read(path, "monthly.csv"), chosen, months))
    jobs, hours, waits = _jobs(_read(path, "jobs.csv"), chosen, sc["start"], len(months))
    mix = (summary.get("recommendation") or {}).get("portfolio") or {}
    parts: tuple[tuple[str, str, dict[str, Any]], ...] = ()
    wait = 0.0
    if mix.get("option") == chosen:
        parts = tuple((x["role"], x["option"], dict(x["knobs"])) for x in mix["parts"])
        wait = float(mix["wait_before_burst_h"])
    total = float(o["totals_usd"].get("cash_before_tax", o["totals_usd"]["cash"]))
    if not math.isfinite(total) or abs(total) > MAX_USD:
        raise ValueError(f"summary.json: {chosen}'s totals_usd.cash is {total!r}")
    kind = registry.get(o["kind"]) if o.get("kind") in registry.names() else None
    return Plan(
        str(path),
        chosen,
        sc["start"],
        months,
        cash,
        jobs,
        hours,
        waits,
        total,
        sc["file"],
        sc["sha256"],
        summary["tco_version"],
        parts,
        wait,
        bool(kind is not None and kind.buys_hardware),
        _service(o),
    )


def _service(o: dict[str, Any]) -> dict[str, float]:
    """The option's p95 delay and wait and each class's p95 delay, hours, from its summary."""

    def hours(x: Any) -> float:
        return float("nan") if x is None else float(x)

    out = {"p95_delay": hours(o["delays_h"]["p95_h"]), "p95_wait": hours(o["waits_h"]["p95_h"])}
    for k, v in o.get("p95_delay_by_class_h", {}).items():
        out[f"{k}.p95_delay"] = hours(v)
    return out


# A plan's figure, bounded: no plan spends a quadrillion; past it (or NaN, or infinite) the file
# was edited or damaged, and a gate would compare nothing.
MAX_USD = 1e15


def _monthly(text: str, option: str, months: tuple[str, ...]) -> dict[str, np.ndarray]:
    at = {m: i for i, m in enumerate(months)}
    out: dict[str, np.ndarray] = {}
    for line, r in enumerate(csv.DictReader(text.splitlines()), start=2):
        if r["option"] == option and r["view"] == "cash" and r["month"] in at:
            usd = float(r["usd"])
            if not math.isfinite(usd) or abs(usd) > MAX_USD:
                raise ValueError(f"monthly.csv row {line}: usd {r['usd']!r}")
            out.setdefault(r["category"], np.zeros(len(months)))[at[r["month"]]] += usd
    return out


def _jobs(text: str, option: str, start: str, months: int) -> tuple[np.ndarray, ...]:
    edges = month_edges_h(start, months)
    arrival, gpu_h, wait = [], [], []
    for r in csv.DictReader(text.splitlines()):
        if r["option"] == option:
            arrival.append(float(r["arrival_h"]))
            gpu_h.append(int(r["gpus"]) * float(r["run_h"] or 0.0))
            wait.append(float(r["wait_h"]) if r["wait_h"] else math.nan)
    m = months_of(edges, np.asarray(arrival, dtype=np.float64))
    count = np.bincount(m, minlength=months).astype(float)
    hours = np.bincount(m, weights=np.asarray(gpu_h), minlength=months)
    return count, hours, p95_by_month(m, np.asarray(wait), months)


def p95_by_month(month: np.ndarray, wait: np.ndarray, months: int) -> np.ndarray:
    """The 95th percentile of ``wait`` per month (NaN where a month has none)."""
    out = np.full(months, math.nan)
    for i in range(months):
        w = wait[(month == i) & np.isfinite(wait)]
        if len(w):
            out[i] = float(np.percentile(w, 95))
    return out
