"""What owned servers cost by purchase date, and what they fetch at the horizon."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tco.pricing import hardware, new_prices
from tco.simulator.run import run
from tests.conftest import make_scenario


def _own(**over: Any) -> Any:
    option = {"name": "own", "kind": "owned", "server": "DGX A100 320GB", "servers": 1}
    option = {**option, "failures": None, **over}  # prices alone: no spare pool
    return run(make_scenario(horizon_months=36, options=[option])).options[0]


def test_a_later_order_pays_the_declined_price() -> None:
    tranches = [{"month": 0, "servers": 1}, {"month": 24, "servers": 2}]
    o = _own(servers=None, tranches=tranches, price_usd=100_000.0, price_decline_per_year=0.1)
    capex = o.ledger.cash["capex"]
    assert capex[0] == pytest.approx(100_000.0)
    assert capex[24] == pytest.approx(2 * 100_000.0 * 0.9**2)
    (q,) = [q for q in o.quotes if q.item == "server price by order month"]
    assert q.value == 0.81 and q.source == "scenario" and "month 25: x0.810" in q.detail
    assert "price_decline_per_year 0.1" in q.detail


def test_a_catalog_price_declines_from_its_own_date() -> None:
    server = hardware.server("DGX A100 320GB")
    assert server.price_date == "2020-05-14"
    o = _own(price_decline_per_year=0.1)
    years = ((2027 * 12 + 0) - (2020 * 12 + 4)) / 12  # 2020-05 to 2027-01
    assert o.ledger.cash["capex"][0] == pytest.approx(server.price_usd * 0.9**years)
    # By default the Ampere new-price trend (pricing.new_prices) moves it.
    trend = math.exp(new_prices.trend(server.gpu).per_year * years)
    assert _own().ledger.cash["capex"][0] == pytest.approx(server.price_usd * trend, rel=2e-3)


def test_resale_none_counts_nothing_back() -> None:
    assert _own(resale_value="none").ledger.cash["resale"].sum() == 0
    assert _own().ledger.cash["resale"].sum() < 0  # book value, credited


def test_a_stated_price_of_zero_is_the_price_everywhere() -> None:
    """A server given for free (``price_usd: 0``) costs nothing in the ledger and in every
    quote: its spare GPUs were quoted at the catalogue's price (an ``or`` took 0 for none)."""
    own = {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 1,
        "price_usd": 0,
        "failures": {"maintenance": "self", "spare_gpus": 2},
    }
    r = run(make_scenario(options=[own], odds={"futures": 0}))
    o = r.option("own")
    assert float(o.ledger.cash["capex"].sum()) == 0.0  # no server, no spare bought
    (spares,) = [q for q in o.quotes if q.item == "spare GPUs"]
    assert spares.value == 2 and "bought with the first servers at 0 USD each" in spares.detail
    (bought,) = [q for q in o.quotes if q.item.endswith("purchase price")]
    assert bought.value == 0 and bought.source == "scenario"
