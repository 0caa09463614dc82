"""A job's delay (issue 24): finish - arrival - its run on the option uninterrupted. Equal to the
wait where nothing interrupts a job; on spot, the wait plus the time interruptions cost, whose
mean is Young/Daly's (Daly 2006, no restart) expected completion time less the work."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.engine.simulate import prepare
from tco.simulator.kinds.rented.spot import SpotPlan
from tco.simulator.run import run
from tests.conftest import make_scenario


def _piece(x: float, rate: float) -> float:
    """Daly (2006), no restart: expected hours to get x hours done between interruptions."""
    return (math.exp(rate * x) - 1.0) / rate


def test_delay_equals_wait_when_nothing_is_interrupted() -> None:
    busy: dict[str, Any] = {
        "arrivals_per_month": 60,
        "work": {"reference_gpu": "A40", "gpu_hours": 60},
    }
    sc = make_scenario()
    cls: dict[str, Any] = {**sc.workload.job_classes[0].model_dump(exclude_none=True), **busy}
    cls["work"] = {**cls["work"], **busy["work"]}
    own = {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1}
    od = {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"}
    options = [{**own, "failures": None}, od]  # nothing interrupts a job
    r = run(make_scenario(workload={"job_classes": [cls]}, options=options))
    for o in r.options:
        assert o.metrics.delays == o.metrics.waits, o.name
    assert r.options[0].waits.p95_h > 1.0  # the owned server queues: a wait to compare


def test_spot_delay_holds_young_daly_s_expected_loss() -> None:
    tau, write_min, per_month = 2.0, 6.0, 40.0
    spot = {
        "name": "spot",
        "kind": "spot",
        "instance_types": ["p4d.24xlarge"],
        "interruptions_per_instance_month": per_month,
        "checkpoint_interval_hours": tau,
        "checkpoint_write_minutes": write_min,
        "restart_overhead_minutes": 0.0,
        "capacity_wait_hours": 0.0,
    }
    sc = make_scenario(options=[spot], horizon_months=24)
    book = PriceBook("snapshot")
    plan = prepare(sc, book).plans[0]
    assert isinstance(plan, SpotPlan)
    r = run(sc, book=book)
    o = r.options[0]
    runs, jobs = o.runs, r.jobs
    assert runs.clean_run_h is not None
    done = np.nonzero(~np.isnan(runs.end_h))[0]
    assert len(done) > 1000 and o.metrics.measures["interruptions"] > 100
    delay = runs.end_h[done] - jobs.arrival_h[done] - runs.clean_run_h[done]
    rate = float(plan.rate_per_instance_h[0])
    want = []
    for j in done.tolist():
        x, k = float(runs.clean_run_h[j]), float(runs.units[j])
        pieces = max(1, math.ceil(round(x / tau, 9)))
        last = x - (pieces - 1) * tau
        total = (pieces - 1) * _piece(tau + write_min / 60, k * rate) + _piece(last, k * rate)
        want.append(total - x)
    diff = delay - np.array(want)
    se = float(diff.std() / math.sqrt(len(diff)))
    assert abs(float(diff.mean())) < 4 * se, (float(diff.mean()), se)
    assert float(np.mean(want)) > 0.05  # interruptions cost measurable time
    # The delay statistics are these delays (every job finished: nothing censored).
    assert o.metrics.delays.max_h >= float(delay.max()) - 1e-9
    assert o.metrics.delays.p95_h > o.metrics.waits.p95_h


def test_a_class_with_a_level_of_its_own_is_held_to_it() -> None:
    """Deadline-bound runs with 4 h, the rest with the scenario's 72 h: one A40 server that keeps
    the whole stream within 72 h misses the runs' own level, and says which class missed."""
    import pytest

    from tco.simulator.core.errors import ScenarioError

    classes = [
        {
            "name": "ddp",
            "arrivals_per_month": 40,
            "gpus": 8,
            "work": {"reference_gpu": "A40", "gpu_hours": 40, "distribution": "exponential"},
        },
        {
            "name": "tune",
            "arrivals_per_month": 200,
            "gpus": 1,
            "work": {"reference_gpu": "A40", "gpu_hours": 4, "distribution": "exponential"},
        },
    ]
    level = {"p95_delay_hours": 72, "p95_delay_hours_by_class": {"ddp": 4}}
    r = run(make_scenario(workload={"job_classes": classes}, service_level=level))
    own, _ = r.options
    by = own.metrics.class_p95_delay_h
    assert set(by) == {"ddp", "tune"} and by["ddp"] > 4
    assert own.metrics.delays.p95_h <= 72
    reasons = r.verdicts["own"].reasons
    assert any(x.startswith("ddp: p95 delay") for x in reasons), reasons
    assert r.verdicts["od"].meets and r.recommendation.option == "od"
    bad = {"p95_delay_hours_by_class": {"nope": 4}}
    with pytest.raises(ScenarioError, match=r"p95_delay_hours_by_class\.nope: no job class"):
        run(make_scenario(workload={"job_classes": classes}, service_level=bad))
