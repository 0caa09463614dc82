"""Jobs stopped by a failing GPU and queued again (owned clusters placed on servers,
simulator/cluster/requeue.py): a hand-worked case to the minute, which job a failure hits, the
work lost per interruption against the checkpoint interval, and GPUs never busier than in
service."""

from __future__ import annotations

import itertools
from array import array

import numpy as np
import pytest

from tco.simulator.cluster.interruptions import Checkpointing
from tco.simulator.cluster.requeue import Requeue
from tco.simulator.cluster.scheduler import QueueInput, simulate_queue
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.run import run
from tests.conftest import make_scenario

Rough = tuple[Result, OptionResult]  # the run and its servers option
CKPT = Checkpointing(interval_h=2.0, write_h=0.0, restart_h=0.5, wait_h=0.0, fallback_after=None)


def test_a_failure_stops_the_job_under_it_which_queues_again_from_its_checkpoint() -> None:
    # One server of 8. Job 0 (8 GPUs, 10 h) from 0 h; a GPU fails at 5 h (under job 0: all 8
    # are busy) and is back at 7 h. Job 0 saved 4 h (checkpoints at 2 and 4 h) and lost 1 h on
    # 8 GPUs; it restarts when 8 GPUs are in service again (7 h), reloads 0.5 h and runs the
    # 6 h left: it ends at 13.5 h. Job 1 (4 GPUs, from 1 h) waits behind it (FIFO).
    q = simulate_queue(
        QueueInput(
            np.array([0.0, 1.0]),
            np.array([8, 4]),
            np.array([10.0, 1.0]),
            [(0.0, 8)],
            100.0,
            server_gpus=8,
            server_changes=[(5.0, 0, -1), (7.0, 0, +1)],
            requeue=CKPT,
        )
    )
    assert q.start_h.tolist() == [0.0, 13.5]
    r = q.requeued
    assert r is not None
    assert r.end_h.tolist() == [13.5, 14.5]
    assert r.interruptions.tolist() == [1, 0]
    assert r.lost_gpu_h.tolist() == [8.0, 0.0]
    assert r.gaps == [(0, 5.0, 7.0)]


def test_a_failure_hits_a_busy_gpu_in_proportion_to_the_busy_share() -> None:
    rq = Requeue(CKPT, array("d", [100.0]), np.random.default_rng(3))
    alloc = {0: [(0, 2)]}  # job 0 holds 2 of server 0's 8 GPUs
    n = 20_000
    hits = sum(rq.victim(0, 6, 8, alloc) == 0 for _ in range(n))
    p = 2 / 8
    assert abs(hits / n - p) < 4 * (p * (1 - p) / n) ** 0.5
    assert rq.victim(0, 0, 8, {0: [(0, 8)]}) == 0  # every GPU busy: always the job's


def _cluster(placement: str) -> dict[str, object]:
    return {
        "name": f"own-{placement}",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 4,
        "placement": placement,
        "failures": {
            "gpu_failures_per_1000_gpu_days": 50.0,
            "repair_days": 2.0,
            "checkpoint_interval_hours": 2.0,
            "restart_overhead_minutes": 0.0,
        },
    }


@pytest.fixture(scope="module")
def rough() -> Rough:
    classes = [
        {
            "name": "long",
            "arrivals_per_month": 60,
            "gpus": {"choices": [1, 4, 8, 16]},
            "work": {"reference_gpu": "A40", "gpu_hours": 120, "distribution": "exponential"},
        },
    ]
    sc = make_scenario(
        workload={"job_classes": classes}, options=[_cluster("servers"), _cluster("pool")]
    )
    r = run(sc)
    return r, r.options[0]


