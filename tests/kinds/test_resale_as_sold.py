"""Money back as a seller receives it (issue 50): the used market's price less a broker's share,
after the months a sale takes, the network resold at its own rate; the odds draw the share and
the months; a curve above the price is refused; an answer bought to be resold says so first.
References: SpotWire's valuator (a broker pays 0.85 of the market value over 90 days; an
auction 0.65 in 30 days) and one dealer's price for used switches ($600 for a ~$4,000 switch
after 2-3 years)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tco.pricing.used_market import used_market
from tco.simulator.core.errors import ScenarioError
from tco.simulator.kinds import registry
from tco.simulator.run import prepare, simulate
from tests.conftest import make_scenario

PRICE = 250_000.0  # an HGX H100 server, as the scenario says (no order-month factor)
NETWORK = 36_000.0  # a 64-port 400G InfiniBand switch (fs.com, shared costs.md 1a)


def _owned(**over: Any) -> dict[str, Any]:
    return {
        "name": "own",
        "kind": "owned",
        "server": "HGX H100 8-GPU",
        "servers": 1,
        "price_usd": PRICE,
        "failures": None,
        **over,
    }


def _run(months: int, **over: Any) -> Any:
    sc = make_scenario(horizon_months=months, options=[_owned(**over)])
    return simulate(prepare(sc), advise=False)


def test_a_seller_receives_a_broker_s_share_after_the_months_a_sale_takes() -> None:
    r = _run(12, network_usd=NETWORK, installation_usd_per_server=5_000)
    own = r.option("own")
    # By hand: held 12 months, then 3 months of selling, at Hopper's fitted rate; a broker
    # pays 0.85 of that; the switch at a dealer's exp(-0.76 a year); the installation nothing.
    k = used_market("H100 SXM").per_year
    years = (12 + 3) / 12
    servers = PRICE * math.exp(-k * years) * 0.85
    switch = NETWORK * math.exp(-0.76 * years)
    assert -own.ledger.cash["resale"][-1] == pytest.approx(servers + switch, rel=1e-12)
    assert own.ledger.cash["resale"][:-1].sum() == 0.0
    quotes = {q.item: q for q in own.quotes}
    share = quotes["resale: share of the used market's price a seller receives"]
    assert share.value == 0.85 and "SpotWire" in share.detail
    assert quotes["resale: months a sale takes (the servers keep losing value)"].value == 3.0


def test_a_market_set_by_the_scenario_sells_on_its_terms() -> None:
    sc = make_scenario(
        horizon_months=12,
        options=[_owned()],
        market={"resale_received_share": 0.65, "months_to_sell": 1},
    )
    own = simulate(prepare(sc), advise=False).option("own")
    k = used_market("H100 SXM").per_year
    assert -own.ledger.cash["resale"][-1] == pytest.approx(
        PRICE * math.exp(-k * 13 / 12) * 0.65, rel=1e-12
    )  # SpotWire's auction channel: 0.65 in 30 days


def test_the_odds_draw_what_a_seller_receives_and_how_long_it_takes() -> None:
    prepared = prepare(make_scenario(horizon_months=12, options=[_owned()]))
    plan = prepared.plans[0]
    drawn = {k.name: k for k in registry.of(plan.option).uncertainties(plan, "options[0]")}
    share, months = drawn["market.resale_received_share"], drawn["market.months_to_sell"]
    assert (share.low, share.mode, share.high) == (0.65, 0.85, 0.95)
    assert (months.low, months.mode, months.high) == (1.0, 3.0, 6.0)
    assert share.money and months.money  # priced again on the same plays


def test_a_resale_curve_above_the_price_is_refused() -> None:
    curve = {"share_by_year": [2.0, 2.0], "source": "a typo"}
    with pytest.raises(ScenarioError) as e:
        prepare(make_scenario(options=[_owned(resale_value=curve)]))
    msg = str(e.value)
    assert "share_by_year" in msg and "1" in msg and "\n" not in msg


def test_an_answer_bought_to_be_resold_says_so_first() -> None:
    """Two HGX A100 servers for a 6-month project beat p4d on demand only by their resale: the
    first lines say what they cost, what comes back and that the lead rests on it."""
    from tco.reports.lead import lead

    jobs = {
        "job_classes": [
            {
                "name": "train",
                "arrivals_per_month": 80,
                "gpus": 8,
                "work": {"reference_gpu": "A100 SXM 80GB", "gpu_hours": 80},
            }
        ]
    }
    own = {
        "name": "own",
        "kind": "owned",
        "server": "HGX A100 8x80GB",
        "servers": 2,
        "failures": None,
    }
    rent = {"name": "p4d", "kind": "on_demand", "instance_type": "p4d.24xlarge"}
    sc = make_scenario(horizon_months=6, after_horizon="ends", workload=jobs, options=[own, rent])
    r = simulate(prepare(sc), advise=False)
    assert r.recommendation.option == "own"
    o = r.option("own")
    bought, back = float(o.ledger.cash["capex"].sum()), -float(o.ledger.cash["resale"].sum())
    k = used_market("A100 SXM 80GB").per_year
    assert back == pytest.approx(bought * math.exp(-k * (6 + 3) / 12) * 0.85, rel=1e-12)
    gap = r.option("p4d").total_cash_usd - o.total_cash_usd
    assert 0 < gap < back
    first = lead(r)
    said = next(line for line in first if line.startswith("It buys servers for"))
    assert f"${bought:,.0f}" in said and f"${back:,.0f} back" in said
    assert f"its ${gap:,.0f} lead over p4d rests on that resale" in said
    assert first.index(said) < next(i for i, x in enumerate(first) if x.startswith("Runner-up"))
