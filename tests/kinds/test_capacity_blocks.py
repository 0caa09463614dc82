"""AWS Capacity Blocks (issue 55, item 3): instances reserved for stated windows, paid in full
in the month a block starts; jobs on the reserved instances while it lasts, on demand beyond.
Checked by hand against the same jobs on demand, against AWS's terms, and as the bridge of a
hybrid before its servers arrive."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tco.pricing import capacity_blocks
from tco.simulator.core.calendar import month_edges_h
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.simulate import prepare
from tco.simulator.kinds import registry
from tco.simulator.run import simulate
from tests.conftest import make_scenario

WORK = {
    "job_classes": [
        {
            "name": "runs",
            "arrivals_per_month": 30,
            "gpus": 8,
            "work": {"reference_gpu": "H100 SXM", "gpu_hours": 400, "distribution": "exponential"},
        }
    ]
}
OD = {"name": "od", "kind": "on_demand", "instance_type": "p5.48xlarge"}
BLOCKS = [{"month": 0, "instances": 2, "days": 91}, {"month": 3, "instances": 1, "days": 28}]


def _cb(**over: Any) -> dict[str, Any]:
    return {
        "name": "cb",
        "kind": "capacity_block",
        "instance_type": "p5.48xlarge",
        "blocks": BLOCKS,
        **over,
    }


def _run(*options: dict[str, Any], months: int = 6) -> Any:
    sc = make_scenario(workload=WORK, options=list(options), horizon_months=months)
    return simulate(prepare(sc), advise=False)


def test_blocks_are_paid_up_front_and_cover_the_hours_they_reserve() -> None:
    r = _run(OD, _cb())
    od, cb = r.option("od").ledger, r.option("cb").ledger
    rate, price = 39.33, 55.04  # the bundled rate (2024 page) and p5's on-demand price
    edges = month_edges_h("2027-01", 6)
    fee = np.zeros(6)
    fee[0], fee[3] = 2 * 24 * 91 * rate, 1 * 24 * 28 * rate
    np.testing.assert_allclose(cb.cash["cb_fee"], fee)
    # The same jobs: what the blocks covered at on-demand prices plus what ran beyond them is
    # the on-demand option's bill, hour for hour.
    used = cb.accounting["cb_hours_used"] / rate * price
    np.testing.assert_allclose(used + cb.cash["cloud_compute"], od.cash["cloud_compute"])
    # Reserved hours are used or idle, every one.
    reserved = np.zeros(int(edges[-1]))
    reserved[: 24 * 91] += 2
    h3 = int(edges[3])
    reserved[h3 : h3 + 24 * 28] += 1
    total = cb.accounting["cb_hours_used"] + cb.accounting["cb_hours_unused"]
    assert total.sum() == pytest.approx(reserved.sum() * rate)
    assert cb.cash["cb_fee"].sum() == pytest.approx(total.sum())


def test_the_bundled_rate_is_said_doubtful_and_a_stated_one_is_not() -> None:
    r = _run(_cb())
    o = r.option("cb")
    spec = r.scenario.option("cb")
    said = registry.of(spec).caveats(spec, tuple(r.scenario.options), o.quotes)
    assert len(said) == 1 and "doubtful" in said[0] and "$39.33" in said[0]
    r = _run(_cb(rate_usd_per_hour=30.0, rate_source="a quote of 2026-11"))
    o = r.option("cb")
    assert registry.of(spec).caveats(spec, tuple(r.scenario.options), o.quotes) == []
    assert o.ledger.cash["cb_fee"][0] == pytest.approx(2 * 24 * 91 * 30.0)


def test_aws_sells_the_durations_it_sells() -> None:
    sold = [d for d in range(1, 200) if capacity_blocks.valid_days(d)]
    assert sold == [*range(1, 15), *range(21, 183, 7)]


@pytest.mark.parametrize(
    ("over", "field", "message"),
    [
        ({"blocks": [{"month": 0, "instances": 1, "days": 15}]}, "days", "steps of 7"),
        ({"blocks": [{"month": 0, "instances": 65, "days": 7}]}, "instances", "64"),
        ({"blocks": [{"month": 5, "instances": 1, "days": 35}]}, "blocks[0]", "must end by"),
        ({"blocks": [{"month": 0, "instances": 64, "days": 7}] * 5}, "blocks", "256"),
        ({"instance_type": "lambda:gpu_8x_h100_sxm5"}, "options[0]", "one AWS instance_type"),
        ({"region": "us-west-1"}, "rate_usd_per_hour", "p5.48xlarge in us-east-1"),
        ({"rate_usd_per_hour": 30.0}, "options[0]", "rate_source"),
    ],
)
def test_a_block_aws_does_not_sell_is_one_line_naming_the_field(
    over: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(ScenarioError, match=message) as err:
        prepare(make_scenario(workload=WORK, options=[_cb(**over)], horizon_months=6))
    assert field in str(err.value) and "\n" not in str(err.value)


def test_a_block_bridges_the_months_before_the_servers_arrive() -> None:
    own = {
        "name": "own",
        "kind": "owned",
        "server": "HGX H100 8-GPU",
        "servers": 2,
        "lead_time_months": 3,
        "failures": None,
    }
    bridge = _cb(blocks=[{"month": 0, "instances": 2, "days": 91}])
    mix = {
        "name": "mix",
        "kind": "hybrid",
        "owned": "own",
        "burst": "cb",
        "burst_after_wait_hours": 24,
    }
    plain = {**mix, "name": "plain", "burst": "od"}
    r = _run(own, bridge, OD, mix, plain, months=12)
    led, od = r.option("mix").ledger, r.option("plain").ledger
    assert led.cash["cb_fee"][0] == pytest.approx(2 * 24 * 91 * 39.33)
    # The same jobs leave for the cloud either way (the policy reads on-demand prices): what
    # the blocks covered at on-demand prices plus what ran beyond them is the plain mix's bill.
    covered = led.accounting["cb_hours_used"] / 39.33 * 55.04
    np.testing.assert_allclose(covered + led.cash["cloud_compute"], od.cash["cloud_compute"])
    # The blocks carried the months before delivery: 80 % of their hours used; 91 days from
    # January 1 end on April 1 (one day into month 3), none after.
    assert led.accounting["cb_hours_used"][:4].sum() > 0.8 * led.cash["cb_fee"][0]
    assert led.accounting["cb_hours_used"][3] <= 2 * 24 * 39.33 + 1e-6
    assert led.accounting["cb_hours_used"][4:].sum() == 0