def test_work_lost_per_interruption_is_half_a_checkpoint_interval(rough: Rough) -> None:
    """Failures fall at random within a checkpoint interval: on average half of it is lost
    (interval 2 h, failures rare within one: 50 per 1,000 GPU-days)."""
    _, servers = rough
    runs = servers.runs
    assert runs.gaps is not None and len(runs.gaps.job) > 100
    assert runs.interruptions is not None and runs.lost_gpu_h is not None
    hit = runs.interruptions > 0
    lost_h = runs.lost_gpu_h[hit].sum() / (runs.interruptions * runs.gpus)[hit].sum()
    assert lost_h == pytest.approx(1.0, abs=0.12)
    assert int(runs.interruptions.sum()) == servers.metrics.measures["interruptions"]


def test_requeued_jobs_never_keep_more_gpus_busy_than_are_in_service(rough: Rough) -> None:
    r, servers = rough
    led = servers.ledger
    assert np.all(led.gpu_hours_busy <= led.gpu_hours_paid + 1e-6)
    # Busy hours are the holds less the gaps: the same GPU-hours as summing each hold.
    runs = servers.runs
    held = np.nansum((np.minimum(runs.end_h, r.horizon_h) - runs.start_h) * runs.gpus)
    g = runs.gaps
    assert g is not None
    gap = ((np.minimum(g.to_h, r.horizon_h) - g.from_h) * runs.gpus[g.job]).sum()
    assert led.gpu_hours_busy.sum() == pytest.approx(held - gap, rel=1e-9)


def test_on_a_pool_jobs_still_resume_in_place(rough: Rough) -> None:
    r, _ = rough
    pool = r.options[1]
    assert pool.runs.gaps is None and pool.metrics.measures["interruptions"] > 0


def test_a_server_down_stops_every_job_on_it_until_it_is_back() -> None:
    # Two servers of 8. Job 0 (8 GPUs, 10 h) takes server 0, job 1 (4 GPUs, 20 h) server 1.
    # Server 0 is down from 5 h to 9 h: job 0 keeps 4 h (checkpoints every 2 h), loses 1 h on
    # 8 GPUs, cannot fit in server 1's 4 free GPUs, restarts at 9 h and ends at 9 + 0.5 + 6.
    q = simulate_queue(
        QueueInput(
            np.array([0.0, 0.0]),
            np.array([8, 4]),
            np.array([10.0, 20.0]),
            [(0.0, 16)],
            100.0,
            server_gpus=8,
            requeue=CKPT,
            server_outages=[(5.0, 0, 9.0)],
        )
    )
    r = q.requeued
    assert r is not None
    assert q.start_h.tolist() == [0.0, 0.0]
    assert r.end_h.tolist() == [15.5, 20.0]
    assert r.lost_gpu_h.tolist() == [8.0, 0.0] and r.gaps == [(0, 5.0, 9.0)]
    assert q.servers_down_gpu_h == 8 * 4.0


def test_servers_are_up_mtbf_over_mtbf_plus_mttr_of_the_time() -> None:
    from tco.simulator.cluster.failures import Failures, node_outages

    f = Failures(node_failures_per_1000_node_days=30.0, node_repair_days=5.0)
    horizon = 5 * 8760.0
    down = node_outages([(0.0, 256)], f, horizon, np.random.default_rng(9))
    share = sum(min(b, horizon) - a for a, _, b in down) / (256 * horizon)
    mtbf, mttr = 1000 / 30.0, 5.0
    assert share == pytest.approx(mttr / (mtbf + mttr), rel=0.05)


def test_node_failures_show_in_availability_and_interruptions() -> None:
    classes = [
        {
            "name": "j",
            "arrivals_per_month": 100,
            "gpus": {"choices": [1, 8]},
            "work": {"reference_gpu": "A40", "gpu_hours": 40, "distribution": "exponential"},
        },
    ]
    own = {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 4,
        "failures": {
            "gpu_failures_per_1000_gpu_days": 0.0,
            "node_failures_per_1000_node_days": 30.0,
            "node_repair_days": 5.0,
        },
    }
    o = run(make_scenario(workload={"job_classes": classes}, options=[own])).options[0]
    mtbf, mttr = 1000 / 30.0, 5.0
    # Down GPU-hours are the servers' (no GPU failures): availability near the renewal share.
    assert 1 - o.metrics.measures["gpu_availability"] == pytest.approx(
        mttr / (mtbf + mttr), abs=0.03
    )
    assert o.metrics.measures["interruptions"] > 0 and o.runs.gaps is not None
    assert (
        o.metrics.measures["node_failures"] > 0 and o.metrics.measures["failures"] == 0
    )  # servers, not GPUs


