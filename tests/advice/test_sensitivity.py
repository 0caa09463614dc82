"""Sensitivity of the answer to prices: scaling a group of costs equals re-running with scaled
prices (costs are linear in prices)."""

from __future__ import annotations

import pytest

from tco.simulator.advice import sensitivity
from tco.simulator.costs import ledger
from tco.simulator.run import run
from tco.simulator.scenario.model import Scenario
from tests.conftest import make_scenario

BASE = {
    "cloud prices": 20.0,  # on-demand USD/h
    "server prices": 80_000.0,  # USD per server
    "electricity": 0.15,  # USD/kWh
    "facility": 200.0,  # USD/kW/month
    "staff": 100_000.0,  # USD per FTE-year (0.2 FTE)
}


def _sc(od_price: float, server_price: float, **prices: float) -> Scenario:
    p = {**BASE, "cloud prices": od_price, "server prices": server_price, **prices}
    return make_scenario(
        horizon_months=6,
        options=[
            {
                "name": "own",
                "kind": "owned",
                "server": "8x A40 NVLink server",
                "servers": 1,
                "price_usd": p["server prices"],
                "support_pct_per_year": 8,
                "power": {"usd_per_kwh": p["electricity"]},
                "facility": {"usd_per_kw_month": p["facility"]},
                "staff": {"fte": 0.2, "usd_per_fte_year": p["staff"]},
            },
            {
                "name": "od",
                "kind": "on_demand",
                "instance_type": "p4d.24xlarge",
                "usd_per_hour": p["cloud prices"],
                "price_source": "test",
            },
        ],
    )


def test_scaled_groups_equal_rerun_with_scaled_prices() -> None:
    """Every group the analysis varies, re-run with that price scaled: the same ranking and gap."""
    base = run(_sc(BASE["cloud prices"], BASE["server prices"]))
    checked = set()
    for s in sensitivity.swings(base):
        scaled = {**BASE, s.group: BASE[s.group] * (1 + s.change)}
        again = run(
            _sc(
                scaled["cloud prices"],
                scaled["server prices"],
                electricity=scaled["electricity"],
                facility=scaled["facility"],
                staff=scaled["staff"],
            )
        )
        totals = {o.name: o.total_cash_usd for o in again.options}
        assert s.cheapest == min(totals, key=lambda n: totals[n]), s
        assert s.gap_usd == pytest.approx(abs(totals["od"] - totals["own"]), rel=1e-9), s
        checked.add(s.group)
    assert checked == set(BASE) == set(ledger.groups())


def test_a_flip_is_reported() -> None:
    # On-demand priced so that the two options are within 20 % of each other.
    base = run(_sc(20.0, 80_000.0))
    own, od = base.option("own").total_cash_usd, base.option("od").total_cash_usd
    close = run(_sc(20.0 * own / od * 1.05, 80_000.0))
    flips = [s for s in sensitivity.swings(close) if s.cheapest != close.cheapest().name]
    assert any(s.group == "cloud prices" and s.change < 0 for s in flips)
    top = sensitivity.most_sensitive(close)
    assert top is not None and top[0] == "od"
