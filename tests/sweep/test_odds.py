"""The odds of an answer against theory: the probability that one option is the best choice
when the two options' costs have known distributions, the regret of a dominated option, spot at
the zone average, capacity waits from the stated distribution; and the odds the same on one
process, two and Dask."""

from __future__ import annotations

import math
import textwrap
from typing import Any

import numpy as np
import pytest
import yaml

from tco.pricing.book import PriceBook
from tco.simulator.cluster.interruptions import Checkpointing, capacity_wait
from tco.simulator.core import defaults
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.simulate import prepare
from tco.simulator.run import OddsRun, run, simulate
from tco.simulator.scenario.model import validate
from tco.simulator.sweep.known import inputs
from tco.simulator.sweep.odds import Futures, option_odds, robust_choice
from tco.simulator.sweep.run import run_sweep
from tests.conftest import cloud_plan, make_scenario, robust_name


def _custom(name: str, usd: float) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "on_demand",
        "instance": {
            "gpu": "A40",
            "gpus": 1,
            "usd_per_hour": usd,
            "price_source": "test",
            "price_as_of": "2025-11",
        },
    }


def _two_prices(a: dict[str, Any], b: dict[str, Any] | None = None) -> Any:
    """Two one-GPU instances of the same hardware at prices the futures draw: both play the same
    jobs in each future (common random numbers), so their cost ratio is their price ratio."""
    uncertain = [{"path": "options[0].instance.usd_per_hour", "distribution": a}]
    if b is not None:
        uncertain.append({"path": "options[1].instance.usd_per_hour", "distribution": b})
    return make_scenario(
        horizon_months=2,
        workload={
            "job_classes": [
                {
                    "name": "jobs",
                    "arrivals_per_month": 20,
                    "gpus": 1,
                    "work": {"reference_gpu": "A40", "gpu_hours": 5, "distribution": "fixed"},
                }
            ]
        },
        options=[_custom("a", 12.0), _custom("b", 20.0)],
        uncertain=uncertain,
    )


def test_probability_best_of_two_uniform_prices_matches_theory() -> None:
    # a ~ U(10, 14), b ~ U(12, 16): P(a > b) is the triangle (12,12)-(14,12)-(14,14) of the
    # 4 x 4 square, 2/16, so P(a is best) = 7/8.
    # The prices are drawn per job stream (an instance's price is played again: it is not a
    # money field), and on-demand prices scale both alike: 100 streams decide it.
    sc = _two_prices(
        {"kind": "uniform", "low": 10, "high": 14}, {"kind": "uniform", "low": 12, "high": 16}
    )
    book = PriceBook("snapshot")
    reps = run_sweep(prepare(sc, book), book, 400)
    f = Futures.of(reps)
    a, b = option_odds(f, "a"), option_odds(f, "b")
    se = math.sqrt(7 / 8 * 1 / 8 / f.k)
    assert f.k == 100 and abs(a.probability_best - 7 / 8) < 3 * se
    assert a.probability_best + b.probability_best == pytest.approx(1)


def test_regret_of_a_dominated_option_is_its_mean_gap() -> None:
    # b costs $20/h, a at most $14/h: b is never the best choice and its regret in each future
    # is (20 - a's price) x that future's instance-hours (a's cash over a's price).
    sc = _two_prices({"kind": "uniform", "low": 10, "high": 14})
    book = PriceBook("snapshot")
    reps = run_sweep(prepare(sc, book), book, 60)
    f = Futures.of(reps)
    a, b = option_odds(f, "a"), option_odds(f, "b")
    path = "options[0].instance.usd_per_hour"
    price = np.array([float(r.inputs.get(path, 12.0)) for r in reps])  # stream 0: as written
    hours = np.array([r.options[0].cash_usd for r in reps]) / price
    gap = (20.0 - price) * hours
    assert b.probability_best == 0
    assert b.regret_mean_usd == pytest.approx(gap.mean(), rel=1e-9)
    assert a.regret_mean_usd == 0 and a.probability_best == 1


