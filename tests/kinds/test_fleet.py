"""Cloud fleets (several instance types, each job on the one that finishes it for the least
money) and shared instances (small jobs packed onto instances), against bills computed by hand
from the bundled published prices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import ScenarioError
from tco.simulator.kinds.rented.packing import pack
from tco.simulator.run import run
from tco.simulator.scenario.model import validate
from tests.conftest import make_scenario

G5 = 1.006  # g5.xlarge (1x A10G), us-east-1 on-demand, bundled snapshot 2025-11-30
P4D = 21.957642  # p4d.24xlarge (8x A100 40GB)
G6E_48 = 30.13118  # g6e.48xlarge (8x L40S)


def _trace_scenario(tmp_path: Path, rows: str, options: list[dict[str, Any]], **extra: Any) -> Any:
    (tmp_path / "t.csv").write_text("job_id,submit_time_s,duration_s,num_gpus\n" + rows)
    data = {
        "name": "fleet",
        "start": "2027-01",
        "horizon_months": 1,
        "workload": {
            "trace": {"file": "t.csv", "source_gpu": "A100 SXM 40GB", "comm_share": 0.0, **extra}
        },
        # Exact speeds, so run times are arithmetic: an A10G takes twice as long as an A100.
        "speed": {"scores": {"A10G": 0.5, "A100 SXM 40GB": 1.0}, "source": "test"},
        "options": options,
    }
    return validate(data, str(tmp_path / "s.yaml"))


def _fleet(**over: Any) -> dict[str, Any]:
    return {
        "name": "fleet",
        "kind": "on_demand",
        "instance_types": ["g5.xlarge", "p4d.24xlarge"],
        "virtualization_overhead": 0.0,
        **over,
    }


def test_fleet_bill_by_hand(tmp_path: Path) -> None:
    # a: 1 GPU, 10 h on an A100. On g5.xlarge 20 h x $1.006 = $20.12; on p4d 10 h x $21.96.
    # b: 8 GPUs, 5 h. On 8 g5.xlarge 10 h x 8 x $1.006 = $80.48; one p4d 5 h = $109.79.
    sc = _trace_scenario(tmp_path, "a,0,36000,1\nb,3600,18000,8\n", [_fleet()])
    o = run(sc, file=str(tmp_path / "s.yaml")).options[0]
    assert o.runs.shape is not None and o.runs.shape.tolist() == [0, 0]
    assert o.total_cash_usd == pytest.approx(20 * G5 + 8 * 10 * G5)
    assert o.metrics.paid_gpu_hours == pytest.approx(20 + 80)
    assert o.metrics.busy_gpu_hours == pytest.approx(20 + 80)


def test_fleet_respects_memory_and_speed(tmp_path: Path) -> None:
    # 30 GB per GPU does not fit an A10G (22.35 GiB usable): both jobs go to p4d, whole instance.
    sc = _trace_scenario(tmp_path, "a,0,36000,1\nb,3600,18000,8\n", [_fleet()], memory_gb=30.0)
    o = run(sc, file=str(tmp_path / "s.yaml")).options[0]
    assert o.runs.shape is not None and o.runs.shape.tolist() == [1, 1]
    assert o.total_cash_usd == pytest.approx(10 * P4D + 5 * P4D)
    assert o.metrics.paid_gpu_hours == pytest.approx(8 * 15)
    assert o.metrics.busy_gpu_hours == pytest.approx(10 + 40)


def test_fleet_of_one_type_is_that_type() -> None:
    sc = make_scenario(
        options=[
            {"name": "one", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
            {"name": "fleet", "kind": "on_demand", "instance_types": ["p4d.24xlarge"]},
        ]
    )
    one, fleet = run(sc).options
    assert fleet.total_cash_usd == one.total_cash_usd
    assert np.array_equal(fleet.ledger.gpu_hours_paid, one.ledger.gpu_hours_paid)


def test_fleet_costs_no_more_than_any_of_its_types() -> None:
    types = ["g5.xlarge", "g6e.xlarge", "g5.12xlarge", "g6e.48xlarge", "p4d.24xlarge"]
    classes = [
        {
            "name": "small",
            "arrivals_per_month": 60,
            "gpus": 1,
            "memory_gb": 16,
            "work": {"reference_gpu": "V100 SXM2 32GB", "gpu_hours": 10},
        },
        {
            "name": "ddp",
            "arrivals_per_month": 8,
            "gpus": {"choices": [2, 4, 8]},
            "memory_gb": 30,
            "work": {"reference_gpu": "V100 SXM2 32GB", "gpu_hours": 150},
        },
    ]
    options = [{"name": "fleet", "kind": "on_demand", "instance_types": types}]
    options += [{"name": t, "kind": "on_demand", "instance_type": t} for t in types]
    r = run(make_scenario(workload={"job_classes": classes}, options=options))
    fleet, *singles = r.options
    for s in singles:
        if not s.cannot_run:  # a type that runs every job
            assert fleet.total_cash_usd <= s.total_cash_usd * (1 + 1e-9), s.name
    assert fleet.cannot_run == {}


def test_shared_instances_bill_by_hand(tmp_path: Path) -> None:
    # Three 1-GPU jobs on one shared p4d: a 0-2 h, b 1-3 h, c at 3.05 h (within the 5-minute idle
    # timeout after b) for 1 h. One instance from 0 to 4.05 h + 5 min idle.
    rows = "a,0,7200,1\nb,3600,7200,1\nc,10980,3600,1\n"
    opt = {
        "name": "shared",
        "kind": "on_demand",
        "instance_type": "p4d.24xlarge",
        "virtualization_overhead": 0.0,
        "shared_instances": True,
    }
    sc = _trace_scenario(tmp_path, rows, [opt])
    o = run(sc, file=str(tmp_path / "s.yaml")).options[0]
    assert o.total_cash_usd == pytest.approx((4.05 + 5 / 60) * P4D)
    assert o.metrics.busy_gpu_hours == pytest.approx(2 + 2 + 1)
    # Without sharing each job rents its own instance.
    sc = _trace_scenario(tmp_path, rows, [{**opt, "shared_instances": False}])
    alone = run(sc, file=str(tmp_path / "s.yaml")).options[0]
    assert alone.total_cash_usd == pytest.approx(5 * P4D)


def test_packing_never_overfills_an_instance() -> None:
    rng = np.random.default_rng(3)
    n = 2000
    arrival = np.sort(rng.uniform(0, 500, n))
    gpus = rng.integers(1, 8, n)
    run_h = rng.exponential(5.0, n)
    p = pack(arrival, gpus, run_h, 8, 0.1, 1 / 12)
    assert np.all(p.start_h >= arrival)
    # GPUs in use at every start never exceed the GPUs of the instances open then.
    for t in p.start_h[::50]:
        used = gpus[(p.start_h <= t) & (p.start_h + run_h > t)].sum()
        open_ = ((p.session_start_h <= t) & (p.session_end_h > t)).sum()
        assert used <= 8 * open_
    # Every job runs inside some session.
    assert p.session_end_h.max() >= (p.start_h + run_h).max()


@pytest.mark.parametrize(
    ("option", "field", "words"),
    [
        (_fleet(quota_instances=2), "options[0]", "quota_instances counts instances of one"),
        (
            _fleet(instance_type="p4d.24xlarge"),
            "options[0]",
            "give one of instance_type",
        ),
        (_fleet(instance_types=["g5.xlarge", "p9.big"]), "options[0].instance_types[1]", "p9"),
        (_fleet(instance_types=[]), "options[0].instance_types", "at least 1"),
    ],
)
def test_fleet_input_errors(tmp_path: Path, option: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(ScenarioError) as e:
        sc = _trace_scenario(tmp_path, "a,0,3600,1\n", [option])
        run(sc, file=str(tmp_path / "s.yaml"), book=PriceBook(mode="snapshot"))
    assert field in str(e.value) and words in str(e.value)
