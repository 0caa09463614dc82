"""Data kept and moved: tiered egress and storage arithmetic by hand from the bundled list
prices, and the ledger categories on cloud and owned options."""

from __future__ import annotations

import pytest

from tco.pricing import storage
from tco.simulator.core.errors import ScenarioError
from tco.simulator.run import run
from tests.conftest import make_scenario


@pytest.mark.parametrize(
    ("tb", "usd"),
    [
        (0.05, 0.0),  # inside the 100 GB free tier
        (1.0, 0.9 * 1024 * 0.09),
        (10.0, 9.9 * 1024 * 0.09),
        # 200 TB: 9.9 TB at 0.09, 40 at 0.085, 100 at 0.07, 50 at 0.05
        (200.0, 1024 * (9.9 * 0.09 + 40 * 0.085 + 100 * 0.07 + 50 * 0.05)),
    ],
)
def test_internet_egress_tiers_by_hand(tb: float, usd: float) -> None:
    assert storage.tiered_usd("internet_egress", tb) == pytest.approx(usd)


DATA = {
    "stored_tb": 10.0,
    "stored_tb_added_per_month": 1.0,
    "shared_filesystem_tb": 2.0,
    "egress_tb_per_month": 1.0,
    "cross_az_tb_per_month": 0.5,
    "owned_usd_per_tb_month": 5.0,
    "owned_price_source": "test: a NAS",
}


def test_data_costs_by_hand() -> None:
    own, od = run(make_scenario(data=DATA)).options
    # Cloud, month 3: 12 TB in S3 at $0.023/GB + 2 TB FSx Persistent 125 at $0.145/GB.
    assert od.ledger.cash["storage"][2] == pytest.approx(1024 * (12 * 0.023 + 2 * 0.145))
    # Egress: 0.9 TB past the free tier at $0.09/GB, plus 0.5 TB cross-AZ paid both ways.
    assert od.ledger.cash["egress"][0] == pytest.approx(1024 * (0.9 * 0.09 + 0.5 * 0.01 * 2))
    # Owned, month 3: 14 TB at $5/TB-month; egress on a flat uplink (the default).
    assert own.ledger.cash["storage"][2] == pytest.approx(14 * 5.0)
    assert own.ledger.cash["egress"].sum() == 0.0
    assert own.ledger.accounting["storage"][2] == own.ledger.cash["storage"][2]
    assert any(q.item.startswith("S3 Standard") for q in od.quotes)
    # Without the block, nothing changes.
    _, od0 = run(make_scenario()).options
    assert od.total_cash_usd - od0.total_cash_usd == pytest.approx(
        od.ledger.cash["storage"].sum() + od.ledger.cash["egress"].sum()
    )
    assert "storage" not in od0.ledger.cash


def test_owned_storage_price_is_required() -> None:
    data = {k: v for k, v in DATA.items() if not k.startswith("owned")}
    with pytest.raises(ScenarioError, match=r"data\.owned_usd_per_tb_month"):
        run(make_scenario(data=data))
