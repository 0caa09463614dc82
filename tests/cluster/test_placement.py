"""Jobs placed on servers (simulator/cluster/placement.py in the SimPy scheduler): a job inside one
server when it fits in one, whole servers plus one for the remainder otherwise, first fit.

Checked against a bare heapq event loop written here with its own first fit (identical start
times, not merely close), against hand-worked cases (fragmentation GPU-hours to the hour), and
against the pool where placement cannot matter (one server)."""

from __future__ import annotations

import numpy as np
import pytest

import tco
from tco.simulator.cluster.placement import Servers
from tco.simulator.cluster.scheduler import QueueInput, simulate, simulate_queue
from tco.simulator.scenario.model import load_scenario
from tests.conftest import ROOT
from tests.oracles.placed_heapq import fifo_placed_heapq


def _random_input(seed: int, size: int) -> QueueInput:
    rng = np.random.default_rng(seed)
    n = 400
    arrival = np.sort(np.round(rng.uniform(0, 2000, n), 1))  # ties on purpose
    units = rng.choice(
        [1, 2, 3, 4, size, size + 2, 2 * size], n, p=[0.3, 0.2, 0.1, 0.15, 0.1, 0.1, 0.05]
    )
    hold = np.round(rng.exponential(30, n), 2) + 0.5
    capacity = [(0.0, 2 * size), (300.0, 2 * size)]
    # GPUs failing and coming back on given servers (a server of the second delivery too).
    failures = [(100.0, 0, -1), (150.0, 1, -1), (400.0, 0, +1), (450.0, 3, -1), (600.0, 1, +1)]
    return QueueInput(arrival, units, hold, capacity, 2500.0, "fifo", 500, None, size, failures)


@pytest.mark.parametrize("seed,size", [(1, 8), (2, 8), (3, 4), (4, 4)])
def test_fifo_on_servers_matches_a_heapq_loop_exactly(seed: int, size: int) -> None:
    inp = _random_input(seed, size)
    got = simulate(inp)
    want = fifo_placed_heapq(inp)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    # Placement matters here: the pool starts some jobs earlier.
    pool = simulate(
        QueueInput(
            inp.arrival_h,
            inp.units,
            inp.hold_h,
            inp.capacity + [(t, u) for t, _, u in inp.server_changes],
            inp.horizon_h,
        )
    )
    assert not np.array_equal(np.nan_to_num(pool, nan=-1), np.nan_to_num(got, nan=-1))


def test_gpus_scattered_over_servers_are_stranded_for_a_whole_server_job() -> None:
    # Two servers of 8. Jobs of 4 GPUs take server 0 (0-10 h) and, being first fit, server 0
    # again (0-20 h)... so a third 4-GPU job goes to server 1 (0-30 h). An 8-GPU job arriving
    # at 1 h finds 4 free GPUs on server 1 only... then at 10 h server 0 has 4 free and server 1
    # has 4 free: a pool would start it, servers cannot, until 20 h frees server 0.
    inp = QueueInput(
        np.array([0.0, 0.0, 0.0, 1.0]),
        np.array([4, 4, 4, 8]),
        np.array([10.0, 20.0, 30.0, 5.0]),
        [(0.0, 16)],
        100.0,
        server_gpus=8,
    )
    q = simulate_queue(inp)
    assert q.start_h.tolist() == [0.0, 0.0, 0.0, 20.0]
    assert q.stranded_gpu_h == pytest.approx(8 * (20.0 - 10.0))  # 4 + 4 free GPUs, 10 h
    pool = simulate_queue(QueueInput(inp.arrival_h, inp.units, inp.hold_h, inp.capacity, 100.0))
    assert pool.start_h.tolist() == [0.0, 0.0, 0.0, 10.0] and pool.stranded_gpu_h == 0.0


def test_a_job_larger_than_a_server_takes_whole_servers_and_one_for_the_rest() -> None:
    s = Servers(8)
    s.add_servers(24)
    s.take([(1, 2)])  # free: 8, 6, 8
    assert s.place(12) == [(0, 8), (1, 4)]  # the first whole server, the rest first fit
    assert s.place(20) == [(0, 8), (2, 8), (1, 4)]
    assert s.place(6) == [(0, 6)]  # first fit, not best fit (server 1 has exactly 6)
    s.take([(0, 8), (1, 4)])  # free: 0, 2, 8
    assert s.place(9) == [(2, 8), (1, 1)]  # one whole server and the rest on server 1
    s.take([(1, 2)])  # free: 0, 0, 8
    assert s.place(9) is None and s.place(8) == [(2, 8)]
    s.change(2, -1)  # a GPU of server 2 fails
    assert s.place(8) is None and s.place(7) == [(2, 7)] and s.total_free == 7


def test_backfill_on_servers_never_delays_the_head() -> None:
    # Servers of 8 x 2. A (8, 0-10 h) and B (8, 0-5 h) fill both; C needs 16 at 1 h: it can
    # start at 10 h (its shadow). E (4 GPUs, 3 h) arriving at 6 h ends at 9 h: it backfills.
    # F (4 GPUs, 5 h) would end at 11 h, after the shadow: it waits behind C.
    inp = QueueInput(
        np.array([0.0, 0.0, 1.0, 6.0, 6.0]),
        np.array([8, 8, 16, 4, 4]),
        np.array([10.0, 5.0, 4.0, 3.0, 5.0]),
        [(0.0, 16)],
        100.0,
        policy="backfill",
        server_gpus=8,
    )
    assert simulate(inp).tolist() == [0.0, 0.0, 10.0, 6.0, 14.0]


