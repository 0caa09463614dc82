"""Hardware failures of an owned cluster: availability against MTBF / (MTBF + MTTR) on an idle
pool, spares, and the work jobs lose against their checkpoint interval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tco.simulator.cluster.failures import Failures, failed_runs, outages
from tco.simulator.run import run
from tests.conftest import make_scenario


def test_idle_pool_availability_is_mtbf_over_mtbf_plus_mttr() -> None:
    f = Failures(gpu_failures_per_1000_gpu_days=30.0, repair_days=5.0)
    mtbf_h, mttr_h = 1000 / 30 * 24, 5 * 24
    horizon = 5 * 8760.0
    rng = np.random.default_rng(11)
    o = outages([(0.0, 256)], f, horizon, rng)
    availability = 1 - o.down_gpu_h / (256 * horizon)
    assert availability == pytest.approx(mtbf_h / (mtbf_h + mttr_h), abs=0.005)
    # About one failure per GPU per MTBF + MTTR.
    assert o.failures == pytest.approx(256 * horizon / (mtbf_h + mttr_h), rel=0.05)
    # Capacity changes pair up: never more GPUs back than went out.
    assert np.cumsum([d for _, d in sorted(o.changes)]).max() <= 0


REPAIRS = [
    {"distribution": "exponential", "mean_days": 5.0},
    {"distribution": "lognormal", "mean_days": 5.0, "sigma": 1.0},
    {"distribution": "uniform", "low_days": 3.0, "high_days": 7.0},
]


@pytest.mark.parametrize("repair", REPAIRS, ids=lambda r: r["distribution"])
def test_availability_rests_on_the_mean_repair_time_only(repair: dict[str, Any]) -> None:
    """Renewal-reward: without spares a GPU is in service MTBF / (MTBF + MTTR) of the time
    whatever the repair time's distribution, MTTR its mean (5 days in each case here); and a
    server's spells down whole, drawn from the same distribution, keep it too."""
    from tco.simulator.cluster.failures import RepairTime, node_outages

    f = Failures(gpu_failures_per_1000_gpu_days=30.0, repair_days=RepairTime(**repair))
    mtbf_h, mttr_h = 1000 / 30 * 24, 5 * 24
    horizon = 5 * 8760.0
    o = outages([(0.0, 256)], f, horizon, np.random.default_rng(11))
    availability = 1 - o.down_gpu_h / (256 * horizon)
    assert availability == pytest.approx(mtbf_h / (mtbf_h + mttr_h), abs=0.005)
    nodes = Failures(node_failures_per_1000_node_days=30.0, node_repair_days=RepairTime(**repair))
    spells = node_outages([(0.0, 256)], nodes, horizon, np.random.default_rng(12))
    down = sum(min(b, horizon) - a for a, _, b in spells)
    assert 1 - down / (256 * horizon) == pytest.approx(mtbf_h / (mtbf_h + mttr_h), abs=0.005)
    lengths = np.array([b - a for a, _, b in spells])
    assert lengths.mean() == pytest.approx(mttr_h, rel=0.05)
    assert lengths.std() > 0.2 * mttr_h  # drawn anew each time, not one figure
    if repair["distribution"] == "uniform":
        assert lengths.min() >= 3 * 24 and lengths.max() <= 7 * 24


@pytest.mark.parametrize(
    ("repair", "words"),
    [
        ({"distribution": "uniform", "low_days": 14}, "takes low_days and high_days"),
        ({"distribution": "uniform", "low_days": 28, "high_days": 14}, "is above high_days"),
        ({"distribution": "lognormal"}, "a lognormal repair time takes mean_days"),
        ({"distribution": "gamma", "mean_days": 3}, "repair_days"),
    ],
)
def test_a_repair_distribution_is_checked(repair: dict[str, Any], words: str) -> None:
    from tco.simulator.core.errors import ScenarioError

    own = {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 1,
        "failures": {"repair_days": repair},
    }
    with pytest.raises(ScenarioError) as e:
        make_scenario(options=[own])
    assert words in str(e.value) and "options[0].failures.repair_days" in str(e.value)


def test_spares_keep_the_pool_whole() -> None:
    f = Failures(gpu_failures_per_1000_gpu_days=3.0, repair_days=5.0)
    rng = np.random.default_rng(2)
    none = outages([(0.0, 64)], f, 5 * 8760.0, rng)
    # 64 GPUs fail ~0.19 a day: ~1 in repair at once (Poisson); 4 spares cover nearly all.
    spared = outages([(0.0, 64)], f.model_copy(update={"spare_gpus": 4}), 5 * 8760.0, rng)
    assert spared.down_gpu_h < 0.05 * none.down_gpu_h


def test_lost_work_is_bounded_by_the_checkpoint_interval() -> None:
    f = Failures(
        gpu_failures_per_1000_gpu_days=1000.0,  # the top of the range: one a GPU-day
        checkpoint_interval_hours=2.0,
        restart_overhead_minutes=0,
    )
    rng = np.random.default_rng(5)
    gpus = np.full(3000, 4)
    work = np.full(3000, 10.0)
    r = failed_runs(gpus, work, f, rng)
    hit = r.interruptions > 0
    assert hit.mean() > 0.5
    per = r.lost_gpu_h[hit] / r.interruptions[hit]
    assert per.max() <= 2.0 * 4 + 1e-9  # at most one interval of work on 4 GPUs
    assert np.all(r.hold_h[hit] > 10.0) and np.all(r.hold_h[~hit] == 10.0)
    # Expected interruptions per job: rate x GPUs x expected hold (hold includes lost work).
    rate = 1000 / 1000 / 24 * 4
    assert r.interruptions.mean() == pytest.approx(rate * r.hold_h.mean(), rel=0.05)


def _own(**failures: Any) -> dict[str, Any]:
    return {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 2,
        "failures": failures,
    }


def test_failures_cost_waits_and_are_reported(tmp_path: Path) -> None:
    calm = {**_own(gpu_failures_per_1000_gpu_days=0.0), "name": "calm"}
    rough = {**_own(gpu_failures_per_1000_gpu_days=50.0, repair_days=10.0), "name": "rough"}
    a, b = run(make_scenario(horizon_months=24, options=[calm, rough])).options
    assert a.metrics.measures["failures"] == 0 and a.metrics.measures["gpu_availability"] == 1.0
    assert (
        b.metrics.measures["failures"] > 0
        and b.metrics.measures["interruptions"] > 0
        and b.metrics.measures["lost_gpu_hours"] > 0
    )
    mtbf, mttr = 1000 / 50, 10.0
    assert b.metrics.measures["gpu_availability"] == pytest.approx(mtbf / (mtbf + mttr), abs=0.05)
    assert b.waits.p95_h >= a.waits.p95_h
    assert b.ledger.cash["power"].sum() > a.ledger.cash["power"].sum()  # lost work burns power
    # Default rate and repair come from the reliability data with sources.
    d = Failures()
    assert d.gpu_failures_per_1000_gpu_days == 0.303 and d.repair_days == 14.0
