"""Conservation of work, for every option: demanded = delivered + cannot run + unfinished.

Delivered work is computed twice, independently: per job (the completed fraction of its run)
in ``simulator.run``, and here from the hourly usage rebuilt from intervals, weighting each job by
its work per hour. Both must agree, and the balance must close.
"""

from __future__ import annotations

import numpy as np
import pytest

from tco.simulator.cluster.failures import Failures
from tco.simulator.costs.usage import hourly
from tco.simulator.run import run
from tests.conftest import make_scenario, shipped


def _check(result) -> None:  # type: ignore[no-untyped-def]
    jobs = result.jobs
    hours = int(result.horizon_h)
    for o in result.options:
        w = o.work
        assert w.demanded == pytest.approx(float(jobs.work_ref_gpu_h.sum()))
        assert w.demanded == pytest.approx(w.delivered + w.cannot_run + w.unfinished, rel=1e-9)
        out = o.runs
        rate = np.where(out.runnable, jobs.work_ref_gpu_h / out.run_h, 0.0)
        from_usage = hourly(out.start_h, out.end_h, rate, hours).sum()
        slack = 0.0
        if out.gaps is not None and len(out.gaps.job):  # stopped by a failure, queued again
            g = out.gaps
            from_usage -= hourly(g.from_h, g.to_h, rate[g.job], hours).sum()
            # ... and the held hours that saved nothing (work since the last checkpoint, or the
            # whole attempt when it saved none, its reload included) ...
            assert out.lost_gpu_h is not None and out.interruptions is not None
            done = np.nan_to_num(out.end_h, nan=np.inf) <= hours  # within the horizon
            from_usage -= float((rate * out.lost_gpu_h / np.maximum(out.gpus, 1))[done].sum())
            # ... and up to one reload per interruption (those an attempt got past).
            f = getattr(result.scenario.option(o.name), "failures", None) or Failures()
            restart_h = f.restart_overhead_minutes / 60  # a hybrid's: the default
            slack = float((rate * out.interruptions * restart_h)[done].sum())
        assert w.delivered * (1 - 1e-9) - 1e-9 <= from_usage
        assert from_usage <= (w.delivered + slack) * (1 + 1e-9) + 1e-9
        # GPU-hours busy per month are never more than what was available or paid for.
        assert (o.ledger.gpu_hours_busy <= o.ledger.gpu_hours_paid * (1 + 1e-9) + 1e-9).all()


@pytest.mark.parametrize("name", ["lab", "personal", "industrial"])
def test_conservation_in_shipped_scenarios(name: str) -> None:
    _check(shipped(name))  # the session's run of it (the golden files read the same)


def test_conservation_with_quota_delay_and_unrunnable_jobs() -> None:
    sc = make_scenario(
        horizon_months=3,
        workload={
            "job_classes": [
                {
                    "name": "small",
                    "arrivals_per_month": 200,
                    "gpus": {"choices": [1, 2, 4, 16]},
                    "work": {"reference_gpu": "A40", "gpu_hours": 30},
                    "memory_gb": 30,
                },
                {
                    "name": "huge-memory",
                    "arrivals_per_month": 10,
                    "gpus": 1,
                    "work": {"reference_gpu": "A40", "gpu_hours": 5},
                    "memory_gb": 60,
                },
            ]
        },
        options=[
            {
                "name": "own",
                "kind": "owned",
                "server": "8x A40 NVLink server",
                "servers": 1,
                "lead_time_months": 0.5,
            },
            {
                "name": "od-quota",
                "kind": "on_demand",
                "instance_type": "p4d.24xlarge",
                "quota_instances": 1,
                "provisioning_delay_minutes": 7,
            },
            {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
        ],
    )
    r = run(sc)
    _check(r)
    own = r.option("own")
    assert sum(own.cannot_run.values()) > 0  # 16-GPU jobs and 60 GB jobs
    assert r.option("od").cannot_run  # 60 GB does not fit a 40 GB A100
    assert r.option("od-quota").waits.mean_h > 7 / 60  # queued behind the quota, plus the delay
    assert r.option("od").waits.mean_h == pytest.approx(0.0)  # elastic: starts on arrival
