"""An owned cluster of several server models side by side (a newer GPU added in a later tranche):
hand cases of the scheduler, speeds by model, the ledger by hand, and input errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from tco.pricing import hardware, new_prices
from tco.simulator.cluster.queue_records import Group, Queued, QueueInput
from tco.simulator.cluster.scheduler import simulate_queue as simulate_mixed
from tco.simulator.core import defaults
from tco.simulator.core.errors import ScenarioError
from tco.simulator.kinds.owned.model import OwnedPlan
from tco.simulator.run import prepare, simulate
from tco.simulator.workload.speed import run_hours
from tests.conftest import make_scenario


def _queue(
    jobs: list[tuple[float, int, float, float]], newer: tuple[int, float], **kw: Any
) -> Queued:
    """Jobs (arrival, GPUs, hold on the 8 own GPUs, hold on the newer server) and a newer
    server of ``newer[0]`` GPUs arriving at ``newer[1]`` h."""
    a, u, h, h2 = (np.array(x) for x in zip(*jobs, strict=True))
    group = Group(newer[0], h2.astype(float), [(newer[1], newer[0])])
    inp = QueueInput(
        a.astype(float),
        u.astype(np.int64),
        h.astype(float),
        [(0.0, 8)],
        1000.0,
        server_gpus=8,
        groups=[group],
        **kw,
    )
    return simulate_mixed(inp)


def test_a_job_takes_the_newest_model_that_holds_it() -> None:
    # A holds the own server 0-10 h; B waits for it, but the newer server arrives at 5 h and
    # runs B in 5 h; at 10 h both are free and C takes the newer one.
    q = _queue([(0.0, 8, 10.0, 5.0), (1.0, 8, 10.0, 5.0), (6.0, 8, 10.0, 5.0)], (8, 5.0))
    assert q.start_h.tolist() == [0.0, 5.0, 10.0]
    assert q.group is not None and q.group.tolist() == [0, 1, 1]


def test_backfill_on_a_mixed_cluster() -> None:
    # A holds 8 own GPUs to 100 h; head B needs 8, which only the own server has: its shadow
    # time is 100 h. C (2 GPUs) starts on the 4-GPU newer server when it arrives (10 h) and ends
    # in time; D (4 GPUs, 200 h there) would end after the shadow time and waits for 100 h.
    jobs = [
        (0.0, 8, 100.0, np.inf),
        (1.0, 8, 30.0, np.inf),
        (2.0, 2, 5.0, 2.5),
        (3.0, 4, 300.0, 200.0),
    ]
    q = _queue(jobs, (4, 10.0), policy="backfill")
    assert q.start_h.tolist() == [0.0, 100.0, 10.0, 100.0]
    assert q.group is not None and q.group.tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize(("on_own", "stranded"), [(10.0, 36.0), (np.inf, 0.0)])
def test_fragmentation_is_counted_on_each_model(on_own: float, stranded: float) -> None:
    # Two own servers of 8 and one newer of 8. At 0 h two 4-GPU jobs fill the newer server
    # (the newest first) and two 6-GPU jobs leave 2 GPUs free on each own server. E (4 GPUs)
    # at 1 h fits no server: the own model's 2 + 2 free GPUs would hold it as a pool, so they
    # sit idle by fragmentation until 10 h (4 GPUs x 9 h); the full newer server strands
    # nothing. If E cannot run on the own model (``on_own`` inf: memory), nothing is stranded.
    a = np.array([0.0, 0.0, 0.0, 0.0, 1.0])
    u = np.array([4, 4, 6, 6, 4], np.int64)
    hold = np.array([10.0, 10.0, 10.0, 10.0, on_own])
    group = Group(8, np.full(5, 10.0), [(0.0, 8)])
    inp = QueueInput(a, u, hold, [(0.0, 16)], 1000.0, server_gpus=8, groups=[group])
    q = simulate_mixed(inp)
    assert q.group is not None and q.group.tolist() == [1, 1, 0, 0, 1]
    assert q.start_h.tolist() == [0.0, 0.0, 0.0, 0.0, 10.0]
    assert q.stranded_gpu_h == pytest.approx(stranded)


@pytest.mark.parametrize("how", ["a GPU fails", "the server goes down"])
def test_a_job_stopped_on_one_model_finishes_on_another_at_its_speed(how: str) -> None:
    # X (8 GPUs) runs 10 h on the own server, 5 h on the newer one, and starts there at 0 h.
    # At 2 h a failure stops it: checkpoints every 1.5 h keep 1.5 h of its work and lose 0.5 h
    # (x 8 GPUs = 4 GPU-hours). The newer server cannot hold it now (7 GPUs, or down), so it
    # restarts on the own server at once, its 3.5 h left there taking 3.5 x 10 / 5 = 7 h.
    from tco.simulator.cluster.interruptions import Checkpointing

    ckpt = Checkpointing(
        interval_h=1.5, write_h=0.0, restart_h=0.0, wait_h=0.0, fallback_after=None
    )
    fails = (
        {"server_changes": [(2.0, 0, -1)]}
        if how == "a GPU fails"
        else {"server_outages": [(2.0, 0, 4.0)]}
    )
    group = Group(8, np.array([5.0]), [(0.0, 8)], **fails)
    inp = QueueInput(
        np.array([0.0]),
        np.array([8], np.int64),
        np.array([10.0]),
        [(0.0, 8)],
        100.0,
        server_gpus=8,
        groups=[group],
        requeue=ckpt,
    )
    q = simulate_mixed(inp)
    assert q.start_h.tolist() == [0.0]  # its wait is counted from its first start
    assert q.group is not None and q.group.tolist() == [0]  # where it ran last
    r = q.requeued
    assert r is not None
    assert r.end_h.tolist() == [9.0]
    assert r.interruptions.tolist() == [1] and r.lost_gpu_h.tolist() == [4.0]
    assert r.gaps == [] or all(b - a == 0.0 for _, a, b in r.gaps)  # it restarted at once


def test_a_mixed_cluster_fails_at_mtbf_over_mtbf_plus_mttr() -> None:
    """Each model's GPUs fail at the option's rate: over 36 months the two models' 16 GPUs are
    in service MTBF / (MTBF + MTTR) of the time, jobs under failures are stopped and finish."""
    f = {"gpu_failures_per_1000_gpu_days": 30.0, "repair_days": 5.0, "spare_gpus": 0}
    f["swap_hours"] = 0  # out for the repair alone: renewal theory
    prepared = prepare(make_scenario(horizon_months=36, options=[{**OWN, "failures": f}]))
    o = simulate(prepared, advise=False).options[0]
    mtbf_h, mttr_h = 1000 / 30 * 24, 5 * 24
    assert o.metrics.measures["gpu_availability"] == pytest.approx(
        mtbf_h / (mtbf_h + mttr_h), abs=0.03
    )
    assert o.runs.counts["failures"] > 100
    gen, hits = o.runs.generation, o.runs.interruptions
    assert gen is not None and hits is not None
    assert hits[gen == 0].sum() > 0 and hits[gen == 1].sum() > 0  # on both models
    done = ~np.isnan(o.runs.end_h) & (o.runs.end_h < prepared.horizon_h)
    assert done.sum() > 0.9 * len(prepared.jobs)


OWN = {
    "name": "own",
    "kind": "owned",
    "server": "8x A40 NVLink server",
    "tranches": [
        {"month": 0, "servers": 1},
        {"month": 12, "servers": 1, "server": "HGX A100 8x80GB"},
    ],
    "installation_usd_per_server": 1000.0,
    "failures": None,  # by-hand ledgers (failures tested with their own)
}


def test_each_job_runs_at_the_speed_of_the_model_it_ran_on_and_is_billed_so() -> None:
    prepared = prepare(make_scenario(horizon_months=36, options=[OWN]))
    o = simulate(prepared, advise=False).options[0]
    plan = prepared.plans[0]
    assert isinstance(plan, OwnedPlan)
    gen = o.runs.generation
    assert gen is not None and (gen == 0).any() and (gen == 1).any()
    for g, hw in enumerate([plan.hardware, plan.mix[0].hardware]):
        np.testing.assert_allclose(o.runs.run_h[gen == g], run_hours(prepared.jobs, hw)[gen == g])
    a40, a100 = hardware.server("8x A40 NVLink server"), hardware.server("HGX A100 8x80GB")
    c = o.ledger.cash

    # Each at its own catalog price, moved to the order month by the Ampere new-price trend
    # (pricing.new_prices) from that price's own date.
    def ordered(s: hardware.ServerModel, month: int) -> float:
        y, m, d = (int(x) for x in s.price_date.split("-"))
        years = (2027 + month / 12) - (y + (m - 1) / 12 + (d - 1) / 365.25)
        return s.price_usd * math.exp(new_prices.trend(s.gpu).per_year * years)

    assert c["capex"][0] == pytest.approx(ordered(a40, 0) + 1000.0, rel=2e-3)
    assert c["capex"][12] == pytest.approx(ordered(a100, 12) + 1000.0, rel=2e-3)
    rate = defaults.COLOCATION_USD_PER_KW_MONTH
    assert c["facility"][5] == pytest.approx(a40.max_kw * rate)
    assert c["facility"][20] == pytest.approx((a40.max_kw + a100.max_kw) * rate)
    # GPU-hours in service: both models' 16 GPUs in month 21 (2028-09: 30 days).
    assert o.ledger.gpu_hours_paid[20] == pytest.approx(16 * 24 * 30)


@pytest.mark.parametrize(
    ("over", "match"),
    [
        (
            {
                "tranches": [
                    {"month": 0, "servers": 1},
                    {"month": 3, "servers": 1, "server": "HGX 9"},
                ]
            },
            r"tranches\[1\]\.server",
        ),
        ({"placement": "pool"}, r"together with placement: pool"),
        ({"refresh": {"month": 20, "server": "HGX H100 8-GPU"}}, r"together with a refresh"),
    ],
)
def test_mixed_cluster_input_errors(over: dict[str, Any], match: str) -> None:
    with pytest.raises(ScenarioError, match=match):
        prepare(make_scenario(horizon_months=36, options=[{**OWN, **over}]))
