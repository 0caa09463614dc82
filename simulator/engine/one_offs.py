"""One-off runs that cannot finish within the horizon on an option, said at validation (``tco
validate``) with the hours each needs there: played alone on every option, so a queue of other
work does not hide it. On such an option the run is late when the project ends at the horizon,
and its cost to finish is counted when the operation continues (``kinds.costing``)."""

from __future__ import annotations

import numpy as np

from tco.simulator.core.calendar import month_edges_h
from tco.simulator.engine.prepared import option_rng
from tco.simulator.kinds import registry
from tco.simulator.kinds.plan import Plan
from tco.simulator.scenario.model import Scenario
from tco.simulator.workload import merge
from tco.simulator.workload.spec import Workload


def too_long(scenario: Scenario, plans: tuple[Plan, ...]) -> list[str]:
    """One sentence per one-off run and option on which it would end after the horizon,
    played alone: when it would start, how long it runs there and when it would end."""
    runs = scenario.workload.runs
    if not runs:
        return []
    alone = Workload(runs=runs)
    jobs = merge.generate(alone, scenario.seed, scenario.start, scenario.horizon_months)
    horizon_h = float(month_edges_h(scenario.start, scenario.horizon_months)[-1])
    rule = (
        "late: the project ends there"
        if scenario.after_horizon == "ends"
        else "its cost to finish is counted"
    )
    out = []
    for plan in plans:
        rng = option_rng(scenario.seed, plan.option.name, "play")
        played = registry.of(plan.option).play(jobs, plan, horizon_h, rng)
        for i, r in enumerate(runs):
            start, end = float(played.start_h[i]), float(played.end_h[i])
            if played.reason[i] or end <= horizon_h:
                continue
            if np.isnan(start):  # (a run too big for an option is refused elsewhere)
                out.append(f"{r.name} on {plan.option.name}: does not start within the horizon")
                continue
            out.append(
                f"{r.name} on {plan.option.name}: starts at hour {start:,.0f}, runs"
                f" {float(played.run_h[i]):,.0f} h and ends at hour {end:,.0f}, after the"
                f" {horizon_h:,.0f}-hour horizon ({rule})"
            )
    return out
