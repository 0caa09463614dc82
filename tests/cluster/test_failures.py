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
    """Without spares a failed GPU waits for a part back from the RMA, then for the swap:
    MTTR = the RMA + the swap."""
    f = Failures(gpu_failures_per_1000_gpu_days=30.0, repair_days=5.0, spare_gpus=0)
    mtbf_h, mttr_h = 1000 / 30 * 24, 5 * 24 + f.swap_hours
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

    f = Failures(
        gpu_failures_per_1000_gpu_days=30.0, repair_days=RepairTime(**repair), swap_hours=0
    )
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
    f = Failures(gpu_failures_per_1000_gpu_days=3.0, repair_days=5.0, spare_gpus=0)
    rng = np.random.default_rng(2)
    none = outages([(0.0, 64)], f, 5 * 8760.0, rng, 8)
    # 64 GPUs fail ~0.19 a day: ~1 in repair at once (Poisson); 4 spares cover nearly all, and
    # a failed GPU is then out for the drain and the swap only.
    spared = outages([(0.0, 64)], f.model_copy(update={"spare_gpus": 4}), 5 * 8760.0, rng, 8)
    assert spared.down_gpu_h < 0.05 * none.down_gpu_h
    per_failure = spared.down_gpu_h / spared.failures  # a few found every spare away
    assert f.drain_hours + f.swap_hours <= per_failure < 1.25 * (f.drain_hours + f.swap_hours)
    # The server is down whole for each swap: one spell per failure, swap_hours long.
    assert len(spared.swaps) == spared.failures
    assert all(b - a == pytest.approx(f.swap_hours) for a, _, b in spared.swaps)
    assert {s for _, s, _ in spared.swaps} <= set(range(8))


@pytest.mark.parametrize("spares", [0, 1, 2, 4])
def test_failures_waiting_for_a_part_follow_palms_theorem(spares: int) -> None:
    """Parts away at the RMA are Poisson with mean rate x GPUs x RMA time (Palm's theorem, an
    M/G/inf queue); by PASTA a failure finds no spare with probability P(N >= spares).
    Uniform RMA times: the result rests on the mean only."""
    from scipy.stats import poisson

    from tco.simulator.cluster.failures import RepairTime

    rma = RepairTime(distribution="uniform", low_days=7, high_days=21)  # mean 14 days
    f = Failures(gpu_failures_per_1000_gpu_days=2.0, repair_days=rma, spare_gpus=spares)
    gpus, horizon = 64, 200 * 8760.0  # 1.8 parts away on average: 0-4 spares span 100-11 %
    o = outages([(0.0, gpus)], f, horizon, np.random.default_rng(40 + spares), 8)
    mean = 2.0 / 1000 / 24 * gpus * 14 * 24
    want = poisson.sf(spares - 1, mean)  # P(N >= spares)
    assert o.waited / o.failures == pytest.approx(want, abs=0.02 + 0.1 * want)


def test_the_auto_pool_is_the_95_percent_fill_rate() -> None:
    from scipy.stats import poisson

    f = Failures()
    for gpus in (8, 64, 1024, 16_384):
        n = f.spares(gpus, 8)
        mean = f.rate_per_gpu_h * gpus * f.repair_days * 24  # type: ignore[operator]
        assert poisson.sf(n - 1, mean) <= 0.05 < poisson.sf(n - 2, mean) if n > 1 else True
        assert poisson.sf(n - 1, mean) <= 0.05
    assert f.spares(1, 1) == 0 and f.spares(64, 8) == 2


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
    rough = {
        **_own(gpu_failures_per_1000_gpu_days=50.0, repair_days=10.0, spare_gpus=0, swap_hours=0),
        "name": "rough",
    }
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
    # Default rate and repair come from the reliability data with sources; an owned option's
    # GPUs fail unless it says failures: null.
    d = Failures()
    assert d.gpu_failures_per_1000_gpu_days == 0.303 and d.repair_days == 14.0
    assert d.spare_gpus == "auto" and d.swap_hours == 4.0 and d.drain_hours == 1.0
    plain = {k: v for k, v in _own().items() if k != "failures"}
    off = {**plain, "failures": None, "name": "off"}
    on, off_ = run(make_scenario(horizon_months=24, options=[plain, off])).options
    assert on.metrics.measures["failures"] > 0 and off_.metrics.measures["failures"] == 0


