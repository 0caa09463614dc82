"""A site that runs out of power (issue 56, item 1): servers beyond what the site powers are not
bought, the search sizes clusters within it, and the answer says what binds, checked by hand."""

from __future__ import annotations

from typing import Any

import pytest

from tco.reports import answer
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.simulate import prepare
from tco.simulator.run import simulate
from tests.conftest import make_scenario

SITE = {"it_kw": 500, "source": "the facilities lead (test)"}
OWN = {
    "name": "own",
    "kind": "owned",
    "server": "HGX H100 8-GPU",
    "max_kw": 40,  # so that the arithmetic is round: 500 kW // 40 kW = 12 servers, 480 kW
    "servers": 8,
    "lead_time_months": 1,
}
P5 = {"name": "p5", "kind": "on_demand", "instance_type": "p5.48xlarge"}
# About 120 H100s busy on average: 110 jobs a month of 8 GPUs x 100 h.
WORK = {
    "job_classes": [
        {
            "name": "runs",
            "arrivals_per_month": 110,
            "gpus": 8,
            "work": {"reference_gpu": "H100 SXM", "gpu_hours": 800, "distribution": "exponential"},
        }
    ]
}


def _scenario(**over: Any) -> Any:
    return make_scenario(
        workload=WORK,
        options=[OWN, P5],
        horizon_months=24,
        search="portfolio",
        odds={"futures": 0},
        **over,
    )


def test_a_listed_cluster_beyond_the_site_s_power_is_refused_in_one_line() -> None:
    big = {**OWN, "servers": 13}  # 13 x 40 kW = 520 kW > 500 kW
    with pytest.raises(ScenarioError, match=r"draw 520.0 kW .* at most 12 such servers") as e:
        prepare(make_scenario(workload=WORK, options=[big, P5], site=SITE))
    assert "options[0]" in str(e.value) and "\n" not in str(e.value)
    prepare(make_scenario(workload=WORK, options=[{**OWN, "servers": 12}, P5], site=SITE))


def test_the_site_s_power_makes_the_search_buy_fewer_servers_and_rent_the_rest() -> None:
    free = simulate(prepare(_scenario()))
    capped = simulate(prepare(_scenario(site=SITE)))
    unbounded = free.recommendation.portfolio
    bounded = capped.recommendation.portfolio
    assert unbounded is not None and bounded is not None

    def servers(p: Any) -> int:
        return int(next(x.knobs["servers"] for x in p.parts if x.role == "base"))

    assert servers(unbounded) > 12  # with power to spare the search buys more than fits
    assert servers(bounded) == 12  # 500 kW // 40 kW: the most the site powers
    assert bounded.meets  # the cloud takes what 12 servers cannot
    assert bounded.cash_usd > unbounded.cash_usd  # the missing power costs money
    said = [x for x in answer.caveats(capped) if "power binds" in x]
    assert said and "power binds: 480 kW of 500 kW" in said[0]
    assert not [x for x in answer.caveats(free) if "power binds" in x]
    # What more power would save: the search again without the site, on the same jobs, finds
    # what the free run found.
    more = bounded.more_power
    assert more is not None and free.recommendation.portfolio is not None
    assert more.cash_usd == pytest.approx(unbounded.cash_usd)
    assert more.held_cash_usd == pytest.approx(bounded.cash_usd)
    worth = [x for x in answer.caveats(capped) if "power to spare" in x]
    assert worth and f"{servers(unbounded)} x HGX H100 8-GPU" in worth[0]
    assert free.recommendation.portfolio.more_power is None
    # What that power costs to build: the kW beyond the site's, by hand, at Cushman &
    # Wakefield's 2025 average of $11.7 M per MW (the site states no figure of its own).
    beyond = servers(unbounded) * 40 - 500
    assert more.more_kw == pytest.approx(beyond)
    assert more.build_usd == pytest.approx(beyond * 11_700)
    assert more.net_usd == pytest.approx(more.held_cash_usd - more.cash_usd - beyond * 11_700)
    assert f"draw {beyond:,} kW beyond the site's" in worth[0]
    assert "Cushman & Wakefield" in worth[0] and "a national average" in worth[0]


