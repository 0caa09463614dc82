"""Property-based checks (Hypothesis): costs are never negative; more work never costs less."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.simulator.costs import ledger
from tco.simulator.run import run
from tests.conftest import make_scenario

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _scenario(rate: float, hours: float, gpus: int, seed: int, dist: str, **extra: Any) -> Any:
    return make_scenario(
        seed=seed,
        horizon_months=4,
        workload={
            "job_classes": [
                {
                    "name": "c",
                    "arrivals_per_month": rate,
                    "gpus": gpus,
                    "work": {
                        "reference_gpu": "A100 SXM 40GB",
                        "gpu_hours": hours,
                        "distribution": dist,
                    },
                }
            ]
        },
        options=[
            {
                "name": "own",
                "kind": "owned",
                "server": "DGX A100 320GB",
                "servers": 1,
                "lead_time_months": 0.3,
                "support_pct_per_year": 5,
                "depreciation": {"method": "declining_balance", "months": 18},
            },
            {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
            {
                "name": "sp",
                "kind": "savings_plan",
                "instance_type": "p4d.24xlarge",
                "commitment_usd_per_hour": 5.0,
                "discount": 0.3,
                "rate_source": "test",
                "payment": "Partial Upfront",
            },
            {"name": "bm", "kind": "bare_metal", "instance_type": "g4dn.metal"},
        ],
        **extra,
    )


@SETTINGS
@given(
    rate=st.floats(0, 300),
    hours=st.floats(0.01, 200),
    gpus=st.sampled_from([1, 2, 8, 16]),
    seed=st.integers(0, 2**16),
    dist=st.sampled_from(["fixed", "exponential", "lognormal"]),
)
def test_costs_never_negative(rate: float, hours: float, gpus: int, seed: int, dist: str) -> None:
    r = run(_scenario(rate, hours, gpus, seed, dist))
    for o in r.options:
        for cat, values in o.ledger.accounting.items():
            assert (values >= -1e-6).all(), (o.name, cat)
        for cat, values in o.ledger.cash.items():
            if not ledger.category(cat).credit:  # resale etc. is money coming back
                assert (values >= -1e-6).all(), (o.name, cat)
        assert o.total_cash_usd >= -1e-6
        assert o.npv_usd >= -1e-6


@SETTINGS
@given(
    rate=st.floats(1, 200),
    hours=st.floats(0.01, 100),
    gpus=st.sampled_from([1, 4, 8, 16]),
    seed=st.integers(0, 2**16),
    factor=st.floats(1.0, 5.0),
    dist=st.sampled_from(["fixed", "exponential", "lognormal"]),
)
def test_more_work_never_costs_less_on_demand(
    rate: float, hours: float, gpus: int, seed: int, factor: float, dist: str
) -> None:
    # The same jobs (same seed), each with `factor` times the work.
    base = run(_scenario(rate, hours, gpus, seed, dist))
    more = run(_scenario(rate, hours * factor, gpus, seed, dist))
    assert len(base.jobs) == len(more.jobs)
    np.testing.assert_allclose(more.jobs.work_ref_gpu_h, base.jobs.work_ref_gpu_h * factor)
    for name in ("od", "sp", "bm"):
        assert more.option(name).total_cash_usd >= base.option(name).total_cash_usd - 1e-6