def test_racks_and_servers_fail_independently_so_availabilities_multiply() -> None:
    """A server is up when both it and its rack are: A = A_node x A_rack, each MTBF/(MTBF+MTTR)."""
    from tco.simulator.cluster.failures import Failures, server_outages

    f = Failures(
        node_failures_per_1000_node_days=30.0,
        node_repair_days=5.0,
        servers_per_rack=4,
        rack_failures_per_1000_rack_days=20.0,
        rack_repair_days=3.0,
    )
    horizon = 5 * 8760.0
    down, nodes, racks = server_outages([(0.0, 256)], f, horizon, np.random.default_rng(9))
    for s in range(256):  # merged: no server is taken down twice at once
        mine = sorted((a, b) for a, x, b in down if x == s)
        assert all(b1 < a2 for (_, b1), (a2, _) in itertools.pairwise(mine))
    share = sum(min(b, horizon) - a for a, _, b in down) / (256 * horizon)
    a_node = (1000 / 30.0) / (1000 / 30.0 + 5.0)
    a_rack = (1000 / 20.0) / (1000 / 20.0 + 3.0)
    assert 1 - share == pytest.approx(a_node * a_rack, abs=0.005)
    assert share > 1 - a_node + 0.02  # the racks add their own downtime
    # 64 racks x 5 years / (MTBF + MTTR): about 2,200 rack failures.
    expected = 64 * horizon / 24 / (1000 / 20.0 + 3.0)
    assert racks == pytest.approx(expected, rel=0.05) and nodes > 0


def test_a_rack_failure_takes_all_its_servers_down_together() -> None:
    from tco.simulator.cluster.failures import Failures, server_outages

    f = Failures(
        gpu_failures_per_1000_gpu_days=0.0,
        servers_per_rack=2,
        rack_failures_per_1000_rack_days=50.0,
    )
    down, nodes, racks = server_outages([(0.0, 4)], f, 2000.0, np.random.default_rng(1))
    assert nodes == 0 and racks > 0
    by_rack: dict[int, set[tuple[float, float]]] = {}
    for a, s, b in down:
        by_rack.setdefault(s // 2, set()).add((a, b))
    for spells in by_rack.values():  # each spell of a rack is its two servers' alike
        assert sum(1 for a, s, b in down if (a, b) in spells) == 2 * len(spells)
    with pytest.raises(ValueError, match="needs servers_per_rack"):
        Failures(rack_failures_per_1000_rack_days=1.0)


def test_rack_failures_reach_the_option_figures() -> None:
    classes = [
        {
            "name": "j",
            "arrivals_per_month": 100,
            "gpus": {"choices": [1, 8]},
            "work": {"reference_gpu": "A40", "gpu_hours": 40, "distribution": "exponential"},
        },
    ]
    failures = {
        "gpu_failures_per_1000_gpu_days": 0.0,
        "servers_per_rack": 2,
        "rack_failures_per_1000_rack_days": 30.0,
        "rack_repair_days": 5.0,
    }
    own = {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 4,
        "failures": failures,
    }
    o = run(make_scenario(workload={"job_classes": classes}, options=[own])).options[0]
    assert o.metrics.measures["rack_failures"] > 0 and o.metrics.measures["node_failures"] == 0
    mtbf, mttr = 1000 / 30.0, 5.0
    assert 1 - o.metrics.measures["gpu_availability"] == pytest.approx(
        mttr / (mtbf + mttr), abs=0.03
    )
    assert o.metrics.measures["interruptions"] > 0
