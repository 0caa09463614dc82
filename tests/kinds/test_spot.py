"""Spot instances: interruptions with checkpoints against Young/Daly's expected completion time,
a run without interruptions against on-demand x the spot/on-demand price ratio, and the bundled
Spot Instance Advisor data."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from tco.pricing import snapshot
from tco.simulator.cluster.interruptions import Checkpointing, run_job, run_jobs
from tco.simulator.core import defaults
from tco.simulator.core.errors import ScenarioError
from tco.simulator.run import run
from tests.conftest import make_scenario

TYPES = ["g5.xlarge", "g6e.xlarge", "p4d.24xlarge"]


def _mean_completion(
    work: float, rate: float, c: Checkpointing, n: int = 20000
) -> tuple[float, float]:
    rng = np.random.default_rng(7)
    t = np.array([run_job(0.0, work, rate, c, rng)[-1].end_h for _ in range(n)])
    return float(t.mean()), float(t.std() / math.sqrt(n))


def _piece(x: float, rate: float) -> float:
    """Daly (2006) with no restart: expected time to get x hours done without interruption."""
    return (math.exp(rate * x) - 1.0) / rate


def test_completion_time_matches_young_daly_without_restart() -> None:
    tau, write, rate, pieces = 1.0, 0.1, 0.4, 6
    c = Checkpointing(interval_h=tau, write_h=write, restart_h=0.0, wait_h=0.0, fallback_after=None)
    mean, se = _mean_completion(pieces * tau, rate, c)
    # Every piece but the last ends with a checkpoint write.
    want = (pieces - 1) * _piece(tau + write, rate) + _piece(tau, rate)
    assert abs(mean - want) < 4 * se, (mean, want, se)
    assert want > pieces * tau + (pieces - 1) * write  # interruptions cost time


def test_completion_time_with_restart_and_wait() -> None:
    """Exact renewal: a piece's first try needs x = interval + write; after an interruption each
    try waits D, then needs R + x uninterrupted."""
    tau, write, restart, wait, rate, pieces = 2.0, 0.0, 0.25, 0.5, 0.2, 4
    c = Checkpointing(
        interval_h=tau, write_h=write, restart_h=restart, wait_h=wait, fallback_after=None
    )
    mean, se = _mean_completion(pieces * tau, rate, c)

    def truncated(x: float) -> float:  # E[min(T, x)], T ~ Exp(rate)
        return (1 - math.exp(-rate * x)) / rate

    x1, x2 = tau, restart + tau
    q = math.exp(-rate * x2)
    per_piece = truncated(x1) + (1 - math.exp(-rate * x1)) * (wait + truncated(x2)) / q
    assert abs(mean - pieces * per_piece) < 4 * se, (mean, pieces * per_piece, se)
    # Daly's first-order bound with the restart counted on every piece lies above it.
    assert mean < pieces * math.exp(rate * restart) * _piece(tau, rate) + pieces * wait


def test_lost_work_is_bounded_by_the_checkpoint_interval() -> None:
    c = Checkpointing(interval_h=0.5, write_h=0.0, restart_h=0.0, wait_h=0.0, fallback_after=None)
    rng = np.random.default_rng(1)
    tries = [a for _ in range(2000) for a in run_job(0.0, 5.0, 1.0, c, rng)[:-1]]
    lost = np.array([a.lost_h for a in tries])
    assert len(lost) > 1000 and lost.max() <= 0.5 + 1e-12
    # Memoryless interruptions land uniformly-ish in a piece: about half a piece lost on average
    # (a truncated exponential on [0, 0.5] with rate 1 has mean 0.2459).
    want = 1 / 1.0 - 0.5 * math.exp(-0.5) / (1 - math.exp(-0.5))
    assert lost.mean() == pytest.approx(want, rel=0.05)


def _many(work: float, rate: float, c: Checkpointing, n: int, seed: int = 7):  # type: ignore[no-untyped-def]
    ones = np.ones(n)
    return run_jobs(
        np.zeros(n),
        work * ones,
        rate * ones,
        c.write_h * ones,
        0 * ones,
        0 * ones,
        c,
        np.random.default_rng(seed),
    )


@pytest.mark.parametrize("fallback", [None, 2])
def test_jobs_run_together_take_the_attempts_of_one_job_run_alone(fallback: int | None) -> None:
    """One job without capacity shortage draws the same numbers in the same order both ways."""
    c = Checkpointing(
        interval_h=0.7, write_h=0.05, restart_h=0.2, wait_h=0.3, fallback_after=fallback
    )
    for seed in range(30):
        alone = run_job(3.0, 6.3, 0.6, c, np.random.default_rng(seed))
        together = _many(6.3, 0.6, c, 1, seed)
        assert together.start_h.tolist() == pytest.approx([a.start_h - 3.0 for a in alone])
        assert together.end_h.tolist() == pytest.approx([a.end_h - 3.0 for a in alone])
        assert together.fallback.tolist() == [a.fallback for a in alone]
        assert together.lost_h.tolist() == pytest.approx([a.lost_h for a in alone])


def test_jobs_run_together_match_young_daly() -> None:
    tau, write, rate, pieces, n = 1.0, 0.1, 0.4, 6, 40000
    c = Checkpointing(interval_h=tau, write_h=write, restart_h=0.0, wait_h=0.0, fallback_after=None)
    tries = _many(pieces * tau, rate, c, n)
    end = np.zeros(n)
    end[tries.job] = tries.end_h  # the last attempt of each job is its last row
    want = (pieces - 1) * _piece(tau + write, rate) + _piece(tau, rate)
    assert abs(end.mean() - want) < 4 * end.std() / math.sqrt(n), (end.mean(), want)


def test_capacity_shortage_waits_its_mean_and_gives_up_past_the_limit() -> None:
    """Without interruptions each job launches once: it waits Exp(mean) with chance p, and one
    that would wait past fallback_wait_h waits exactly that long and runs uninterruptible."""
    n, p, mean, limit = 40000, 0.3, 2.0, 3.0
    c = Checkpointing(1.0, 0.0, 0.0, 0.0, None, fallback_wait_h=limit)
    ones = np.ones(n)
    tries = run_jobs(
        np.zeros(n), ones, 0 * ones, 0 * ones, p * ones, mean * ones, c, np.random.default_rng(3)
    )
    assert len(tries.job) == n
    gave_up = p * math.exp(-limit / mean)
    assert tries.fallback.mean() == pytest.approx(gave_up, abs=4 * math.sqrt(gave_up / n))
    # E[min(W, limit)] for W ~ Exp(mean): mean (1 - e^{-limit/mean}), with chance p.
    want = p * mean * (1 - math.exp(-limit / mean))
    assert tries.start_h.mean() == pytest.approx(want, rel=0.03)


def _spot(**over: Any) -> dict[str, Any]:
    return {"name": "spot", "kind": "spot", "instance_types": TYPES, **over}


def test_no_interruptions_cost_on_demand_times_the_price_ratio() -> None:
    from tco.pricing.book import PriceBook

    book = PriceBook(mode="snapshot")
    options = [
        {"name": f"od-{t}", "kind": "on_demand", "instance_type": t} for t in ["p4d.24xlarge"]
    ] + [
        _spot(
            name="spot-p4d",
            instance_types=["p4d.24xlarge"],
            interruptions_per_instance_month=0,
            capacity_short_probability=0,
            checkpoint_write_minutes=0,
        )
    ]
    od, spot = run(make_scenario(options=options), book=book).options
    # Spot is priced at the mean over the region's AZs by default.
    ratio = (
        book.spot("p4d.24xlarge", "us-east-1", "average").usd_per_hour
        / book.on_demand("p4d.24xlarge", "us-east-1").usd_per_hour
    )
    assert spot.total_cash_usd == pytest.approx(od.total_cash_usd * ratio, rel=1e-12)
    assert (
        spot.metrics.measures["interruptions"] == 0 and spot.metrics.measures["lost_gpu_hours"] == 0
    )
    assert np.array_equal(spot.runs.start_h, od.runs.start_h, equal_nan=True)


def test_interruptions_cost_more_and_are_reported() -> None:
    calm = _spot(name="calm", interruptions_per_instance_month=0)
    rough = _spot(name="rough", interruptions_per_instance_month=30.0)  # about one a day
    a, b = run(make_scenario(options=[calm, rough])).options
    assert b.metrics.measures["interruptions"] > 0 and b.metrics.measures["lost_gpu_hours"] > 0
    assert b.total_cash_usd > a.total_cash_usd
    assert b.metrics.busy_gpu_hours > a.metrics.busy_gpu_hours  # lost work was held too


def test_fallback_to_on_demand_after_interruptions() -> None:
    opt = _spot(
        instance_types=["p4d.24xlarge"],
        interruptions_per_instance_month=720.0,  # the top of the range: every job is hit
        fallback_to_on_demand_after=1,
    )
    o = run(make_scenario(options=[opt])).options[0]
    started = ~np.isnan(o.runs.start_h)
    assert o.runs.interruptions is not None
    hits = o.runs.interruptions[started]
    # At one an hour a job needing h hours escapes with probability e^-h: short jobs may finish.
    assert hits.max() == 1 and hits.mean() > 0.75
    fb = o.ledger.cash["spot_fallback_compute"].sum()
    assert fb > 10 * o.ledger.cash["spot_compute"].sum()


def test_advisor_bucket_sets_the_rate() -> None:
    o = run(make_scenario(options=[_spot(instance_types=["p4d.24xlarge"])])).options[0]
    (q,) = [q for q in o.quotes if q.unit == "per instance-month"]
    # p4d.24xlarge in us-east-1 sits in the ">20%" bucket (shared/data/aws README, section 6).
    assert q.value == pytest.approx(-math.log(1 - 0.25), abs=1e-4)
    assert ">20%" in q.detail and "guess" in q.detail
    assert defaults.spot_rate_per_month("<5%") == pytest.approx(-math.log(0.975))


def test_spot_input_errors() -> None:
    with pytest.raises(ScenarioError, match=r"options\[0\].*quota"):
        run(
            make_scenario(
                options=[
                    _spot(instance_types=None, instance_type="p4d.24xlarge", quota_instances=1)
                ]
            )
        )
    # p5.4xlarge has no spot price and no advisor data in the bundled snapshot.
    with pytest.raises(ScenarioError, match=r"options\[0\]\.instance_types\[0\].*spot price"):
        run(make_scenario(options=[_spot(instance_types=["p5.4xlarge"])]))


def test_snapshot_covers_every_region_of_the_research_file() -> None:
    assert len(snapshot.regions()) == 29
    # Published on-demand prices (shared/data/aws README, section 6 checks).
    e = snapshot.entry("p4d.24xlarge", "us-east-1")
    assert e is not None and e.on_demand_usd_per_hour == 21.957642
    e = snapshot.entry("p5.48xlarge", "us-east-1")
    assert e is not None and e.on_demand_usd_per_hour == 55.04
    e = snapshot.entry("p5en.48xlarge", "us-east-1")
    assert e is not None and e.on_demand_usd_per_hour == 63.296
    buckets = {
        t: snapshot.entry(t, "us-east-1").spot_interruption_bucket  # type: ignore[union-attr]
        for t in ["p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5en.48xlarge", "trn1.32xlarge"]
    }
    assert buckets == {
        "p4d.24xlarge": ">20%",
        "p4de.24xlarge": "5-10%",
        "p5.48xlarge": "5-10%",
        "p5en.48xlarge": "10-15%",
        "trn1.32xlarge": "<5%",
    }
    # A region only the multi-region file covers.
    e = snapshot.entry("g5.xlarge", "eu-west-1")
    assert e is not None and e.spec.gpu_model == "A10G" and e.spec.gpu_memory_gib == 22.35


def _held_h(job: dict[str, Any], **spot: Any) -> float:
    """Instance-hours one job holds on calm spot p4d (no interruption, no capacity wait)."""
    opt = _spot(
        instance_types=["p4d.24xlarge"],
        interruptions_per_instance_month=0,
        capacity_short_probability=0,
        **spot,
    )
    cls = {
        "name": "jobs",
        "arrivals_per_month": 1,
        "work": {"reference_gpu": "A100 SXM 40GB", "gpu_hours": 80, "distribution": "fixed"},
        **job,
    }
    from tco.simulator.engine.simulate import prepare, simulate_options

    sc = make_scenario(options=[opt], workload={"job_classes": [cls]})
    o = simulate_options(prepare(sc)).options[0]  # the play alone: no advice
    started = ~np.isnan(o.runs.start_h)
    return float(np.nanmean(o.runs.end_h[started] - o.runs.start_h[started]))


def test_an_8_gpu_data_parallel_job_writes_one_copy_of_its_state() -> None:
    """8 GPUs at 30 GB each: one checkpoint is one replica's 30 GB, not 240 GB (issue 42)."""
    free = _held_h({"gpus": 8, "memory_gb": 30}, checkpoint_write_minutes=0)
    held = _held_h({"gpus": 8, "memory_gb": 30})
    # a write after every hour of work but the last (free: the run without writes)
    writes = math.ceil(free / defaults.CHECKPOINT_INTERVAL_HOURS - 1e-9) - 1
    assert writes >= 10  # 80 A100-hours on 8 GPUs, slowed by the VM and the sync
    assert held - free == pytest.approx(writes * 30 / 1.0 / 3600, rel=1e-6)
    # the bandwidth of the store written to
    nvme = _held_h({"gpus": 8, "memory_gb": 30}, checkpoint_store="local_nvme")
    assert nvme - free == pytest.approx((held - free) / 2.0, rel=1e-6)


def test_a_model_job_checkpoints_its_weights_and_optimizer_once() -> None:
    from tco.simulator.training import memory
    from tco.simulator.training.work import ModelWork

    work = {"model": "llama-2-7b", "tokens": "2B"}
    run7b = ModelWork.model_validate(work).run()
    assert memory.checkpoint_gb(run7b) == pytest.approx(6.74e9 * 14 / 1e9)  # 2 + 12 bytes
    lora = ModelWork.model_validate(
        {**work, "method": "lora", "tokens": None, "dataset_tokens": "1B"}
    ).run()
    assert memory.checkpoint_gb(lora) == pytest.approx(6.74e9 * 0.006 * 14 / 1e9)
    free = _held_h({"gpus": 8, "work": work}, checkpoint_write_minutes=0)
    held = _held_h({"gpus": 8, "work": work})
    per_write = memory.checkpoint_gb(run7b) / 3600
    assert (held - free) / per_write == pytest.approx(round((held - free) / per_write), abs=1e-6)
