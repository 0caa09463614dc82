"""A delivery as a distribution (issue 56, item 2): a drawn lead time's cumulative probability
in closed form, said in the answer, and the odds' hybrid covering each future's own wait for
its servers with the cloud."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy import stats

from tco.pricing.book import PriceBook
from tco.reports import answer
from tco.simulator.engine.simulate import prepare
from tco.simulator.kinds import registry
from tco.simulator.kinds.hybrid.model import HybridPlan, queueing
from tco.simulator.run import simulate
from tco.simulator.scenario.distributions import Choice, LogNormal, Normal, Triangular, Uniform
from tco.simulator.scenario.model import validate
from tco.simulator.sweep.design import design
from tco.simulator.sweep.plays import StreamModel
from tests.conftest import make_scenario
from tests.kinds.test_hybrid import CLASSES, CLOUD, OWN, _hybrid

LEAD = {"kind": "triangular", "low": 2, "mode": 6, "high": 12}


def test_triangular_2_6_12_is_in_service_by_month_6_with_probability_0_4() -> None:
    # Closed form: F(c) = (c - a)^2 / ((b - a)(c - a)) = 16 / 40 at the mode.
    assert Triangular(kind="triangular", low=2, mode=6, high=12).cdf(6) == pytest.approx(0.4)


@pytest.mark.parametrize("x", [-1.0, 0.5, 2.0, 3.3, 6.0, 9.9, 12.0, 40.0])
def test_each_distribution_s_cdf_is_scipy_s(x: float) -> None:
    tri = Triangular(kind="triangular", low=2, mode=6, high=12)
    assert tri.cdf(x) == pytest.approx(stats.triang(0.4, loc=2, scale=10).cdf(x), abs=1e-12)
    uni = Uniform(kind="uniform", low=1, high=9)
    assert uni.cdf(x) == pytest.approx(stats.uniform(1, 8).cdf(x), abs=1e-12)
    logn = LogNormal(kind="lognormal", median=4, sigma=0.5)
    assert logn.cdf(x) == pytest.approx(stats.lognorm(0.5, scale=4).cdf(x), abs=1e-12)
    norm = Normal(kind="normal", mean=5, sd=3, low=1, high=10)
    truncated = stats.truncnorm((1 - 5) / 3, (10 - 5) / 3, loc=5, scale=3)
    assert norm.cdf(x) == pytest.approx(truncated.cdf(x), abs=1e-12)
    pick = Choice(kind="choice", values=[2, 6, 12], weights=[1, 2, 1])
    assert pick.cdf(x) == pytest.approx((x >= 2) * 0.25 + (x >= 6) * 0.5 + (x >= 12) * 0.25)


def _scenario(lead: float = 6.0, **over: Any) -> Any:
    data = make_scenario(
        workload={"job_classes": CLASSES},
        options=[{**OWN, "lead_time_months": lead}, CLOUD, _hybrid()],
        horizon_months=18,
        **over,
    ).model_dump()
    data["uncertain"] = [{"path": "options[0].lead_time_months", "distribution": LEAD}]
    data["odds"] = {"futures": 16, "without": "all"}
    return validate(data, "<test>")


def test_the_answer_says_how_likely_the_delivery_it_takes_is() -> None:
    sc = _scenario()
    own, hybrid = sc.options[0], sc.options[2]
    drawn = tuple(sc.uncertain)
    said = registry.of(own).caveats(own, tuple(sc.options), (), drawn)
    assert said == [
        "own's servers are taken to be in service 6 months after each order; the odds draw the"
        " lead time (triangular 2, 6, 12 (low, mode, high) months, the scenario's): in service"
        f" within 6 months in 40% of futures, within {12 - math.sqrt(0.1 * 10 * 6):.1f} months"
        " in 90%."
    ]
    # A mix of the servers and a cloud says it of its servers too.
    assert said[0] in registry.of(hybrid).caveats(hybrid, tuple(sc.options), (), drawn)
    assert registry.of(own).caveats(own, tuple(sc.options), (), ()) == []


def test_each_future_s_cloud_covers_its_own_wait_for_the_servers() -> None:
    sc = _scenario()
    book = PriceBook()
    base = prepare(sc, book)
    plan = design(base, 16)
    leads: list[float] = []
    for s, stream in enumerate(plan.streams):
        model = StreamModel(base, book, plan, s)
        lead = float(stream.draws.get("options[0].lead_time_months", 6.0))
        leads.append(lead)
        hybrid = model.model.plans[2]
        assert isinstance(hybrid, HybridPlan)
        runs = registry.of(hybrid.option).play(
            model.model.jobs, hybrid, model.model.horizon_h, np.random.default_rng(0)
        )
        assert runs.parts is not None
        own, burst = (runs.parts[f] for f in ("owned", "burst"))
        in_service = queueing(hybrid.owned_plan.option).in_service_from_h(hybrid.owned_plan)
        started = own.start_h[~np.isnan(own.start_h)]
        assert started.min() >= in_service - 1e-9  # no job on servers not yet delivered
        early = burst.start_h[~np.isnan(burst.start_h)]
        # The cloud ran the work of the months before this future's delivery.
        assert (early < in_service).sum() > 0
        month_h = model.model.edges[1] - model.model.edges[0]
        assert in_service == pytest.approx(lead * month_h, rel=0.05)
    assert min(leads[1:]) < 6 < max(leads[1:])  # futures drew early and late deliveries


def test_the_answer_carries_the_delivery_line_once_when_servers_are_recommended() -> None:
    # The answer takes a 2-month delivery the scenario's own range never gives: it says so.
    r = simulate(prepare(_scenario(lead=2.0, search="none")), advise=False)
    assert (r.recommendation.option, r.cheapest().name) == ("hybrid", "own")
    lines = [x for x in answer.caveats(r) if "in service" in x]
    assert len(lines) == 1 and "in service within 2 months in 0% of futures" in lines[0]
