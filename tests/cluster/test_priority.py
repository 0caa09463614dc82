"""Teams served by priority on an owned cluster (issue 57, item 2) against queueing theory.

Jobs of a whole 8-GPU server on one server, exponential inter-arrival and service times, form an
M/M/1 queue; two teams ranked by ``sharing: {policy: priority}`` make it the non-preemptive
priority queue, whose mean waits in queue are Cobham's (1954):

    W_k = W0 / ((1 - s_{k-1}) (1 - s_k)),  W0 = sum_i lambda_i E[S^2] / 2 = rho / mu,

with s_k the load of classes 1..k (s_0 = 0). The simulated mean waits, over seeded replications
after a warm-up, must lie within two standard errors of them; served first come, first served,
both teams wait the M/M/1 mean, rho / (mu - lambda).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from tco.simulator.run import prepare, simulate
from tco.simulator.workload.arrivals import HOURS_PER_AVERAGE_MONTH
from tests.conftest import make_scenario

SERVICE_H = 4.0  # mean hold of a job on the server (8 GPUs x 4 h of A40 work each)
LOADS = (0.35, 0.45)  # the first-ranked team's load, the second's: 0.8 in all


def _team(name: str, rho: float) -> dict[str, Any]:
    return {
        "name": name,
        "team": name,
        "arrivals_per_month": rho / SERVICE_H * HOURS_PER_AVERAGE_MONTH,
        "gpus": 8,
        "comm_share": 0.0,  # the hold is the work over 8 GPUs, nothing more
        "work": {"reference_gpu": "A40", "gpu_hours": 8 * SERVICE_H, "distribution": "exponential"},
    }


def _mean_waits(
    sharing: dict[str, Any], seeds: int = 10, loads: tuple[float, float] = LOADS
) -> np.ndarray:
    """Per replication, each team's mean wait (h) of jobs after the warm-up."""
    out = []
    for seed in range(seeds):
        sc = make_scenario(
            seed=seed,
            horizon_months=18,
            workload={"job_classes": [_team("first", loads[0]), _team("second", loads[1])]},
            options=[
                {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1}
            ],
            sharing=sharing,
        )
        r = simulate(prepare(sc), advise=False)
        o, jobs = r.options[0], r.jobs
        run = o.runs.run_h[~np.isnan(o.runs.start_h)]
        assert float(run.mean()) == pytest.approx(SERVICE_H, rel=0.1)
        sel = (jobs.arrival_h > 730.0) & (jobs.arrival_h < r.horizon_h - 60 * SERVICE_H)
        assert not np.isnan(o.runs.start_h[sel]).any()
        wait = o.runs.start_h - jobs.arrival_h
        out.append([float(wait[sel & (jobs.job_class == k)].mean()) for k in (0, 1)])
    return np.array(out)


def _within_two_se(waits: np.ndarray, theory: tuple[float, float]) -> None:
    mean = waits.mean(axis=0)
    se = waits.std(axis=0, ddof=1) / math.sqrt(len(waits))
    for k in (0, 1):
        assert abs(mean[k] - theory[k]) <= 2 * se[k], (k, mean, theory, se)


def test_two_teams_by_priority_wait_cobham_s_non_preemptive_means() -> None:
    mu = 1 / SERVICE_H
    w0 = sum(LOADS) / mu  # sum_i lambda_i E[S^2] / 2 with E[S^2] = 2 / mu^2
    s1, s2 = LOADS[0], sum(LOADS)
    theory = (w0 / (1 - s1), w0 / ((1 - s1) * (1 - s2)))
    _within_two_se(_mean_waits({"policy": "priority", "order": ["first", "second"]}), theory)


def test_first_come_first_served_gives_both_teams_the_m_m_1_wait() -> None:
    mu, rho = 1 / SERVICE_H, sum(LOADS)
    w = rho / (mu - rho * mu)
    _within_two_se(_mean_waits({"policy": "fifo"}), (w, w))


def test_fair_share_with_equal_shares_and_loads_gives_fifo_s_mean_wait() -> None:
    """Slurm's classic fair share, two teams of equal shares and equal loads: the order moves
    with their recent use, the mean wait over every job stays the M/M/1 mean (work-conserving,
    non-preemptive, service times not used to order: the same mean as first come, first
    served), and neither team waits much more than the other."""
    mu, rho = 1 / SERVICE_H, sum(LOADS)
    w = rho / (mu - rho * mu)
    equal = (rho / 2, rho / 2)
    fair = {"policy": "fair_share", "shares": {"first": 1, "second": 1}, "half_life_days": 2}
    waits = _mean_waits(fair, loads=equal)
    both = waits.mean(axis=1)  # the two teams' jobs are equally many on average
    se = both.std(ddof=1) / math.sqrt(len(both))
    assert abs(both.mean() - w) <= 2 * se, (both.mean(), w, se)
    assert abs(waits[:, 0].mean() - waits[:, 1].mean()) <= 0.25 * w


def test_fair_share_serves_a_larger_share_sooner() -> None:
    equal = (sum(LOADS) / 2, sum(LOADS) / 2)
    fair = {"policy": "fair_share", "shares": {"first": 3, "second": 1}, "half_life_days": 2}
    waits = _mean_waits(fair, loads=equal).mean(axis=0)
    assert waits[0] < waits[1]