def _spot(**over: Any) -> dict[str, Any]:
    return {
        "name": "spot",
        "kind": "spot",
        "instance_type": "p4d.24xlarge",
        "interruptions_per_instance_month": 0,
        "capacity_short_probability": 0,
        "capacity_wait_hours": 0,
        "checkpoint_write_minutes": 0,
        **over,
    }


def test_capacity_waits_reproduce_the_stated_mean() -> None:
    short, wait = defaults.spot_capacity(8)
    c = Checkpointing(
        interval_h=1,
        write_h=0,
        restart_h=0,
        wait_h=0,
        fallback_after=None,
        short_p=short,
        short_wait_h=wait,
    )
    rng = np.random.default_rng(7)
    draws = np.array([capacity_wait(c, rng)[0] for _ in range(20_000)])
    mean = short * wait
    sd = math.sqrt(short * 2 * wait**2 - mean**2)  # E[W^2] = p 2 m^2 for an exponential m
    assert abs(draws.mean() - mean) < 3 * sd / math.sqrt(len(draws))


def test_spot_capacity_waits_are_the_jobs_waits() -> None:
    # 8-GPU jobs on p4d with nothing interrupting: each start waits for capacity only.
    sc = make_scenario(
        workload={
            "job_classes": [
                {
                    "name": "big",
                    "arrivals_per_month": 300,
                    "gpus": 8,
                    "work": {"reference_gpu": "A40", "gpu_hours": 40, "distribution": "fixed"},
                }
            ]
        },
        options=[_spot(capacity_short_probability=None, capacity_wait_hours=None)],
    )
    o = run(sc).options[0]
    plan = prepare(sc, PriceBook("snapshot")).plans[0]
    jobs = prepare(sc, PriceBook("snapshot")).jobs
    waits = o.runs.start_h - jobs.arrival_h - cloud_plan(plan).delay_h
    waits = waits[~np.isnan(waits)]
    short, wait = defaults.spot_capacity(8)
    mean, sd = short * wait, math.sqrt(short * 2 * wait**2 - (short * wait) ** 2)
    assert len(waits) > 3000
    assert abs(waits.mean() - mean) < 3 * sd / math.sqrt(len(waits))


def test_an_interruption_quantile_sits_on_the_bucket_bounds() -> None:
    low, high = defaults.SPOT_BUCKET_RANGE[">20%"]
    assert defaults.spot_rate_per_month(">20%", 0.0) == pytest.approx(-math.log(1 - low))
    assert defaults.spot_rate_per_month(">20%", 1.0) == pytest.approx(-math.log(1 - high))
    assert defaults.spot_rate_per_month(">20%") == pytest.approx(-math.log(1 - 0.25))


