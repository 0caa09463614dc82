"""Servers a site already owns (``existing:``): no purchase in the horizon, their running costs
to the cent from the inputs and the hours they ran, depreciation that goes on where it stood,
their value at the horizon; an option that does not keep them credited their sale at the start;
the search growing them (or not); bad input refused on one line."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tco.pricing import hardware
from tco.simulator.core import defaults
from tco.simulator.core.errors import ScenarioError
from tco.simulator.kinds import registry
from tco.simulator.kinds.owned.resale import market_share
from tco.simulator.run import run
from tests.conftest import MONTHS_TO_SELL, SELLER_SHARE, make_scenario

DGX = "DGX A100 320GB"
PRICE = 199000.0  # what each cost in January 2024, as an asset register would say
JOBS = {
    "job_classes": [
        {
            "name": "jobs",
            "arrivals_per_month": 60,
            "gpus": {"choices": [1, 8]},
            "memory_gb": 30,
            "work": {"reference_gpu": "A100 SXM 40GB", "gpu_hours": 20},
        }
    ]
}


def _keep(**over: Any) -> dict[str, Any]:
    return {
        "name": "keep",
        "kind": "owned",
        "server": DGX,
        "existing": {"servers": 2, "bought": "2024-01", "price_usd": PRICE, "source": "register"},
        "support_pct_per_year": 10,
        "staff": {"fte": 0.2, "usd_per_fte_year": 150000},
        "failures": None,  # no spare pool: the support line is the servers' alone
        **over,
    }


def test_an_existing_clusters_ledger_has_no_purchase_and_its_running_costs_to_the_cent() -> None:
    o = run(make_scenario(workload=JOBS, options=[_keep()])).options[0]
    cash, acc = o.ledger.cash, o.ledger.accounting
    assert cash["capex"].sum() == 0.0
    server = hardware.server(DGX)
    kw, months = server.max_kw, 12
    np.testing.assert_allclose(cash["support"], 2 * PRICE * 0.10 / 12, rtol=1e-12)
    np.testing.assert_allclose(cash["staff"], 0.2 * 150000 / 12, rtol=1e-12)
    np.testing.assert_allclose(
        cash["facility"], 2 * kw * defaults.COLOCATION_USD_PER_KW_MONTH, rtol=1e-12
    )
    # Electricity: the servers idle every hour, and each busy GPU draws its share above idle.
    hours = 8760.0  # 2027 has 365 days
    busy = o.ledger.gpu_hours_busy.sum()
    kwh = 2 * kw * defaults.IDLE_POWER_FRACTION * hours + busy * (kw / 8) * (
        defaults.BUSY_POWER_FRACTION - defaults.IDLE_POWER_FRACTION
    )
    assert cash["power"].sum() == pytest.approx(
        kwh * defaults.PUE * defaults.ELECTRICITY_USD_PER_KWH, rel=1e-9
    )
    # Depreciation goes on from where it stood after 36 months (straight line over its life).
    per_month = 2 * PRICE * (1 - defaults.SALVAGE_FRACTION) / defaults.DEPRECIATION_MONTHS
    expect = per_month * min(months, max(0, defaults.DEPRECIATION_MONTHS - 36))
    assert acc["depreciation"].sum() == pytest.approx(expect, rel=1e-9)
    # At the horizon they are 48 months old and fetch, sold over three months more, a broker's
    # share of the used market's price.
    share = market_share("market", server.gpu, None)((48 + MONTHS_TO_SELL) / 12) * SELLER_SHARE
    assert -cash["resale"].sum() == pytest.approx(2 * PRICE * share, rel=1e-9)
    assert "2 existing (in service 36 months at the start), none bought" in o.description


def test_an_option_that_does_not_keep_them_is_credited_their_sale_at_the_start() -> None:
    rent = {"name": "rent", "kind": "on_demand", "instance_type": "p4d.24xlarge"}
    burst = {
        "name": "burst",
        "kind": "hybrid",
        "owned": "keep",
        "burst": "rent",
        "burst_after_wait_hours": 12,
    }
    keep, rented, hybrid = run(make_scenario(workload=JOBS, options=[_keep(), rent, burst])).options
    share = market_share("market", hardware.server(DGX).gpu, None)((36 + MONTHS_TO_SELL) / 12)
    share *= SELLER_SHARE
    sold = rented.ledger.cash["existing_sold"]
    assert sold[0] == pytest.approx(-2 * PRICE * share, rel=1e-9) and not sold[1:].any()
    assert "existing_sold" not in keep.ledger.cash and "existing_sold" not in hybrid.ledger.cash
    assert "existing_sold" not in rented.ledger.accounting  # a cash sale, not a running cost
    assert "the site's 2 x DGX A100 320GB bought 2024-01 sold at the start" in rented.description
    q = next(q for q in keep.quotes if q.item == "existing servers sold at the start")
    assert q.value == pytest.approx(-sold[0], abs=0.01)


def test_the_search_grows_the_existing_servers_by_servers_bought_at_the_start() -> None:
    kind = registry.get("owned")
    sc = make_scenario(workload=JOBS, options=[_keep(lead_time_months=1)])
    o = sc.options[0]
    assert kind.size(o) == ("servers", 2, 2, 128)  # counted with the existing, never below
    grown = kind.with_knobs(o, {"servers": 5})
    assert grown.servers == 3 and grown.existing == o.existing  # type: ignore[attr-defined]
    assert kind.with_knobs(o, {"servers": 2}).servers is None
    with pytest.raises(ValueError, match="fewer servers than the 2 existing"):
        kind.with_knobs(o, {"servers": 1})
    r = run(make_scenario(workload=JOBS, options=[grown.model_dump(exclude_none=True)]))
    capex = r.options[0].ledger.cash["capex"]
    # Only the three new servers are bought, paid as they arrive a month later.
    assert capex[1] > 0 and capex.sum() == capex[1]
    assert capex[1] == pytest.approx(3 * hardware.server(DGX).price_usd, rel=0.2)
    assert (
        "5 x DGX A100 320GB" in r.options[0].description and "and 3 new" in r.options[0].description
    )


@pytest.mark.parametrize(
    ("over", "field", "says"),
    [
        (
            {"existing": {"servers": 2, "bought": "2027-06", "source": "x"}},
            "options[0].existing.bought",
            "is after the start (2027-01)",
        ),
        (
            {"financing": {"kind": "loan", "annual_rate": 0.08, "term_months": 36}},
            "options[0]",
            "existing servers are paid for",
        ),
        (
            {"existing": {"servers": 2, "bought": "2024-01"}},
            "options[0].existing.source",
            "required field is missing",
        ),
    ],
)
def test_bad_existing_servers_are_refused_on_one_line(
    over: dict[str, Any], field: str, says: str
) -> None:
    with pytest.raises(ScenarioError) as exc:
        run(make_scenario(workload=JOBS, options=[_keep(**over)]))
    assert str(exc.value).startswith(f"<test>: {field}"), str(exc.value)
    assert says in str(exc.value) and "\n" not in str(exc.value)


def test_two_options_naming_different_existing_servers_are_refused() -> None:
    other = _keep(name="other", existing={"servers": 3, "bought": "2024-01", "source": "x"})
    with pytest.raises(ScenarioError, match="a site owns one set of servers"):
        run(make_scenario(workload=JOBS, options=[_keep(), other]))