def test_a_llama3_sized_cluster_strands_servers_for_swaps_not_for_the_rma() -> None:
    """16,384 H100 in 8-GPU servers at Llama 3's rate for a year: with the default pool a failed
    GPU takes its server out of reach of 8-GPU jobs for the drain and the swap (about 0.05 % of
    server time); 0.10.0 held it out for the whole 14-day repair (about 3 %)."""
    gpus, horizon = 16_384, 8760.0
    servers = gpus // 8

    def stranded(f: Failures) -> float:
        """Server-hours with at least one GPU out, over all server-hours."""
        o = outages([(0.0, gpus)], f, horizon, np.random.default_rng(3), 8)
        began: dict[int, float] = {}
        spells: dict[int, list[tuple[float, float]]] = {}
        for (t, d), g in zip(o.changes, o.gpus, strict=True):
            if d < 0:
                began[g] = t
            else:
                spells.setdefault(g // 8, []).append((began.pop(g), t))
        for g, t in began.items():
            spells.setdefault(g // 8, []).append((t, horizon))
        total = 0.0
        for intervals in spells.values():  # the union of a server's GPUs' spells
            end = -1.0
            for a, b in sorted(intervals):
                total += max(0.0, b - max(a, end))
                end = max(end, b)
        return total / (servers * horizon)

    pool = stranded(Failures())
    rma = stranded(Failures(spare_gpus=0))
    assert pool < 0.001 and rma > 0.02
    assert Failures().spares(gpus, 8) < 0.01 * gpus  # the pool is under 1 % of the GPUs


def test_the_spare_pool_is_bought_with_the_first_servers_and_quoted() -> None:
    """8 HGX H100 (64 GPUs, a price that holds): 2 spares, each the server's price per GPU over
    Epoch's server/chip cost ratio 1.64, in the first month's capex; the quotes say so."""
    from tco.pricing import hardware

    own = {"name": "own", "kind": "owned", "server": "HGX H100 8-GPU", "servers": 8}
    o = run(make_scenario(horizon_months=12, options=[own])).options[0]
    price = hardware.server("HGX H100 8-GPU").price_usd
    assert o.ledger.cash["capex"][0] == pytest.approx(8 * price + 2 * price / 8 / 1.64)
    (q,) = [q for q in o.quotes if q.item == "spare GPUs"]
    assert q.value == 2 and "95 %" in q.detail


def test_a_vendor_maintained_single_server_buys_no_spare_and_waits_the_response() -> None:
    """Issue 42: under a support contract no spare pool is bought, and a failed GPU is out for
    the contract's response time and the swap (MTBF / (MTBF + response + swap) in service);
    keeping spares itself, the same server buys one."""
    from tco.pricing import hardware
    from tco.simulator.kinds.owned.model import Owned

    dgx = {
        "name": "own",
        "kind": "owned",
        "server": "DGX A100 320GB",
        "servers": 1,
        "support_pct_per_year": 10,
    }
    vendor = Owned.model_validate(dgx)
    assert vendor.failures is not None and vendor.failures.maintenance == "auto"
    f = vendor.upkeep
    assert f is not None and f.maintenance == "vendor"
    assert f.spares(8, 8) == 0 and f.repair_days == 1.5
    own = Owned.model_validate({**dgx, "failures": {"maintenance": "self"}}).upkeep
    assert own is not None and own.spares(8, 8) == 1 and own.repair_days == 14.0
    bare = Owned.model_validate({**dgx, "support_pct_per_year": 0}).upkeep
    assert bare is not None and bare.maintenance == "self"
    none = Owned.model_validate({**dgx, "failures": {"maintenance": "none"}}).upkeep
    assert none is not None and none.spares(8, 8) == 0 and none.repair_days == 14.0
    # The outage is the response time: availability of an idle pool of such GPUs.
    rough = f.model_copy(update={"gpu_failures_per_1000_gpu_days": 30.0})
    horizon = 5 * 8760.0
    o = outages([(0.0, 256)], rough, horizon, np.random.default_rng(5))
    mtbf_h, mttr_h = 1000 / 30 * 24, 1.5 * 24 + rough.swap_hours
    assert 1 - o.down_gpu_h / (256 * horizon) == pytest.approx(
        mtbf_h / (mtbf_h + mttr_h), abs=0.002
    )
    # The plan says which maintenance it assumed and what spares it did not buy.
    r = run(make_scenario(horizon_months=12, options=[dgx]))
    (q,) = [q for q in r.options[0].quotes if q.item.startswith("maintenance")]
    gpu_price = hardware.server("DGX A100 320GB").price_usd / 8 / 1.64
    assert q.item == "maintenance: vendor" and q.value == pytest.approx(gpu_price, rel=1e-6)
    assert "support_pct_per_year (10 %)" in q.detail


def test_spares_are_only_the_owners_to_keep() -> None:
    from tco.simulator.core.errors import ScenarioError
    from tco.simulator.scenario.model import validate

    bad = _own(maintenance="vendor", spare_gpus=2)
    with pytest.raises(ScenarioError, match="spare_gpus: 2 goes with maintenance: self"):
        validate(make_scenario(options=[bad]).model_dump(mode="json"), "<test>")