def test_known_inputs_follow_the_options_and_can_be_left_out() -> None:
    od = {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"}
    own = {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1}
    book = PriceBook("snapshot")
    paths = [i.path for i in inputs(prepare(make_scenario(options=[own, _spot(), od]), book))]
    seller = ["market.resale_received_share", "market.months_to_sell"]
    assert paths == ["market.used_market_quantile", *seller, "prices.spot", "prices.on_demand"]
    free = _spot(interruptions_per_instance_month=None, capacity_short_probability=None)
    paths = [i.path for i in inputs(prepare(make_scenario(options=[free]), book))]
    assert "market.spot_interruption_quantile" in paths and "market.spot_scarcity" in paths
    off = make_scenario(
        options=[own, _spot(), od], odds={"without": ["prices.spot", "used_market", *seller]}
    )
    assert [i.path for i in inputs(prepare(off, book))] == ["prices.on_demand"]
    none = make_scenario(options=[own, _spot(), od], odds={"without": "all"})
    assert inputs(prepare(none, book)) == []
    with pytest.raises(ScenarioError, match=r"without: unknown 'prices\.spto'; valid: all"):
        make_scenario(odds={"without": ["prices.spto"]})


def test_prices_spot_scales_spot_alone() -> None:
    from tco.simulator.costs import ledger

    cash = {"spot_compute": np.ones(2), "cloud_compute": np.ones(2), "capex": np.ones(2)}
    assert ledger.scaled(cash, {"spot prices": 2.0}).tolist() == [4.0, 4.0]
    assert ledger.scaled(cash, {"on_demand prices": 3.0, "cloud prices": 2.0}).tolist() == [
        9.0,
        9.0,
    ]


LAB_SMALL = textwrap.dedent(
    """
    name: odds
    start: 2027-01
    horizon_months: 6
    seed: 5
    search: none
    workload:
      job_classes:
        - {name: ft, arrivals_per_month: 60, gpus: 1, memory_gb: 16,
           work: {reference_gpu: V100 SXM2 32GB, gpu_hours: 10, distribution: lognormal, sigma: 1}}
    uncertain:
      - path: workload.job_classes[0].arrivals_per_month
        distribution: {kind: triangular, low: 40, mode: 60, high: 90}
    options:
      - {name: own, kind: owned, server: 8x A40 NVLink server, servers: 1, lead_time_months: 0}
      - {name: od, kind: on_demand, instance_types: [g5.xlarge, g6.xlarge]}
      - {name: spot, kind: spot, instance_types: [g5.xlarge, g6.xlarge]}
    """
)


def _odds(workers: int, engine: str = "local", scheduler: str | None = None) -> Any:
    book = PriceBook("snapshot")
    sc = validate(yaml.safe_load(LAB_SMALL), "odds.yaml", book)
    how = OddsRun(futures=12, workers=workers, engine=engine, scheduler=scheduler)
    return simulate(prepare(sc, book, "odds.yaml"), book=book, odds=how).recommendation.odds


def test_the_odds_are_the_same_on_one_process_two_and_dask() -> None:
    from distributed import LocalCluster

    from tco.simulator.sweep.dask import DASHBOARD

    one = _odds(1)
    assert one is not None and one.futures == 12
    assert one.chosen.option == "spot" and 0 <= one.chosen.probability_best <= 1
    assert {p for p, known, _ in one.inputs if known} >= {"prices.spot", "prices.on_demand"}
    assert _odds(2) == one
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=DASHBOARD
    ) as cluster:
        assert _odds(1, "dask", cluster.scheduler_address) == one


def test_the_whole_answer_is_the_same_on_one_worker_and_six() -> None:
    """The race adds streams in rounds of its own size, never the workers' count: until 0.21.0
    six workers raced in rounds of six, and the race's figures (the plays, the streams an option
    was dropped after, its gap) differed from one worker's on this scenario."""
    import json

    from tco.reports.summary import to_summary

    def whole(workers: int) -> str:
        book = PriceBook("snapshot")
        sc = validate(yaml.safe_load(LAB_SMALL), "odds.yaml", book)
        how = OddsRun(futures=100, workers=workers)
        r = simulate(prepare(sc, book, "odds.yaml"), book=book, odds=how)
        return json.dumps(to_summary(r), sort_keys=True, default=str)

    assert whole(6) == whole(1)


def test_a_bad_tco_odds_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TCO_ODDS", "many")
    with pytest.raises(ScenarioError, match="TCO_ODDS='many': give a whole number"):
        run(make_scenario())


