"""The fixed lifecycle of a run: scenario -> jobs -> prices -> simulation -> costs -> result."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

from tco.pricing import snapshot
from tco.pricing.book import PriceBook
from tco.simulator import workload
from tco.simulator.calendar import month_edges_h, month_labels
from tco.simulator.costs import cloud_ledger, owned_ledger
from tco.simulator.finance import break_even_month, npv
from tco.simulator.options import OwnedPlan, resolve
from tco.simulator.outcome import play
from tco.simulator.result import OptionResult, Result, Waits, WorkBalance
from tco.simulator.scenario import Scenario, load_scenario


def version() -> str:
    """The installed tco version."""
    try:
        return metadata.version("tco")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def run(
    scenario: Scenario,
    book: PriceBook | None = None,
    file: str = "<scenario>",
    sha256: str = "",
    progress: Callable[[str], None] | None = None,
) -> Result:
    """Simulate every option of a scenario on the same job stream.

    ``progress`` (if given) is called with each option's name before it is simulated.
    """
    book = book or PriceBook()
    months = scenario.horizon_months
    edges = month_edges_h(scenario.start, months)
    horizon = float(edges[-1])
    base_dir = Path(file).parent if file != "<scenario>" else Path(".")
    jobs = workload.generate(scenario, base_dir)
    plans = resolve(scenario, book, file)
    partial = []
    for plan in plans:
        if progress is not None:
            progress(plan.option.name)
        out = play(jobs, plan, horizon)
        ledger = (
            owned_ledger(plan, out, edges)
            if isinstance(plan, OwnedPlan)
            else cloud_ledger(plan, out, edges)
        )
        partial.append((plan, out, ledger))

    totals = {p.option.name: ledger.cash_total() for p, _, ledger in partial}
    ids = jobs.job_ids()
    results = []
    for plan, out, ledger in partial:
        name = plan.option.name
        ok = out.runnable
        started = ok & ~np.isnan(out.start_h)
        frac = np.zeros(len(jobs))
        frac[started] = np.clip((horizon - out.start_h[started]) / out.run_h[started], 0.0, 1.0)
        work = jobs.work_ref_gpu_h
        balance = WorkBalance(
            demanded=float(work.sum()),
            delivered=float((work * frac).sum()),
            cannot_run=float(work[~ok].sum()),
            unfinished=float((work * (1.0 - frac))[ok].sum()),
        )
        waits = Waits.of(
            out.start_h[started] - jobs.arrival_h[started], int((ok & np.isnan(out.start_h)).sum())
        )
        counts: dict[str, int] = {}
        examples: dict[str, list[str]] = {}
        for i in np.nonzero(~ok)[0].tolist():
            text = out.reason_text[out.reason[i]]
            counts[text] = counts.get(text, 0) + 1
            if len(examples.setdefault(text, [])) < 5:
                examples[text].append(ids[i])
        results.append(
            OptionResult(
                name=name,
                kind=plan.option.kind,
                description=plan.description,
                quotes=plan.quotes,
                ledger=ledger,
                outcome=out,
                npv_usd=npv(scenario.discount_rate, ledger.cash_total()),
                work=balance,
                waits=waits,
                jobs_completed=int((started & (out.end_h <= horizon)).sum()),
                jobs_running_at_horizon=int((started & (out.end_h > horizon)).sum()),
                jobs_queued_at_horizon=waits.censored,
                cannot_run=counts,
                cannot_run_examples=examples,
                break_even={
                    other: break_even_month(totals[name], t)
                    for other, t in totals.items()
                    if other != name
                },
            )
        )
    snap = snapshot.load()
    provenance = {
        "price_mode": book.mode + (" (offline)" if book.offline else ""),
        "snapshot_as_of": str(snap["as_of"]),
        **{f"snapshot_{k}": str(v) for k, v in snap["provenance"].items()},
    }
    return Result(
        scenario,
        file,
        sha256,
        version(),
        tuple(month_labels(scenario.start, months)),
        horizon,
        jobs,
        tuple(results),
        provenance,
        tuple(book.warnings),
    )


def run_file(
    path: str | Path,
    book: PriceBook | None = None,
    seed: int | None = None,
    months: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Result:
    """Load a scenario file (optionally with another seed or horizon) and run it."""
    p = Path(path)
    book = book or PriceBook()
    scenario = load_scenario(p, book)
    updates: dict[str, int] = {}
    if seed is not None:
        updates["seed"] = seed
    if months is not None:
        updates["horizon_months"] = months
    if updates:
        scenario = scenario.model_copy(update=updates)
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    return run(scenario, book, str(path), digest, progress)