def test_one_server_places_as_the_pool_does() -> None:
    """The lab has one 8-GPU server: every job fits in it, so placement changes nothing."""
    sc = load_scenario(ROOT / "scenarios" / "lab.yaml")
    # Without failures: a pool and servers handle them differently by design (a job resumes in
    # place on a pool, queues again on servers; a swap takes a whole server down).
    own = sc.options[0].model_copy(update={"failures": None})
    runs = {}
    for how in ("servers", "pool"):
        opts = [own.model_copy(update={"placement": how})]
        r = tco.simulate(tco.prepare(sc.model_copy(update={"options": opts})), advise=False)
        runs[how] = r.option(own.name)
    a, b = runs["servers"], runs["pool"]
    assert np.array_equal(a.runs.start_h, b.runs.start_h, equal_nan=True)
    assert a.metrics.measures["fragmented_gpu_hours"] == 0.0


@pytest.mark.parametrize("seed", [5, 6])
def test_backfill_on_servers_never_runs_more_gpus_than_are_in_service(seed: int) -> None:
    inp = _random_input(seed, 8)
    inp = QueueInput(
        inp.arrival_h,
        inp.units,
        inp.hold_h,
        inp.capacity,
        inp.horizon_h,
        "backfill",
        500,
        None,
        8,
        inp.server_changes,
    )
    start = simulate(inp)
    ok = ~np.isnan(start)
    assert ok.sum() > 300
    ends = start + inp.hold_h
    for t in np.unique(start[ok]):
        running = inp.units[ok & (start <= t) & (ends > t)].sum()
        assert running <= sum(u for c, u in inp.capacity if c <= t)  # GPUs delivered by t
    # Backfill starts jobs no later than FIFO on the same servers would, on average.
    fifo = simulate(
        QueueInput(
            inp.arrival_h,
            inp.units,
            inp.hold_h,
            inp.capacity,
            inp.horizon_h,
            server_gpus=8,
            server_changes=inp.server_changes,
        )
    )
    both = ok & ~np.isnan(fifo)
    assert (start[both] - inp.arrival_h[both]).mean() <= (fifo[both] - inp.arrival_h[both]).mean()


@pytest.mark.parametrize("depth", [6, 500])
@pytest.mark.parametrize("extra", ["none", "patience", "outages", "requeue"])
def test_placed_backfill_that_skips_jobs_seen_before_starts_the_same(
    depth: int, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After arrivals alone the pass looks only at the new jobs and keeps the head's shadow
    time (scheduler.py); looking at every job every pass must give the same starts. A small
    depth matters: jobs started by backfill bring unseen ones within reach."""
    from dataclasses import replace

    from tco.simulator.cluster import scheduler
    from tco.simulator.cluster.interruptions import Checkpointing

    inp = _random_input(7, 8)
    inp = replace(inp, policy="backfill", depth=depth, hold_h=inp.hold_h * 3)  # a long queue
    ckpt = Checkpointing(
        interval_h=2.0, write_h=0.0, restart_h=0.1, wait_h=0.0, fallback_after=None
    )
    if extra == "patience":
        inp = replace(inp, patience_h=np.full(len(inp.arrival_h), 200.0))
    elif extra == "requeue":  # the GPU failures stop jobs, which queue again
        inp = replace(inp, requeue=ckpt, seed=3)
    elif extra == "outages":  # and whole servers go down
        down = [(250.0, 1, 320.0), (900.0, 2, 990.0)]
        inp = replace(inp, requeue=ckpt, seed=3, server_outages=down)
    fast = simulate(inp)
    monkeypatch.setattr(scheduler.Cluster, "remember", False)
    slow = simulate(inp)
    assert np.sum(~np.isnan(fast)) > 100
    assert np.array_equal(fast, slow, equal_nan=True)


def test_fragmentation_is_said_for_every_kind_that_reports_it() -> None:
    """The remark belongs to the measure: 0.8.0's first cut said it for owned options only and
    dropped it for a hybrid's owned side (generations.yaml's a100-now and b200-later)."""
    from tco.reports import answer
    from tests.conftest import make_scenario

    mix = [
        {
            "name": f"g{g}",
            "arrivals_per_month": 60,
            "gpus": g,
            "work": {"reference_gpu": "A40", "gpu_hours": 40 * g, "distribution": "exponential"},
        }
        for g in (3, 6)
    ]
    own = {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 2}
    options = [
        own,
        {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
        {
            "name": "hyb",
            "kind": "hybrid",
            "owned": "own",
            "burst": "od",
            "burst_after_wait_hours": 48,
        },
    ]
    said = {}
    for how in ("servers", "pool"):
        options[0] = {**own, "placement": how}
        sc = make_scenario(workload={"job_classes": mix}, options=options, horizon_months=3)
        r = tco.simulate(tco.prepare(sc), advise=False)
        said[how] = [line.split(":")[0] for line in answer.remarks(r) if "fragmentation" in line]
        lost = [r.option(n).metrics.measures["fragmented_gpu_hours"] for n in ("own", "hyb")]
        assert (min(lost) > 0) == (how == "servers")
    assert said == {"servers": ["own", "hyb"], "pool": []}