def test_tco_simulate_leads_with_the_odds_and_writes_them(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    import jsonschema

    from tco.cli import main
    from tco.reports import summary

    f = tmp_path / "odds.yaml"
    f.write_text(LAB_SMALL)
    out = tmp_path / "r"
    main(
        ["simulate", str(f), "--odds", "8", "--workers", "2", "--format", "json", "--out", str(out)]
    )
    text = capsys.readouterr().out
    head = text[: text.index("\noption ")]  # before the comparison table
    assert head.startswith("Recommended: spot") and "\nHow sure: meets the level in" in head
    doc = json.loads((out / "summary.json").read_text())
    jsonschema.validate(doc, summary.schema())
    odds = doc["recommendation"]["odds"]
    assert odds["futures"] == 8 and odds["option"] == "spot"
    assert (odds["streams"], odds["money_draws"]) == (2, 4) and odds["confidence"] == 0.9
    assert [p["confidence"] for p in odds["frontier"]] == [0.5, 0.8, 0.9, 0.95, 0.99]
    assert odds["search"]["plays"] >= 2 and odds["search"]["stopped"]
    assert odds["cash_p10_usd"] <= odds["cash_p50_usd"] <= odds["cash_p90_usd"]
    assert any(i["path"] == "prices.spot" and i["known"] for i in odds["inputs"])


def _futures(rows: list[tuple[float, bool, float, bool]], late: float = 0.0) -> Futures:
    """Two options over one future per job stream (one money draw): (cash, meets) of each."""
    cash = np.array([[a, b] for a, _, b, _ in rows])
    meets = np.array([[ma, mb] for _, ma, _, mb in rows])
    late_work = np.where(meets, 0.0, late)
    delivered = np.full(cash.shape, 100.0)
    return Futures.build(["mix", "plan"], len(rows), 1, cash, meets, late_work, delivered)


def test_the_answer_meets_the_level_in_enough_futures_before_it_is_cheap() -> None:
    # The mix is cheaper but meets the level in 30 of 100 streams: the plan is the answer at
    # 90 %, and at 30 % the mix is.
    edge = _futures([(1.0, i < 30, 2.0, True) for i in range(100)])
    assert robust_name(edge, 0.9) == "plan"
    assert robust_name(edge, 0.3) == "mix"
    assert robust_choice(_futures([(1.0, False, 2.0, False)] * 4), 0.5) is None


def test_regret_with_a_miss_is_its_late_work_at_the_best_choices_rate() -> None:
    # Where the mix misses (70 streams), it left 10 reference GPU-hours late; the plan, the best
    # choice there, costs 2.0 for 100 delivered GPU-hours: the late work costs 10 x 2.0 / 100.
    f = _futures([(1.0, i < 30, 2.0, True) for i in range(100)], late=10.0)
    mix = option_odds(f, "mix")
    per_miss = max(0.0, 1.0 + 10.0 * 2.0 / 100.0 - 2.0)  # cheap still: its regret there is 0
    assert mix.regret_mean_usd == pytest.approx(0.7 * per_miss)
    f = _futures([(1.9, i < 30, 2.0, True) for i in range(100)], late=50.0)
    mix = option_odds(f, "mix")
    assert mix.regret_mean_usd == pytest.approx(0.7 * (1.9 + 50.0 * 2.0 / 100.0 - 2.0))
    assert mix.probability_meets_level == 0.3 and mix.probability_best == 0.3
    plan = option_odds(f, "plan")  # best where the mix misses; 0.1 dearer where it meets
    assert plan.regret_mean_usd == pytest.approx(0.3 * 0.1)


def test_a_drawn_gpu_speed_reaches_the_run_and_unknown_gpus_are_refused() -> None:
    g5 = {"name": "g5", "kind": "on_demand", "instance_type": "g5.xlarge"}
    base = run(make_scenario(options=[g5])).options[0]
    fast = run(make_scenario(options=[g5], market={"speed_scale": {"A10G": 2.0}})).options[0]
    done = ~np.isnan(base.runs.end_h)
    np.testing.assert_allclose(fast.runs.run_h[done], base.runs.run_h[done] / 2)
    assert any("x 2 (market: speed_scale)" in q.detail for q in fast.quotes)
    book = PriceBook("snapshot")
    drawn = [i for i in inputs(prepare(make_scenario(options=[g5]), book)) if i.known == "speed"]
    assert [i.path for i in drawn] == ["speed.A10G"]  # the work is stated on the A40: kept out
    wrong = {"path": "speed.A10", "distribution": {"kind": "uniform", "low": 0.8, "high": 1.2}}
    with pytest.raises(ScenarioError, match=r"no GPU 'A10' in the catalog"):
        make_scenario(uncertain=[wrong])
