"""Ledgers against figures computed by hand for small, fully controlled cases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tco.simulator.run import run
from tco.simulator.scenario.model import validate


def _owned_scenario(tmp_path: Path, jobs_csv: str | None = None) -> object:
    workload: dict[str, object] = {
        "job_classes": [
            {
                "name": "none",
                "arrivals_per_month": 0,
                "work": {"reference_gpu": "A40", "gpu_hours": 1},
            }
        ]
    }
    if jobs_csv is not None:
        (tmp_path / "t.csv").write_text(jobs_csv)
        workload = {"trace": {"file": "t.csv", "source_gpu": "A40", "comm_share": 0.0}}
    return validate(
        {
            "name": "ledger",
            "start": "2027-01",
            "horizon_months": 12,
            "workload": workload,
            "options": [
                {
                    "name": "own",
                    "kind": "owned",
                    "server": "8x A40 NVLink server",
                    "servers": 1,
                    "price_usd": 100_000,
                    "max_kw": 10,
                    "failures": None,  # by-hand figures: no spare pool, nothing fails
                    "power": {
                        "pue": 1.5,
                        "usd_per_kwh": 0.1,
                        "busy_fraction": 0.8,
                        "idle_fraction": 0.2,
                    },
                    "facility": {"usd_per_kw_month": 100},
                    "support_pct_per_year": 12,
                    "staff": {"fte": 0.5, "usd_per_fte_year": 120_000},
                    "depreciation": {
                        "method": "straight_line",
                        "months": 24,
                        "salvage_fraction": 0.25,
                    },
                    "resale_value": "book",  # the book-value arithmetic below
                }
            ],
        },
        str(tmp_path / "s.yaml"),
    )


def test_owned_ledger_by_hand_idle_cluster(tmp_path: Path) -> None:
    r = run(_owned_scenario(tmp_path), file=str(tmp_path / "s.yaml"))  # type: ignore[arg-type]
    o = r.options[0]
    cash, acc = o.ledger.cash, o.ledger.accounting
    jan_hours = 31 * 24
    # Idle all January: 744 h x 10 kW x 0.2 x PUE 1.5 x $0.1/kWh = $223.20.
    assert cash["power"][0] == pytest.approx(jan_hours * 10 * 0.2 * 1.5 * 0.1)
    assert cash["facility"][0] == pytest.approx(10 * 100)  # 10 kW x $100/kW/month
    assert cash["support"][0] == pytest.approx(100_000 * 0.12 / 12)
    assert cash["staff"][0] == pytest.approx(0.5 * 120_000 / 12)
    assert cash["capex"][0] == 100_000 and cash["capex"][1:].sum() == 0
    # Straight line to 25 % salvage over 24 months: $75,000 / 24 = $3,125 a month.
    np.testing.assert_allclose(acc["depreciation"], 3_125.0)
    # Sold at book value after 12 months: 100,000 - 12 x 3,125 = 62,500 comes back.
    assert cash["resale"][-1] == pytest.approx(-62_500)
    assert o.total_cash_usd == pytest.approx(o.total_accounting_usd)
    hours = np.diff([0, 744, 1416, 2160, 2880, 3624, 4344, 5088, 5832, 6552, 7296, 8016, 8760])
    assert cash["power"].sum() == pytest.approx(hours.sum() * 10 * 0.2 * 1.5 * 0.1)
    assert o.jobs_completed == 0 and np.isnan(o.usd_per_ref_gpu_hour)


def test_owned_power_when_busy_by_hand(tmp_path: Path) -> None:
    # One 8-GPU job of 10 h at t=0 on the A40 it was measured on: the whole server busy 10 h.
    csv = "job_id,submit_time_s,duration_s,num_gpus\nj1,0,36000,8\n"
    r = run(_owned_scenario(tmp_path, csv), file=str(tmp_path / "s.yaml"))  # type: ignore[arg-type]
    o = r.options[0]
    assert o.ledger.gpu_hours_busy[0] == pytest.approx(80.0)
    # Extra draw while busy: 80 GPU-h x (10 kW / 8 GPUs) x (0.8 - 0.2) x 1.5 x $0.1 = $9.00.
    idle = 744 * 10 * 0.2 * 1.5 * 0.1
    assert o.ledger.cash["power"][0] == pytest.approx(idle + 9.0)
    assert o.waits.max_h == 0.0 and o.jobs_completed == 1


def test_savings_plan_month_by_hand(tmp_path: Path) -> None:
    # 1 instance for 10 h from t=0; 3 instances (24 GPUs) for 2 h from t=100 h.
    (tmp_path / "t.csv").write_text(
        "job_id,submit_time_s,duration_s,num_gpus\na,0,36000,8\nb,360000,7200,24\n"
    )
    sc = validate(
        {
            "name": "sp",
            "start": "2027-01",
            "horizon_months": 2,
            "workload": {
                "trace": {"file": "t.csv", "source_gpu": "A100 SXM 40GB", "comm_share": 0.0}
            },
            "options": [
                {
                    "name": "sp",
                    "kind": "savings_plan",
                    "instance_type": "p4d.24xlarge",
                    "usd_per_hour": 8.0,
                    "price_source": "test",
                    "virtualization_overhead": 0.0,
                    "commitment_usd_per_hour": 10.0,
                    "rate_usd_per_hour": 5.0,
                    "rate_source": "test",
                }
            ],
        },
        str(tmp_path / "s.yaml"),
    )
    o = run(sc, file=str(tmp_path / "s.yaml")).options[0]
    acc = o.ledger.accounting
    jan = 744
    # Commitment $10/h covers 2 instances at $5. Job a: 10 h x 1 instance, all covered ($50).
    # Job b: 2 h x 3 instances: 2 covered ($20), 1 at on-demand $8 (2 h -> $16).
    assert acc["sp_commitment_used"][0] == pytest.approx(50 + 20)
    assert acc["sp_commitment_unused"][0] == pytest.approx(jan * 10 - 70)
    assert acc["cloud_compute"][0] == pytest.approx(16.0)
    assert o.ledger.cash["sp_commitment"][0] == pytest.approx(jan * 10)  # No Upfront: monthly
    assert acc["cloud_compute"][1] == 0 and acc["sp_commitment_unused"][1] == pytest.approx(
        672 * 10
    )
    assert o.ledger.series["sp_utilisation"][0] == pytest.approx(70 / (jan * 10))
    assert o.ledger.series["sp_coverage"][0] == pytest.approx(14 / 16)  # 14 of 16 inst-h
