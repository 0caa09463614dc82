"""The owned-cluster model against queueing theory: M/M/c (Erlang C).

Jobs of one GPU with exponential inter-arrival and service times on c identical GPUs form an
M/M/c queue. The mean wait in queue is Wq = C(c, a) / (c mu - lambda) with a = lambda / mu and
Erlang's C formula; utilisation is lambda / (c mu). The simulated mean wait, over seeded
replications after a warm-up, must contain the formula in its 99 % confidence interval.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from tco.simulator.run import prepare, simulate
from tco.simulator.workload.arrivals import HOURS_PER_AVERAGE_MONTH
from tests.conftest import make_scenario


def erlang_c_wait(c: int, lam: float, mu: float) -> float:
    """Mean wait in queue of M/M/c (Erlang C), in the time unit of 1/mu."""
    a = lam / mu
    rho = a / c
    top = a**c / math.factorial(c) / (1 - rho)
    bottom = sum(a**k / math.factorial(k) for k in range(c)) + top
    return top / bottom / (c * mu - lam)


def test_erlang_c_formula_known_value() -> None:
    # M/M/1 special case: Wq = rho / (mu - lambda).
    assert erlang_c_wait(1, 0.5, 1.0) == pytest.approx(0.5 / (1.0 - 0.5))
    # M/M/2, lambda=1, mu=1: C = 1/3, Wq = C / (2 - 1) = 1/3 (textbook value).
    assert erlang_c_wait(2, 1.0, 1.0) == pytest.approx(1 / 3)


@pytest.mark.parametrize(("servers", "rho"), [(1, 0.8), (4, 0.9)])
def test_owned_cluster_matches_erlang_c(servers: int, rho: float) -> None:
    c = 8 * servers
    mean_service_h = 5.0
    mu = 1 / mean_service_h
    lam = rho * c * mu  # per hour
    months = 18
    warmup_h = 730.0
    waits, utils = [], []
    for seed in range(12):
        sc = make_scenario(
            seed=seed,
            horizon_months=months,
            workload={
                "job_classes": [
                    {
                        "name": "mm",
                        "arrivals_per_month": lam * HOURS_PER_AVERAGE_MONTH,
                        "gpus": 1,
                        "work": {
                            "reference_gpu": "A40",
                            "gpu_hours": mean_service_h,
                            "distribution": "exponential",
                        },
                    }
                ]
            },
            options=[
                {
                    "name": "own",
                    "kind": "owned",
                    "server": "8x A40 NVLink server",
                    "servers": servers,
                }
            ],
        )
        r = simulate(prepare(sc), advise=False)  # the queue only: no advice re-runs
        o = r.options[0]
        arrival = r.jobs.arrival_h
        start = o.runs.start_h
        # Jobs after the warm-up that arrived early enough to have started (no censoring bias).
        sel = (arrival > warmup_h) & (arrival < r.horizon_h - 30 * mean_service_h)
        assert not np.isnan(start[sel]).any()
        waits.append(float(np.mean(start[sel] - arrival[sel])))
        busy = o.ledger.gpu_hours_busy[1:].sum()
        utils.append(busy / o.ledger.gpu_hours_paid[1:].sum())
    theory = erlang_c_wait(c, lam, mu)
    mean = float(np.mean(waits))
    half = stats.t.ppf(0.995, len(waits) - 1) * np.std(waits, ddof=1) / math.sqrt(len(waits))
    assert abs(mean - theory) <= half, (mean, theory, half)
    assert float(np.mean(utils)) == pytest.approx(rho, abs=0.02)
