"""An option's ledger as the answer counts it (``costs``): its kind's, the plan's fixed costs
(data), running costs escalated, and what lies past the horizon. When the project ends there,
what is contracted for after it is spent in the last month. When the operation goes on past it
(``after_horizon: continues``), finishing the work unfinished at the horizon is: every option
is charged for the same work, so one that leaves work running or queued is not cheaper for it.
A rented kind prices its jobs' remaining instance-hours itself (``Kind.to_finish``); any other
option pays its share (``share_to_finish``). When the project ends, unfinished work is late
instead (``engine.metrics.job_delays``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tco.simulator.costs.carbon import footprint
from tco.simulator.costs.ledger import Category, Ledger, category, declare
from tco.simulator.costs.tax import taxes
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.registry import of
from tco.simulator.kinds.runs import JobRuns, remaining_h

declare(
    # A price per tonne of CO2e on the option's carbon (the scenario's carbon: section).
    Category("carbon", "carbon price", None, "#6b8e23"),
    Category(
        "share_to_finish",
        "the option's share of cost to finish the work unfinished at the horizon",
        None,
        "#c7c7c7",
        share_of_rest=True,
    ),
)


def last_month(usd: float, edges: np.ndarray) -> np.ndarray:
    """``usd`` in the last month of the horizon, nothing in the others."""
    out = np.zeros(len(edges) - 1)
    out[-1] = usd
    return out


def share_to_finish(runs: JobRuns, led: Ledger, horizon_h: float) -> float:
    """What finishing the work unfinished at the horizon costs as the option's share: its cash
    per GPU-hour its jobs used within the horizon, times the GPU-hours they still need (the
    allocation jobs.csv gives an owned job). The next window's capacity costs about what this
    one's did; a cluster's marginal cost (power alone) would make unfinished work nearly free
    on it, and a backlog a bargain. A share of the whole ledger, so prices that move its
    categories move it alike (``Category.share_of_rest``)."""
    need, used = _need_used(runs, led, horizon_h)
    if need <= 0:
        return 0.0
    cash = max(float(led.cash_total().sum()), 0.0) if led.cash else 0.0
    return need * cash / used if used > 0 else 0.0


def finish_share(runs: JobRuns, led: Ledger, horizon_h: float) -> float:
    """The GPU-hours the work unfinished at the horizon still needs, per GPU-hour its jobs
    used within it: the part of the option's whole that finishing it takes."""
    need, used = _need_used(runs, led, horizon_h)
    return need / used if need > 0 and used > 0 else 0.0


def _need_used(runs: JobRuns, led: Ledger, horizon_h: float) -> tuple[float, float]:
    """GPU-hours the unfinished work needs, and those the jobs used (busy, else paid)."""
    need = float((remaining_h(runs, horizon_h) * runs.gpus).sum())
    busy, paid = float(led.gpu_hours_busy.sum()), float(led.gpu_hours_paid.sum())
    return need, busy if busy > 0 else paid


def finished(
    led: Ledger, runs: JobRuns, edges: np.ndarray, priced: dict[str, float] | None
) -> Ledger:
    """``led`` with the cost of finishing the option's unfinished work in its last month, in
    cash and accounting alike: as its kind prices it (``priced``: by the category whose prices
    it is at, counted in that one's twin, ``Category.to_finish``), else its share; the total
    in the notes (``to_finish_after_horizon_usd``). Unchanged when nothing is left."""
    if priced is None:
        owed = {"share_to_finish": share_to_finish(runs, led, float(edges[-1]))}
    else:
        owed = {category(k).to_finish().name: v for k, v in priced.items()}
    if not any(owed.values()):
        return led
    cash, acc = dict(led.cash), dict(led.accounting)
    for name, usd in owed.items():
        for view in (cash, acc):
            view[name] = view.get(name, 0.0) + last_month(usd, edges)
    notes = {**led.notes, "to_finish_after_horizon_usd": sum(owed.values())}
    return dataclasses.replace(led, cash=cash, accounting=acc, notes=notes)


