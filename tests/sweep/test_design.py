"""The futures' nested design (issue 38): Latin hypercube draws against their definition and
against plain draws, each distribution's quantile against scipy's, the standard error of a
grand mean against the spread of many designs, which inputs move money only, and a future
priced from its stream's plays equal to the same future played from scratch."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy import stats

from tco.pricing.book import PriceBook
from tco.simulator.costs import ledger
from tco.simulator.engine.simulate import prepare, revised, simulate_options
from tco.simulator.scenario.uncertainty import Uncertain, price_groups
from tco.simulator.sweep.design import MONEY_DRAWS, design, latin_hypercube, shape
from tco.simulator.sweep.known import Input, moves_money_only
from tco.simulator.sweep.odds import design_se
from tco.simulator.sweep.plays import Bench, Candidate, StreamModel, apply_draws
from tests.conftest import make_scenario

DISTS: list[tuple[dict[str, Any], Any]] = [
    ({"kind": "uniform", "low": 2, "high": 5}, stats.uniform(2, 3)),
    ({"kind": "triangular", "low": 1, "mode": 2, "high": 6}, stats.triang(0.2, 1, 5)),
    (
        {"kind": "normal", "mean": 1, "sd": 0.5, "low": 0.5, "high": 2},
        stats.truncnorm((0.5 - 1) / 0.5, (2 - 1) / 0.5, 1, 0.5),
    ),
    ({"kind": "lognormal", "median": 3, "sigma": 0.4}, stats.lognorm(0.4, scale=3)),
]


def _input(dist: dict[str, Any], path: str = "prices.cloud") -> Input:
    return Input(Uncertain.model_validate({"path": path, "distribution": dist}), "test")


@pytest.mark.parametrize(("dist", "ref"), DISTS)
def test_each_quantile_is_scipys(dist: dict[str, Any], ref: Any) -> None:
    d = _input(dist).uncertain.distribution
    for u in (0.01, 0.2, 0.5, 0.77, 0.99):
        assert d.quantile(u) == pytest.approx(float(ref.ppf(u)), rel=1e-6)


def test_a_choice_quantile_follows_its_weights() -> None:
    d = _input({"kind": "choice", "values": [2, 3, 4], "weights": [1, 1, 2]}).uncertain
    q = d.distribution.quantile
    assert [q(u) for u in (0.1, 0.26, 0.49, 0.51, 0.99)] == [2, 3, 3, 4, 4]


def test_a_latin_hypercube_draws_every_stratum_once() -> None:
    paths = ("prices.cloud", "prices.spot", "prices.electricity", "prices.server")
    found = [_input(d, path) for (d, _), path in zip(DISTS, paths, strict=True)]
    n = 37
    draws = latin_hypercube(found, n, np.random.default_rng(3))
    for (dist, ref), i in zip(DISTS, found, strict=True):
        u = np.sort(ref.cdf([d[i.path] for d in draws]))
        assert np.all(np.floor(u * n) == np.arange(n)), dist


def test_a_latin_hypercube_mean_varies_less_than_plain_draws() -> None:
    i = _input({"kind": "lognormal", "median": 3, "sigma": 0.6})
    dist = i.uncertain.distribution
    rng = np.random.default_rng(11)
    lhs = [float(np.mean([d[i.path] for d in latin_hypercube([i], 20, rng)])) for _ in range(300)]
    plain = [float(np.mean([dist.draw(rng) for _ in range(20)])) for _ in range(300)]
    assert abs(np.mean(lhs) - dist.expected()) < 3 * np.std(lhs) / math.sqrt(300)
    assert np.var(lhs) < 0.25 * np.var(plain)  # stratified: a large share of the variance goes


def test_the_shape_of_a_design() -> None:
    assert shape(0, True) == (1, 1)
    assert shape(100, True) == (100 // MONEY_DRAWS, MONEY_DRAWS)
    assert shape(100, False) == (100, 1)
    assert shape(10, True) == (3, MONEY_DRAWS)  # at least the futures asked for
    assert shape(2, True) == (1, 2)


def test_design_se_is_the_spread_of_the_grand_mean() -> None:
    # y_sm = a_s + e_sm with sd 3 and 2 (M money draws nested in each of K streams): the grand
    # mean has variance 9/K + 4/(KM); the formula's mean square over many layouts estimates it.
    rng = np.random.default_rng(5)
    k, m = 12, 4
    means, ses = [], []
    for _ in range(2000):
        y = rng.normal(0, 3, (k, 1)) + rng.normal(0, 2, (k, m))
        means.append(y.mean())
        ses.append(design_se(y))
    truth = math.sqrt(9 / k + 4 / (k * m))
    assert np.std(means) == pytest.approx(truth, rel=0.05)
    assert np.sqrt(np.mean(np.square(ses))) == pytest.approx(truth, rel=0.05)


def _owned_and_cloud(**extra: Any) -> Any:
    own = {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1}
    od = {"name": "od", "kind": "on_demand", "instance_type": "g5.xlarge"}
    sp = {
        "name": "sp",
        "kind": "savings_plan",
        "instance_type": "g5.xlarge",
        "commitment_usd_per_hour": 0.5,
        "rate_usd_per_hour": 0.7,
        "rate_source": "test",
    }
    return make_scenario(options=[own, od, sp], **extra)


def test_which_inputs_move_money_only() -> None:
    options = _owned_and_cloud().options
    money = (
        "prices.cloud",
        "discount_rate",
        "options[0].resale_scale",
        "options[0].power.usd_per_kwh",
        "options[2].commitment_usd_per_hour",
    )
    play = (
        "options[0].servers",
        "options[0].lead_time_months",
        "options[1].instance_type",
        "options[*].resale_scale",  # the cloud options have none: played again
        "workload.job_classes[0].arrivals_per_month",
        "speed.A40",
    )
    assert all(moves_money_only(p, options) for p in money)
    assert not any(moves_money_only(p, options) for p in play)


def test_stream_zero_is_the_base_run_and_designs_repeat() -> None:
    sc = _owned_and_cloud(
        uncertain=[
            {
                "path": "workload.job_classes[0].arrivals_per_month",
                "distribution": {"kind": "uniform", "low": 100, "high": 200},
            },
            {"path": "prices.cloud", "distribution": {"kind": "uniform", "low": 0.8, "high": 1.2}},
        ]
    )
    book = PriceBook("snapshot")
    prepared = prepare(sc, book)
    a, b = design(prepared, 12), design(prepared, 12)
    assert a == b and (a.k, a.m) == (3, MONEY_DRAWS)
    assert a.streams[0].seed == sc.seed and a.streams[0].draws == {}
    assert all("workload.job_classes[0].arrivals_per_month" in s.draws for s in a.streams[1:])
    # Money draws, each future its own: the price group, and tco's own used market (what the
    # servers fetch, what a seller receives of it and after how long).
    draws = [m for row in a.money for m in row]
    assert len({m.draws["prices.cloud"] for m in draws}) == 12
    market = {"used_market_quantile", "resale_received_share", "months_to_sell"}
    assert all(set(m.paths) == {f"market.{p}" for p in market} for m in draws)
    none = design(prepared, 0)
    assert (none.k, none.m, none.drawn) == (1, 1, False) and none.money[0][0].draws == {}


def test_a_future_priced_from_its_stream_equals_it_played_from_scratch() -> None:
    # A money draw with a scenario path (the owned servers' resale) and a price group: priced
    # on the stream's runs, the same cash to the cent as the scenario with both set, played.
    resale = {"kind": "uniform", "low": 0.2, "high": 1.0}
    sc = _owned_and_cloud(
        uncertain=[
            {"path": "options[0].resale_scale", "distribution": resale},
            {"path": "prices.cloud", "distribution": {"kind": "uniform", "low": 0.7, "high": 1.3}},
            {
                "path": "workload.job_classes[0].arrivals_per_month",
                "distribution": {"kind": "uniform", "low": 100, "high": 200},
            },
        ]
    )
    book = PriceBook("snapshot").frozen()
    prepared = prepare(sc, book)
    plan = design(prepared, 8)
    bench = Bench(prepared, book, plan)
    s = 1
    stream = plan.streams[s]
    model = StreamModel(prepared, book, plan, s)
    for m, money in enumerate(plan.money[s]):

        def drawn(data: dict[str, Any], money: Any = money) -> None:
            data["seed"] = stream.seed
            apply_draws(data, {**stream.draws, **money.paths})

        scratch = simulate_options(revised(prepared, book, drawn))
        words = price_groups()
        factors = {words[w]: f for w, f in money.multipliers.items()}
        for i, o in enumerate(scratch.options):
            outcome = bench.model(s).play(Candidate(o.name, i))
            assert model.play(Candidate(o.name, i)).cash == outcome.cash
            expected = float(ledger.scaled(o.ledger.cash, factors).sum())
            assert outcome.cash[m] == pytest.approx(expected, abs=0.01), (o.name, m)
