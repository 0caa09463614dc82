"""Sensitivity of the answer to prices: scaling a group of costs equals re-running with scaled
prices (costs are linear in prices)."""

from __future__ import annotations

import pytest

from tco.simulator import sensitivity
from tco.simulator.run import run
from tests.conftest import make_scenario


def _sc(od_price: float, server_price: float) -> object:
    return make_scenario(
        horizon_months=6,
        options=[
            {
                "name": "own",
                "kind": "owned",
                "server": "8x A40 NVLink server",
                "servers": 1,
                "price_usd": server_price,
            },
            {
                "name": "od",
                "kind": "on_demand",
                "instance_type": "p4d.24xlarge",
                "usd_per_hour": od_price,
                "price_source": "test",
            },
        ],
    )


def test_scaled_groups_equal_rerun_with_scaled_prices() -> None:
    base = run(_sc(20.0, 80_000.0))  # type: ignore[arg-type]
    for s in sensitivity.swings(base):
        if s.group == "cloud prices":
            again = run(_sc(20.0 * (1 + s.change), 80_000.0))  # type: ignore[arg-type]
        elif s.group == "server prices":
            again = run(_sc(20.0, 80_000.0 * (1 + s.change)))  # type: ignore[arg-type]
        else:
            continue
        totals = {o.name: o.total_cash_usd for o in again.options}
        assert s.cheapest == min(totals, key=lambda n: totals[n])
        assert s.gap_usd == pytest.approx(abs(totals["od"] - totals["own"]))


def test_a_flip_is_reported() -> None:
    # On-demand priced so that the two options are within 20 % of each other.
    base = run(_sc(20.0, 80_000.0))  # type: ignore[arg-type]
    own, od = base.option("own").total_cash_usd, base.option("od").total_cash_usd
    close = run(_sc(20.0 * own / od * 1.05, 80_000.0))  # type: ignore[arg-type]
    flips = [s for s in sensitivity.swings(close) if s.cheapest != close.cheapest().name]
    assert any(s.group == "cloud prices" and s.change < 0 for s in flips)
    top = sensitivity.most_sensitive(close)
    assert top is not None and top[0] == "od"
