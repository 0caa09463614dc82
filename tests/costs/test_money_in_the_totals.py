"""Money that must reach the totals (issue 40): a project that ends at the horizon pays what it
committed past it; a hybrid's burst pays for its data in the cloud; installation is not
resold; a hybrid's electricity follows its price in the spreadsheet; monthly.csv adds up to
the totals to the cent; a break-even beyond full use reads "never"; a resale never earns more
than the purchase; a job class that never runs misses its level. Each failed on 0.13.0."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tco.simulator.core.calendar import month_edges_h
from tco.simulator.core.errors import ScenarioError
from tco.simulator.kinds import registry
from tco.simulator.kinds.owned.resale import ResaleCurve
from tco.simulator.run import prepare, simulate
from tests.conftest import make_scenario, shipped

HOURS_PER_YEAR = 8760  # AWS's term: 31,536,000 s


def _own(**over: Any) -> dict[str, Any]:
    """One 8x A40 server, owned (``over``: its other fields)."""
    return {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1, **over}


def _jobs(name: str, arrivals: float, gpus: int, gpu_h: float, reference: str = "A40") -> Any:
    """A job class of ``gpus``-GPU jobs of ``gpu_h`` reference GPU-hours, exponential."""
    work = {"reference_gpu": reference, "gpu_hours": gpu_h, "distribution": "exponential"}
    return {"name": name, "arrivals_per_month": arrivals, "gpus": gpus, "work": work}


def _project(after: str) -> Any:
    """A 4-month pre-training project on p4d: on-demand, or a 1-year Savings Plan of two
    instances (AWS bills the commitment for the whole year whether the project runs or not)."""
    sc = make_scenario(
        horizon_months=4,
        after_horizon=after,
        service_level={"p95_delay_hours": 48},
        workload={"job_classes": [_jobs("pretrain", 30, 8, 400, "A100 SXM 80GB")]},
        options=[
            {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
            {
                "name": "sp",
                "kind": "savings_plan",
                "instance_type": "p4d.24xlarge",
                "plan": "EC2Instance",
                "term_years": 1,
                "payment": "No Upfront",
                "commitment_instances": 2,
            },
        ],
    )
    return simulate(prepare(sc))


def test_a_project_that_ends_pays_its_whole_commitment_and_says_which_rule_applied() -> None:
    from tco.reports.lead import lead

    going, ending = _project("continues"), _project("ends")
    # A continuing operation: the horizon is a window, the plan's later months the next
    # window's; the plan is cheaper and recommended, as in 0.13.0.
    assert going.recommendation.option == "sp"
    assert any("after_horizon: continues" in line for line in lead(going))
    # A project that ends: the whole year is paid, used or not. By hand: what ran beyond the
    # commitment at on-demand, plus the commitment for all 8,760 hours of its term.
    sp = ending.option("sp").ledger
    commit = sp.notes["commitment_usd_per_hour"]
    whole = sp.cash["cloud_compute"].sum() + commit * HOURS_PER_YEAR
    assert sp.cash_total().sum() == pytest.approx(whole, rel=1e-9)
    horizon_h = going.option("sp").ledger.gpu_hours_paid.size  # months
    assert horizon_h == 4
    # On-demand owes nothing past the horizon; a continuing operation pays to finish the runs
    # still going there (by hand: each one's hours past the horizon at p4d's price), a project
    # that ends does not (those runs are late instead).
    od = going.option("od")
    price = od.quotes[0].value
    running = od.runs.end_h > going.horizon_h
    assert running.any()
    rest = float(((od.runs.end_h - going.horizon_h) * od.runs.units)[running].sum()) * price
    assert od.ledger.notes["to_finish_after_horizon_usd"] == pytest.approx(rest, rel=1e-12)
    assert od.ledger.cash["cloud_compute_to_finish"][-1] == pytest.approx(rest, rel=1e-12)
    assert ending.option("od").total_cash_usd == pytest.approx(od.total_cash_usd - rest)
    assert ending.recommendation.option == "od"  # dearer than on-demand, counted in full
    assert any("after_horizon: ends" in line for line in lead(ending))


def _hybrid(data: dict[str, Any] | None, **own: Any) -> Any:
    """An owned 8x A40 server too small for the work, bursting to p4d after a day."""
    sc = make_scenario(
        horizon_months=6,
        data=data,
        options=[
            _own(**own),
            {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
            {
                "name": "mix",
                "kind": "hybrid",
                "owned": "own",
                "burst": "od",
                "burst_after_wait_hours": 24,
            },
        ],
        workload={"job_classes": [_jobs("jobs", 120, 1, 60)]},
    )
    return simulate(prepare(sc), advise=False)


def test_a_hybrids_burst_pays_for_its_data_in_the_cloud() -> None:
    data = {
        "stored_tb": 20,
        "stored_tb_added_per_month": 2,
        "owned_usd_per_tb_month": 10,
        "owned_price_source": "test",
        "owned_egress_usd_per_tb": 50,
    }
    r = _hybrid(data)
    mix, own, cloud = (r.option(n).ledger for n in ("mix", "own", "od"))
    runs = r.option("mix").runs
    assert runs.burst is not None and runs.burst.any()
    first_h = float(np.nanmin(runs.start_h[runs.burst]))
    edges = month_edges_h(r.scenario.start, r.scenario.horizon_months)
    first = int(np.searchsorted(edges, first_h, side="right")) - 1
    # From the first month a job bursts: the copy's S3 storage, as the cloud option pays it.
    s3 = cloud.cash["storage"]
    on_premises = own.cash["storage"]
    expected = on_premises + np.where(np.arange(6) >= first, s3, 0.0)
    assert mix.cash["storage"][first:] == pytest.approx(expected[first:])
    # Copied out of the premises at their egress price: 20 TB at first, 2 TB a month after.
    tb = np.zeros(6)
    tb[first] = 20 + 2 * first
    tb[first + 1 :] = 2
    assert mix.cash["egress"] == pytest.approx(tb * 50)


def test_installation_is_not_resold_with_the_servers() -> None:
    plain, installed = (
        simulate(
            prepare(make_scenario(options=[_own(servers=2, installation_usd_per_server=extra)])),
            advise=False,
        ).option("own")
        for extra in (0.0, 5_000.0)
    )
    assert installed.ledger.cash["capex"].sum() == pytest.approx(
        plain.ledger.cash["capex"].sum() + 10_000.0
    )
    assert installed.ledger.cash["resale"].sum() == pytest.approx(plain.ledger.cash["resale"].sum())


def test_a_hybrids_running_costs_are_priced_by_its_owned_part_in_the_spreadsheet() -> None:
    sc = _hybrid(None).scenario
    others = {o.name: o for o in sc.options}
    own, mix = sc.option("own"), sc.option("mix")
    assert registry.of(mix).unit_prices(mix, others) == registry.of(own).unit_prices(own, others)
    assert [p.category for p in registry.of(mix).unit_prices(mix, others)] == [
        "power",
        "staff",
        "support",
    ]


def test_monthly_csv_adds_up_to_the_totals_to_the_cent(tmp_path: Path) -> None:
    from tco.reports import files

    r = shipped("lab")
    files.write_data(r, tmp_path)
    m = pd.read_csv(tmp_path / "monthly.csv")
    for o in r.options:
        for view in ("cash", "accounting"):
            rows = m[(m.option == o.name) & (m.view == view)]
            total = o.total_cash_usd if view == "cash" else o.metrics.accounting_usd
            assert round(rows.usd.sum(), 2) == round(total, 2), (o.name, view)
            exact = (o.ledger.cash_total() if view == "cash" else o.ledger.accounting_total()).sum()
            assert abs(rows.usd.sum() - exact) < 0.006


def test_a_break_even_beyond_full_use_reads_never() -> None:
    from tco.reports import tables
    from tco.simulator.engine.findings import BreakEvenVolume

    r = shipped("lab")
    frame = tables.break_even(r)
    assert not (frame["same cost at utilisation"].dropna() > 1.0).any()
    # One past full use, by construction: never, with the utilisation it would take.
    v = r.break_even_volumes[0]
    beyond = BreakEvenVolume(v.owned, v.rented, 2.0, 1.155, 1000.0, "")
    others = [x for x in r.break_even_volumes if (x.owned, x.rented) != (v.owned, v.rented)]
    frame = tables.break_even(replace(r, break_even_volumes=(beyond, *others)))
    row = frame[(frame.owning == v.owned) & (frame["against renting"] == v.rented)].iloc[0]
    assert row["same cost at utilisation"] is None or pd.isna(row["same cost at utilisation"])
    assert row["times this scenario's work"].startswith("never") and "116%" in str(row.iloc[-1])
    assert pd.isna(row.iloc[-2])  # no volume of work a month either


def test_a_resale_never_earns_more_than_the_purchase() -> None:
    # A curve of one's own rising 0.5 -> 0.9 is taken as written, never extrapolated upwards;
    # a share above 1 (more than the price) is refused (issue 50: [2, 2] cost -$55,123).
    curve = ResaleCurve(share_by_year=[0.5, 0.9], source="test")
    assert curve.share(2.0) == 0.9 and curve.share(10.0) == 0.9
    with pytest.raises(ValueError, match="less than or equal to 1"):
        ResaleCurve(share_by_year=[0.5, 1.5], source="test")
    falling = ResaleCurve(share_by_year=[0.8, 0.4], source="test")
    assert falling.share(3.0) == pytest.approx(0.2)  # the last year's ratio continues
    # A quote above the server's price is refused, naming the field.
    with pytest.raises(ScenarioError, match=r"options\[0\]\.resale_value\.usd_per_server"):
        prepare(
            make_scenario(
                options=[
                    _own(
                        price_usd=50_000,
                        resale_value={"usd_per_server": 60_000, "source": "test"},
                    )
                ]
            )
        )


def test_a_job_class_none_of_whose_jobs_runs_misses_the_level() -> None:
    # 16-GPU jobs cannot run on one 8-GPU server: the class is 1 % of the work, within a 5 %
    # allowance in total, but none of it runs: its own promise is broken.
    sc = make_scenario(
        service_level={"p95_delay_hours": 48, "max_cannot_run_share": 0.05},
        workload={
            "job_classes": [
                {
                    "name": "small",
                    "arrivals_per_month": 100,
                    "gpus": 1,
                    "work": {"reference_gpu": "A40", "gpu_hours": 10, "distribution": "fixed"},
                },
                {
                    "name": "big",
                    "arrivals_per_month": 1,
                    "gpus": 16,
                    "work": {"reference_gpu": "A40", "gpu_hours": 10, "distribution": "fixed"},
                },
            ]
        },
        options=[_own()],
    )
    r = simulate(prepare(sc), advise=False)
    m = r.option("own").metrics
    assert m.work.cannot_run_share < 0.05 and m.class_cannot_run_share["big"] == 1.0
    assert np.isnan(m.class_p95_delay_h["big"])
    assert any(
        w.startswith("big: 100.0% of its work cannot run") for w in m.misses(sc.service_level)
    )
    assert not r.verdicts["own"].meets