def test_the_site_s_own_build_cost_and_months_price_more_power() -> None:
    site = {**SITE, "build_usd_per_kw": 2_000, "build_months": 18}
    mix = simulate(prepare(_scenario(site=site))).recommendation.portfolio
    more = None if mix is None else mix.more_power
    assert more is not None and more.build_usd == pytest.approx(more.more_kw * 2_000)
    assert more.build_months == 18 and "site.build_usd_per_kw" in more.build_source


def test_the_site_s_cooling_sets_the_pue_its_servers_pay() -> None:
    own = {**OWN, "servers": 4}
    plain, liquid, stated = (
        simulate(prepare(make_scenario(workload=WORK, options=[own], site=site)))
        for site in (SITE, {**SITE, "cooling": "liquid"}, {**SITE, "pue": 1.2})
    )
    power = [float(r.options[0].ledger.cash["power"].sum()) for r in (plain, liquid, stated)]
    # The same energy at 1.58 (the option's default), 1.10 (liquid) and 1.2 (stated).
    assert power[1] / power[0] == pytest.approx(1.10 / 1.58)
    assert power[2] / power[0] == pytest.approx(1.2 / 1.58)
    fp = liquid.options[0].ledger.footprint
    assert fp is not None and fp.places[0].pue.value == 1.10
    assert "liquid-cooled site" in fp.places[0].pue.source
    # An option's own power.pue wins over the site's.
    mine = {**own, "power": {"pue": 1.3}}
    r = simulate(prepare(make_scenario(workload=WORK, options=[mine], site=SITE | {"pue": 1.2})))
    assert float(r.options[0].ledger.cash["power"].sum()) / power[0] == pytest.approx(1.3 / 1.58)


def test_an_air_cooled_site_refuses_a_server_denser_than_air_cools() -> None:
    with pytest.raises(
        ScenarioError, match=r"include 40 kW ones; air cooling serves racks of at most 30 kW"
    ) as e:
        prepare(make_scenario(workload=WORK, options=[OWN, P5], site={**SITE, "cooling": "air"}))
    assert "\n" not in str(e.value)
    prepare(make_scenario(workload=WORK, options=[OWN, P5], site={**SITE, "cooling": "liquid"}))


@pytest.mark.parametrize(
    ("site", "message"),
    [
        ({"it_kw": 0, "source": "x"}, "site.it_kw"),
        ({"it_kw": 500}, "site.source"),
        ({"it_kw": 500, "source": "x", "racks": 4}, "racks and kw_per_rack go together"),
        ({"it_kw": 500, "source": "x", "cooling": "water"}, "site.cooling"),
        (
            {"it_kw": 500, "source": "x", "cooling": "air", "racks": 4, "kw_per_rack": 40},
            "air cooling serves racks of at most 30 kW",
        ),
    ],
)
def test_a_bad_site_is_one_line_naming_the_field(site: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as e:
        make_scenario(site=site)
    assert "\n" not in str(e.value)


def test_racks_bind_before_power_and_say_so() -> None:
    # 80 kW racks hold two 40 kW servers each: 6 racks hold 12, whatever the 1,000 kW allow.
    racks = {**SITE, "it_kw": 1000, "racks": 6, "kw_per_rack": 80}
    with pytest.raises(ScenarioError, match=r"need 7 racks of 80 kW .* at most 12 such servers"):
        prepare(make_scenario(workload=WORK, options=[{**OWN, "servers": 13}, P5], site=racks))
    capped = simulate(prepare(_scenario(site=racks)))
    said = [x for x in answer.caveats(capped) if "bind" in x]
    assert said and "racks bind: 6 of 6 racks (80 kW each, 2 such servers a rack" in said[0]
    assert "power binds" not in said[0]  # 480 kW of 1,000: power is not what stops it


def test_a_server_denser_than_the_racks_is_refused() -> None:
    thin = {**SITE, "racks": 20, "kw_per_rack": 30}
    with pytest.raises(ScenarioError, match="more than a 30 kW rack holds"):
        prepare(make_scenario(workload=WORK, options=[OWN, P5], site=thin))
