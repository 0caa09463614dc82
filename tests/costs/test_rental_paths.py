"""Rental prices that move: ``escalation.rentals`` grows every market rental price (on demand,
spot) month by month, never a commitment's rate; drawn in the futures it is a price path per
future, under which a Savings Plan's cash spreads less than on-demand's."""

from __future__ import annotations

from typing import Any

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import prepare
from tco.simulator.run import simulate
from tco.simulator.scenario.model import validate
from tco.simulator.sweep.run import run_sweep
from tco.simulator.sweep.summary import spreads
from tests.conftest import make_scenario

OPTIONS: list[dict[str, Any]] = [
    {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
    {
        "name": "sp",
        "kind": "savings_plan",
        "instance_type": "p4d.24xlarge",
        "term_years": 3,
        "commitment_instances": 1,
    },
]
WORK = {
    "job_classes": [
        {
            "name": "steady",
            "arrivals_per_month": 60,
            "gpus": 8,
            "work": {"reference_gpu": "A100 SXM 40GB", "gpu_hours": 96, "distribution": "fixed"},
        }
    ]
}


def _run(**escalation: float) -> Result:
    sc = make_scenario(options=OPTIONS, workload=WORK, horizon_months=24, escalation=escalation)
    return simulate(prepare(sc), advise=False)


def test_rental_prices_grow_by_the_year_and_a_commitment_does_not() -> None:
    flat, rising = _run(), _run(rentals=0.2)
    months = np.arange(24) / 12.0
    od0, od1 = (r.option("od").ledger.cash["cloud_compute"] for r in (flat, rising))
    np.testing.assert_allclose(od1, od0 * 1.2**months, rtol=1e-12)
    sp0, sp1 = (r.option("sp").ledger for r in (flat, rising))
    np.testing.assert_array_equal(sp1.cash["sp_commitment"], sp0.cash["sp_commitment"])
    np.testing.assert_allclose(
        sp1.cash["cloud_compute"], sp0.cash["cloud_compute"] * 1.2**months, rtol=1e-12
    )


def test_under_price_paths_a_commitment_spreads_less_than_on_demand() -> None:
    data = make_scenario(options=OPTIONS, workload=WORK, horizon_months=24).model_dump()
    data["odds"] = {"without": "all"}
    data["uncertain"] = [
        {
            "path": "escalation.rentals",
            "distribution": {"kind": "uniform", "low": -0.4, "high": 0.4},
        }
    ]
    sc = validate(data, "<test>")
    book = PriceBook()
    reps = run_sweep(prepare(sc, book), book, 40)
    drawn = [float(r.inputs["escalation.rentals"]) for r in reps]
    assert min(drawn) < -0.3 and max(drawn) > 0.3  # the draw reached the ledgers' paths
    spread = {s.name: s.cash_usd["p90"] - s.cash_usd["p10"] for s in spreads(reps)}
    assert 0 < spread["sp"] < 0.5 * spread["od"]