def costs(plan: Plan, runs: JobRuns, edges: np.ndarray) -> Ledger:
    """The option's ledger (``before_tax``), with the income tax on it when the scenario has a
    tax: section (``taxed``)."""
    return taxed(before_tax(plan, runs, edges), plan, len(edges) - 1)


def taxed(led: Ledger, plan: Plan, months: int) -> Ledger:
    """``led`` with its income tax by category (``costs.tax``): in the ledger's ``tax``, and in
    its cash as well when the decision is on cash after tax. The servers the plan sells
    outside its kind's ledger (the site's, at the start) are among its assets."""
    t = plan.tax
    if t is None:
        return led
    led = dataclasses.replace(led, assets=led.assets + plan.assets)
    tax = taxes(led, t, months)
    return dataclasses.replace(led, tax=tax, cash={**led.cash, **tax} if t.after_tax else led.cash)


def before_tax(plan: Plan, runs: JobRuns, edges: np.ndarray) -> Ledger:
    """The option's ledger before tax: its kind's, plus the plan's fixed monthly costs (data
    kept and moved) in cash and accounting alike, with running costs escalated month by month.
    When the project ends at the horizon, what the ledger owes for after it is spent in its
    last month (a continuing operation reports it apart, in the notes). When the operation
    continues, finishing the work unfinished at the horizon is counted in its last month
    (``finished``)."""
    led = of(plan.option).ledger(plan, runs, edges)
    added: dict[str, np.ndarray] = dict(plan.fixed_costs)
    notes = led.notes
    owed = led.owed_after_horizon
    if plan.project_ends and any(owed.values()):
        for name, usd in owed.items():
            added[name] = added.get(name, 0.0) + last_month(usd, edges)
        notes = {**notes, "owed_after_the_end_usd": sum(owed.values())}
    if added or plan.escalation or plan.cash_only or plan.rental_curve is not None:
        cash, acc = dict(led.cash), dict(led.accounting)
        for name, series in added.items():
            for view in (cash, acc):
                view[name] = view[name] + series if name in view else series.copy()
        for name, series in plan.cash_only.items():
            cash[name] = cash[name] + series if name in cash else series.copy()
        years = np.arange(len(edges) - 1) / 12.0  # month m is m/12 years after the start
        for name, per_year in plan.escalation.items():
            for view in (cash, acc):
                if name in view:
                    view[name] = view[name] * (1.0 + per_year) ** years
        curve = plan.rental_curve
        for view in (cash, acc) if curve is not None else ():
            for name in view:
                if category(name).rental:
                    view[name] = view[name] * curve
        led = dataclasses.replace(led, cash=cash, accounting=acc, notes=notes)
    if not plan.project_ends:
        kind = of(plan.option)
        own = kind.to_finish(plan, runs, float(edges[-1])) if kind.can(Can.FINISH) else None
        led = finished(led, runs, edges, own)
    return with_carbon(led, plan, runs, edges)


def with_carbon(led: Ledger, plan: Plan, runs: JobRuns, edges: np.ndarray) -> Ledger:
    """``led`` with its carbon (``costs.carbon``): its draws', and when the operation continues
    past the horizon, finishing its unfinished work's at the option's own intensity (the share
    ``share_to_finish`` charges it, in the last month, as its cost is); in cash and accounting
    as the category ``carbon`` when the scenario prices a tonne."""
    terms = plan.carbon
    if terms is None:
        return led
    months = len(edges) - 1
    draws = led.draws
    if not plan.project_ends:
        k = finish_share(runs, led, float(edges[-1]))
        draws = draws + tuple(d.scaled(k, months) for d in draws) if k > 0 else draws
    fp = footprint(draws, terms, months)
    led = dataclasses.replace(led, footprint=fp)
    if not terms.price_usd_per_t:
        return led
    usd = fp.monthly_t * terms.price_usd_per_t
    return dataclasses.replace(
        led,
        cash={**led.cash, "carbon": usd},
        accounting={**led.accounting, "carbon": usd.copy()},
    )
