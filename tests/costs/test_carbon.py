"""Carbon of each choice (issue 56, item 3), checked by hand: energy from the same power rule
for owned and rented servers, times the data centre's PUE and the grid's intensity, plus the
servers' embodied share; a carbon price that flips the answer at the price the arithmetic says;
and the grid figures bundled for every region tco prices."""

from __future__ import annotations

import csv
import json
from importlib import resources
from typing import Any

import numpy as np
import pytest

from tco.pricing import carbon as data
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.simulate import prepare
from tco.simulator.run import simulate
from tests.conftest import make_scenario

# Typed here from their sources, not read from the code under test.
H100_TDP_KW = 0.700  # NVIDIA H100 SXM datasheet
SERVER_PER_GPU_TDP = 6.5 / 3.2  # DGX A100: 6.5 kW for 8 x 400 W (Epoch chip_to_server_power)
IDLE, BUSY = 0.25, 0.75  # tco's defaults (core.defaults), the owned servers' too
AWS_PUE = 1.135  # Cloud Carbon Footprint's AWS average
PARIS, MUMBAI = 16.30, 678.76  # Google region-carbon-info 2024, europe-west9 and asia-south1
GCP_PUE = 1.10  # Cloud Carbon Footprint's Google average
EMBODIED_8_GPU_KG_PER_H = (1000 + 8 * 150) / (4 * 8766)  # CCF: 1 t + 150 kg a GPU, 4 years

JOB = {"reference_gpu": "H100 SXM", "gpu_hours": 400, "distribution": "exponential"}
WORK = {"job_classes": [{"name": "runs", "arrivals_per_month": 20, "gpus": 8, "work": JOB}]}


def _rented(name: str, region: str, usd: float) -> dict[str, Any]:
    """An 8 x H100 machine at Google in ``region``, at a price of the scenario's own."""
    return {
        "name": name,
        "kind": "on_demand",
        "provider": "gcp",
        "region": region,
        "instance": {
            "gpu": "H100 SXM",
            "gpus": 8,
            "usd_per_hour": usd,
            "price_source": "a test's quote",
            "price_as_of": "2026-12",
        },
    }


def _run(options: list[dict[str, Any]], **over: Any) -> Any:
    over = {"workload": WORK, **over}
    return simulate(prepare(make_scenario(options=options, odds={"futures": 0}, **over)))


def _by_hand(paid: float, busy: float, pue: float, grid: float) -> float:
    """tCO2e of rented 8 x H100 machines: energy by the power rule, and embodied."""
    kw = H100_TDP_KW * SERVER_PER_GPU_TDP
    it_kwh = paid * kw * IDLE + busy * kw * (BUSY - IDLE)
    return it_kwh * pue * grid / 1e6 + paid / 8 * EMBODIED_8_GPU_KG_PER_H / 1e3


def test_a_rented_option_s_carbon_equals_the_arithmetic_by_hand() -> None:
    # The project ends at the horizon: nothing unfinished is counted after it.
    options = [_rented("paris", "europe-west9", 98.0), _rented("mumbai", "asia-south1", 96.0)]
    r = _run(options, after_horizon="ends")
    for name, region, grid in (("paris", "europe-west9", PARIS), ("mumbai", "asia-south1", MUMBAI)):
        o = r.option(name)
        fp = o.ledger.footprint
        paid, busy = float(o.ledger.gpu_hours_paid.sum()), float(o.ledger.gpu_hours_busy.sum())
        assert paid > 0 and busy > 0
        assert fp.total_t == pytest.approx(_by_hand(paid, busy, GCP_PUE, grid), rel=1e-9)
        assert [p.where for p in fp.places] == [f"gcp:{region}"]


def test_work_unfinished_at_the_horizon_emits_at_the_option_s_own_intensity() -> None:
    options = [_rented("paris", "europe-west9", 98.0)]
    long = {"job_classes": [{**WORK["job_classes"][0], "work": {**JOB, "gpu_hours": 8000}}]}
    ends = _run(options, workload=long, after_horizon="ends").option("paris")
    goes_on = _run(options, workload=long).option("paris")
    runs, horizon = goes_on.runs, 12 * 730.0
    # GPU-hours still to run at the horizon: the rest of the jobs running, every job queued.
    started = ~np.isnan(runs.start_h)
    left_h = np.where(started, np.clip(runs.end_h - horizon, 0.0, None), runs.run_h)
    left = float((left_h * runs.gpus)[runs.runnable].sum())
    assert left > 0
    k = goes_on.ledger.footprint.total_t / ends.ledger.footprint.total_t - 1.0
    used = float(goes_on.ledger.gpu_hours_busy.sum())  # the GPU-hours used within it
    assert k == pytest.approx(left / used, rel=1e-6)


def test_the_same_machines_on_a_dirtier_grid_emit_in_proportion() -> None:
    r = _run([_rented("paris", "europe-west9", 98.0), _rented("mumbai", "asia-south1", 96.0)])
    a, b = r.option("paris").ledger.footprint, r.option("mumbai").ledger.footprint
    # Same jobs, same machines: the same energy and embodied carbon; running carbon by the grid.
    assert np.allclose(a.facility_kwh, b.facility_kwh)
    assert np.allclose(a.embodied_t, b.embodied_t)
    assert float(b.operational_t.sum()) / float(a.operational_t.sum()) == pytest.approx(
        MUMBAI / PARIS
    )


