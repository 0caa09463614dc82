"""Other GPU clouds beside AWS, as plug-ins of the price book: their bundled snapshot, an option
rented from one billing exactly its price x hours, a fleet across providers putting each job
where it is cheapest, doubtful prices and unsourced commitments refused on one line, and the
look-up by GPU across providers."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest

from tco.pricing import providers
from tco.pricing.book import PriceBook
from tco.pricing.providers import snapshot as clouds
from tco.simulator.core.calendar import month_edges_h
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.simulate import prepare
from tco.simulator.kinds.runs import remaining_h
from tco.simulator.run import run
from tco.simulator.workload.speed import run_hours
from tests.conftest import cloud_plan, make_scenario

H100_JOBS = {
    "job_classes": [
        {
            "name": "ddp",
            "arrivals_per_month": 40,
            "gpus": 8,
            "memory_gb": 60,
            "work": {"reference_gpu": "H100 SXM", "gpu_hours": 200, "distribution": "fixed"},
        }
    ]
}


def _hours(o: Any) -> float:
    """Instance-hours an option of one 8-GPU type pays for: billed within the horizon, and to
    finish the runs still going at its end (the operation continues: kinds.costing)."""
    rest = remaining_h(o.runs, _horizon(o)) * o.runs.units
    return float(o.ledger.gpu_hours_paid.sum()) / 8 + float(rest.sum())


def _horizon(o: Any) -> float:
    return float(month_edges_h("2027-01", len(o.ledger.gpu_hours_paid))[-1])


def test_the_snapshot_holds_eight_providers_and_refuses_a_broken_offer() -> None:
    doc = clouds.load()
    assert set(doc["providers"]) == set(providers.shipped()) - {"aws"}
    assert len(providers.shipped()) == 9
    broken = copy.deepcopy(doc)
    offer = broken["providers"]["lambda"]["us-east-1"]["gpu_8x_h100_sxm5"]
    del offer["on_demand_usd_per_hour"]
    with pytest.raises(ValueError, match="gpu_8x_h100_sxm5: on_demand_usd_per_hour missing"):
        clouds.check(broken, "test")
    bad = copy.deepcopy(doc)
    bad["providers"]["lambda"]["us-east-1"]["gpu_8x_h100_sxm5"]["confidence"] = "sure"
    with pytest.raises(ValueError, match="confidence one of"):
        clouds.check(bad, "test")
    json.dumps(doc)  # plain data


def test_a_lambda_instance_bills_its_snapshot_price_times_hours() -> None:
    lam = {
        "name": "lambda",
        "kind": "on_demand",
        "provider": "lambda",
        "instance_type": "gpu_8x_h100_sxm5",
    }
    p5 = {"name": "p5", "kind": "on_demand", "instance_type": "p5.48xlarge"}
    r = run(make_scenario(workload=H100_JOBS, options=[lam, p5]))
    a, b = r.options
    price = clouds.load()["providers"]["lambda"]["us-east-1"]["gpu_8x_h100_sxm5"]
    hours = _hours(a)  # instance-hours billed, and those finishing runs past the horizon
    assert hours > a.ledger.gpu_hours_paid.sum() / 8
    assert a.total_cash_usd == pytest.approx(price["on_demand_usd_per_hour"] * hours, rel=1e-9)
    # The same hardware on AWS: the same hours at p5's price (31.92 against 55.04 $/h).
    assert b.total_cash_usd / a.total_cash_usd == pytest.approx(55.04 / 31.92, rel=1e-9)
    assert any("Lambda gpu_8x_h100_sxm5" in q.detail for q in a.quotes if q.unit == "USD/h")


def test_a_fleet_across_three_providers_puts_each_job_where_it_is_cheapest() -> None:
    types = [
        "p5.48xlarge",
        "lambda:gpu_8x_h100_sxm5",
        "nebius:gpu-h100-sxm_8gpu-128vcpu-1600gb",
        "gcp:a3-highgpu-8g",
        "g6e.xlarge",
    ]
    fleet = {"name": "fleet", "kind": "on_demand", "instance_types": types}
    workload = copy.deepcopy(H100_JOBS)
    workload["job_classes"].append(
        {
            "name": "small",
            "arrivals_per_month": 60,
            "gpus": 1,
            "memory_gb": 16,
            "work": {"reference_gpu": "A40", "gpu_hours": 8, "distribution": "exponential"},
        }
    )
    sc = make_scenario(workload=workload, options=[fleet])
    book = PriceBook("snapshot")
    plan = prepare(sc, book).plans[0]
    o = run(sc, book=book).options[0]
    jobs = prepare(sc, book).jobs
    # Independently: each job's cost on each type (whole instances x hours x price).
    costs = []
    for shape in cloud_plan(plan).shapes:
        hw = shape.hardware
        held = np.ceil(jobs.gpus / hw.gpus_per_unit)
        fits = jobs.memory_gb <= hw.gpu_memory_gb
        costs.append(np.where(fits, run_hours(jobs, hw) * held * shape.price.usd_per_hour, np.inf))
    want = np.argmin(np.array(costs), axis=0)
    assert o.runs.shape is not None and np.array_equal(o.runs.shape, want)
    used = {cloud_plan(plan).shapes[s].name for s in np.unique(o.runs.shape)}
    assert "nebius:gpu-h100-sxm_8gpu-128vcpu-1600gb" in used  # $2.95/GPU-h, the cheapest H100
    assert "g6e.xlarge" in used  # small jobs: one L40S, cheaper than 8 H100s


def _refused(option: dict[str, Any], says: str) -> None:
    with pytest.raises(ScenarioError, match=says) as exc:
        run(make_scenario(workload=H100_JOBS, options=[option]))
    assert "\n" not in str(exc.value)


def test_doubtful_prices_unknown_providers_and_unsourced_commitments_are_refused() -> None:
    base = {"name": "x", "kind": "on_demand"}
    _refused(
        {**base, "provider": "gcp", "region": "us-central1", "instance_type": "a3-highgpu-1g"},
        r"doubtful \(tagged SUSPECT",
    )
    _refused(
        {**base, "provider": "lamda", "instance_type": "x"},
        r"unknown provider 'lamda'; valid: aws, azure",
    )
    _refused({**base, "instance_types": ["nebius:nope"]}, r"Nebius has no instance type 'nope'")
    plan = {
        "name": "sp",
        "kind": "savings_plan",
        "provider": "lambda",
        "instance_type": "gpu_8x_h100_sxm5",
        "plan": "Compute",
        "term_years": 1,
        "payment": "No Upfront",
        "commitment_usd_per_hour": 10,
    }
    _refused(plan, "a Savings Plan is AWS's; lambda has no sourced commitment rate")
    spot = {
        "name": "s",
        "kind": "spot",
        "provider": "nebius",
        "instance_type": "gpu-h100-sxm_8gpu-128vcpu-1600gb",
    }
    _refused(spot, "the Spot Instance Advisor covers AWS only")


def test_nebius_spot_runs_at_its_quoted_price() -> None:
    spot = {
        "name": "s",
        "kind": "spot",
        "provider": "nebius",
        "instance_type": "gpu-h100-sxm_8gpu-128vcpu-1600gb",
        "interruptions_per_instance_month": 0,
        "capacity_short_probability": 0,
        "checkpoint_write_minutes": 0,
    }
    o = run(make_scenario(workload=H100_JOBS, options=[spot])).options[0]
    assert o.total_cash_usd == pytest.approx(10.00 * _hours(o), rel=1e-9)  # eu-north1 spot $10/h


def test_catalog_gpus_lists_h100_across_providers_offline(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tco.cli import main

    monkeypatch.setenv("COLUMNS", "200")  # a pipe is 100 wide by default: names would fold
    from tco.pricing import offers_view

    rows = offers_view.rows("H100:8")
    assert len({r.provider for r in rows}) >= 6
    per_gpu = [r.per_gpu for r in rows]
    assert per_gpu == sorted(per_gpu) and all(r.gpus == 8 and "H100" in r.gpu for r in rows)
    spot = offers_view.rows("A100", spot=True)
    assert spot and all(r.spot is not None for r in spot)
    main(["catalog", "gpus", "H100:8"])
    out = capsys.readouterr().out
    assert "lambda:gpu_8x_h100" in out and "p5.48xlarge" in out  # (names fold at 160 cols)
    with pytest.raises(SystemExit) as exc:
        main(["catalog", "gpus", "H100:x"])
    assert exc.value.code == 2


def test_renting_away_from_the_data_pays_to_copy_it_out_of_s3() -> None:
    # 5 TB at the start and 0.5 TB a month, copied out of S3 through AWS's internet egress
    # tiers (the first 0.1 TB of a month free, then $0.09/GB; shared aws storage prices):
    # (5 - 0.1) x 1,024 x 0.09 = $451.584 in the first month, (0.5 - 0.1) x 1,024 x 0.09 =
    # $36.864 in each later one; renting on AWS moves nothing.
    data = {"stored_tb": 5, "stored_tb_added_per_month": 0.5}
    lam = {
        "name": "lambda",
        "kind": "on_demand",
        "provider": "lambda",
        "instance_type": "gpu_8x_h100_sxm5",
    }
    p5 = {"name": "p5", "kind": "on_demand", "instance_type": "p5.48xlarge"}
    a, b = run(make_scenario(workload=H100_JOBS, options=[lam, p5], data=data)).options
    moved = a.ledger.cash["egress"] - b.ledger.cash["egress"]
    want = np.full(12, (0.5 - 0.1) * 1024 * 0.09)
    want[0] = (5 - 0.1) * 1024 * 0.09
    np.testing.assert_allclose(moved, want, rtol=1e-12)
    np.testing.assert_allclose(a.ledger.cash["storage"], b.ledger.cash["storage"])


SKYPILOT_FILE = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,"
    "AvailabilityZone,GpuInfo\n"
    "cpu.large,,,8,32,0.40,,us-west,us-west-a,\n"  # no GPU: left out
    "gpu8.h100,H100,8,192,2048,24.00,9.50,us-west,us-west-a,{}\n"
    "gpu8.h100,H100,8,192,2048,24.00,9.50,us-west,us-west-b,{}\n"  # a second zone: one offer
    "gpu1.l40s,L40S,1,16,64,1.10,,eu-north,eu-north-a,{}\n"
)


def test_prices_import_round_trips_a_skypilot_file_and_a_scenario_rents_from_it(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tco.cli import main
    from tco.pricing.providers import user_file

    (tmp_path / "vms.csv").write_text(SKYPILOT_FILE)
    args = ["--provider", "acme", "--source", "Acme quote (test)", "--as-of", "2026-11-15"]
    main(["prices", "import", str(tmp_path / "vms.csv"), *args, "-o", str(tmp_path / "acme.csv")])
    written = (tmp_path / "acme.csv").read_text()
    rows = user_file.read(written)
    assert sorted(rows, key=str) == sorted(user_file.read(SKYPILOT_FILE), key=str)  # as read
    assert {(r.instance_type, r.gpu, r.gpu_count, r.usd_per_hour) for r in rows} == {
        ("gpu8.h100", "H100 SXM", 8, 24.0),
        ("gpu1.l40s", "L40S", 1, 1.1),
    }
    main(["prices", "import", str(tmp_path / "acme.csv"), *args, "-o", str(tmp_path / "b.csv")])
    assert (tmp_path / "b.csv").read_text() == written  # tco's own CSV reads back the same
    monkeypatch.chdir(tmp_path)  # a price file is named relative to its scenario
    scenario = make_scenario(
        workload=H100_JOBS,
        price_files=["acme.csv"],
        options=[{"name": "acme", "kind": "on_demand", "instance_type": "acme:gpu8.h100"}],
    )
    from tco.simulator.scenario.model import validate

    sc = validate(scenario.model_dump(), str(tmp_path / "s.yaml"), PriceBook("snapshot"))
    o = run(sc).options[0]
    assert o.total_cash_usd == pytest.approx(24.0 * _hours(o), rel=1e-9)
    assert any("Acme quote (test)" in q.detail and q.as_of == "2026-11-15" for q in o.quotes)
    (tmp_path / "bad.csv").write_text(SKYPILOT_FILE.replace("L40S,1", "Z9000,1"))
    with pytest.raises(SystemExit) as exc:
        main(["prices", "import", str(tmp_path / "bad.csv"), *args, "-o", str(tmp_path / "c.csv")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1
    assert "line 5: AcceleratorName: GPU 'Z9000' is not in the catalog" in err