def test_a_carbon_price_flips_the_answer_where_the_arithmetic_says() -> None:
    options = [_rented("paris", "europe-west9", 98.0), _rented("mumbai", "asia-south1", 96.0)]
    base = _run(options)
    paris, mumbai = base.option("paris"), base.option("mumbai")
    assert base.recommendation.option == "mumbai"  # cheaper by the price alone
    gap_usd = paris.total_cash_usd - mumbai.total_cash_usd
    gap_t = mumbai.ledger.footprint.total_t - paris.ledger.footprint.total_t
    assert gap_usd > 0 and gap_t > 0
    flip = gap_usd / gap_t  # USD a tonne at which both cost the same
    for k, chosen in ((0.8, "mumbai"), (1.25, "paris")):
        price = round(flip * k, 2)
        r = _run(options, carbon={"price_usd_per_t": price, "price_source": "a test's price"})
        assert r.recommendation.option == chosen, (price, flip)
        for o in r.options:  # the price times its tonnes, in cash, nothing else moved
            t = o.ledger.footprint.total_t
            assert float(o.ledger.cash["carbon"].sum()) == pytest.approx(price * t, rel=1e-9)
            before = base.option(o.name).total_cash_usd
            assert o.total_cash_usd == pytest.approx(before + price * t, rel=1e-9)


def test_an_owned_server_s_carbon_is_the_energy_its_power_bill_pays_for() -> None:
    site = 450.0
    r = _run(
        [{"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 2}],
        after_horizon="ends",
        carbon={"site_g_per_kwh": site, "site_source": "the utility's 2025 disclosure (test)"},
    )
    o = r.option("own")
    fp = o.ledger.footprint
    # The power category is facility kWh x USD/kWh (core.defaults: $0.0826, EIA 2025).
    power_kwh = float(o.ledger.cash["power"].sum()) / 0.0826
    assert float(fp.facility_kwh.sum()) == pytest.approx(power_kwh, rel=1e-9)
    assert float(fp.operational_t.sum()) == pytest.approx(power_kwh * site / 1e6, rel=1e-9)
    # Two 8-GPU servers in service the whole year, each 2,200 kg over 4 years of 8,766 h.
    hours = 365 * 24
    assert float(fp.embodied_t.sum()) == pytest.approx(
        2 * hours * EMBODIED_8_GPU_KG_PER_H / 1e3, rel=0.01
    )
    assert fp.places[0].grid.source.startswith("the utility")


def test_a_hybrid_s_carbon_is_its_parts_at_their_own_grids() -> None:
    own = {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1}
    od = {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"}
    mix = {
        "name": "mix",
        "kind": "hybrid",
        "owned": "own",
        "burst": "od",
        "burst_after_wait_hours": 2,
    }
    r = _run([own, od, mix])
    fp = r.option("mix").ledger.footprint
    assert [p.where for p in fp.places] == ["site", "aws:us-east-1"]
    assert fp.places[1].pue.value == AWS_PUE
    assert fp.places[1].grid.g_per_kwh == 323.05  # us-east-1 on Google's Northern Virginia


def test_a_carbon_price_without_its_source_is_one_line() -> None:
    with pytest.raises(ScenarioError) as e:
        make_scenario(carbon={"price_usd_per_t": 80})
    assert "carbon" in str(e.value) and "price_source" in str(e.value)
    assert "\n" not in str(e.value)


def test_every_region_priced_has_a_dated_sourced_grid_figure_or_says_it_guesses() -> None:
    rows = list(
        csv.DictReader(
            resources.files("tco.pricing")
            .joinpath("data", "grid_carbon.csv")
            .read_text(encoding="utf-8")
            .splitlines()
        )
    )
    for row in rows:
        assert row["source"] and row["as_of"] and row["confidence"] in ("high", "medium", "low")
        assert 0 < float(row["g_co2e_per_kwh"]) < 1000
    # Google's own figures, as its file gives them (2024).
    assert data.grid("gcp", "europe-west9").g_per_kwh == PARIS
    assert data.grid("gcp", "asia-south1").g_per_kwh == MUMBAI
    clouds = json.loads(
        resources.files("tco.pricing").joinpath("data", "clouds_snapshot.json").read_text()
    )["providers"]
    regions = [(p, r) for p, by in clouds.items() for r in by]
    aws = json.loads(
        resources.files("tco.pricing").joinpath("data", "aws_snapshot.json").read_text()
    )["regions"]
    regions += [("aws", r) for r in aws]
    for p, r in regions:
        g = data.grid(p, r)
        assert g.source and g.as_of
        assert g.confidence != "low" or g.note, (p, r)  # a guess says it is one
    found = sum((p, r) in data.grid_rows() for p, r in regions)
    assert found >= 0.85 * len(regions), (found, len(regions))


def test_a_carbon_ceiling_in_the_level_rules_out_what_emits_more() -> None:
    options = [_rented("paris", "europe-west9", 98.0), _rented("mumbai", "asia-south1", 96.0)]
    base = _run(options)
    low, high = (base.option(n).ledger.footprint.total_t for n in ("paris", "mumbai"))
    ceiling = round((low + high) / 2, 1)
    r = _run(options, service_level={"p95_delay_hours": 72, "max_tco2e": ceiling})
    assert r.recommendation.option == "paris"
    miss = r.verdicts["mumbai"]
    assert not miss.meets and any(m.word == "carbon" for m in miss.reasons)
    assert f"> {ceiling:,g} t" in " ".join(miss.reasons)
    assert r.verdicts["paris"].meets
    assert f"at most {ceiling:,g} tCO2e" in r.scenario.service_level.words()
