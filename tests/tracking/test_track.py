"""tco track (issue 43): a plan held against three months of usage (a sacct log) and a FOCUS bill
that deviate from it in known ways (more arrivals, an unused commitment, a dearer price), each
variance reported to the cent, a re-forecast whose odds move the right way, and --fail-if."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import gamma

from tco.cli import main
from tco.pricing.book import PriceBook
from tco.simulator.advice.composing import rebuilt
from tco.simulator.costs.ledger import category
from tco.simulator.engine.simulate import play_named, revised
from tco.simulator.tracking import focus, plan_files, usage
from tco.simulator.tracking.follow import follow, scenario_of
from tco.simulator.tracking.refit import PRIOR_MONTHS, fit, weighted_quantiles
from tco.simulator.workload.traces import TraceJobs
from tests.conftest import ROOT
from tests.engine.test_portfolio import SMALL as SMALL_MIX

SCENARIO = """\
name: tracked
start: 2027-01
horizon_months: 12
seed: 7
search: none
odds: {futures: 0}
workload:
  job_classes:
    - name: train
      arrivals_per_month: 40
      gpus: 8
      memory_gb: 30
      work: {reference_gpu: A100 SXM 40GB, gpu_hours: 64, distribution: exponential}
options:
  - name: p4d
    kind: on_demand
    instance_type: p4d.24xlarge
"""
START = datetime(2027, 1, 1, tzinfo=UTC)
MORE = 0.5  # every second job comes twice: 1.5x the arrivals
PRICE = 1.10  # the bill charges 10 % more a GPU-hour than the plan
UNUSED = 1234.56  # an unused commitment, USD a month


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return plan_of(tmp_path_factory)


def exit_code(args: list[str]) -> int:
    """The exit code of one ``tco`` command run in this process (0 when it returns)."""
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def plan_of(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SCENARIO planned by tco simulate into a new folder (its report in ``report/``)."""
    d = tmp_path_factory.mktemp("plan")
    (d / "tracked.yaml").write_text(SCENARIO)
    main(
        [
            "simulate",
            str(d / "tracked.yaml"),
            "--out",
            str(d / "report"),
            *PLAN_FLAGS,
        ]
    )
    return d


# The logs of these cases hold whole months to March's last job, which ends before the month
# does: they say they are whole through March (a log that ends inside a month is read to date).
THROUGH = "2027-03"


def _planned_jobs(report: Path, option: str = "p4d") -> list[dict[str, str]]:
    with (report / "jobs.csv").open() as fh:
        return [r for r in csv.DictReader(fh) if r["option"] == option]


def _stamp(hours: float) -> str:
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%S")


# How the tests write a plan: quietly, the files tracking reads, snapshot prices, no odds.
PLAN_FLAGS = ["--quiet", "--format", "json,csv", "--prices", "snapshot", "--odds", "0"]


def _sacct(jobs: list[dict[str, str]], months: int, more: float, path: Path) -> None:
    """The plan's jobs of the first ``months`` months as a cluster's sacct log, every
    ``1/more``-th job twice (jobs ending after the last recorded month left out)."""
    end_h = sum(31 if m in (0, 2) else 28 for m in range(months)) * 24.0  # Jan, Feb, Mar 2027
    lines = ["JobID|State|Submit|Start|End|AllocTRES"]
    n = 0
    for i, r in enumerate(jobs):
        a, w, run = float(r["arrival_h"]), float(r["wait_h"]), float(r["run_h"])
        if a >= end_h:
            continue
        copies = 2 if more and i % round(1 / more) == 0 else 1
        for _ in range(copies):
            n += 1
            lines.append(
                f"{n}|COMPLETED|{_stamp(a)}|{_stamp(a + w)}|{_stamp(a + w + run)}"
                f"|cpu=96,gres/gpu={r['gpus']},node=1"
            )
    path.write_text("\n".join(lines) + "\n")


FOCUS_COLUMNS = [
    "BilledCost",
    "EffectiveCost",
    "BillingCurrency",
    "ChargeCategory",
    "ChargePeriodStart",
    "ChargePeriodEnd",
    "ServiceName",
    "ProviderName",
    "SkuId",
    "CommitmentDiscountName",
    "CommitmentDiscountStatus",
]


def _bill(planned_billed: list[float], gpu_ratio: list[float], price: float, path: Path) -> None:
    """Each month: the compute the plan billed x the usage's GPU-hours over the plan's x the
    price change, and a commitment left unused."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=FOCUS_COLUMNS)
    w.writeheader()
    for i, (usd, r) in enumerate(zip(planned_billed, gpu_ratio, strict=True)):
        day, end = f"2027-{i + 1:02d}-01T00:00:00Z", f"2027-{i + 2:02d}-01T00:00:00Z"
        w.writerow(
            {
                "BilledCost": f"{usd * r * price:.2f}",
                "EffectiveCost": "",
                "BillingCurrency": "USD",
                "ChargeCategory": "Usage",
                "ChargePeriodStart": day,
                "ChargePeriodEnd": end,
                "ServiceName": "Amazon Elastic Compute Cloud",
                "ProviderName": "AWS",
                "SkuId": "p4d.24xlarge",
                "CommitmentDiscountName": "",
                "CommitmentDiscountStatus": "",
            }
        )
        w.writerow(
            {
                "BilledCost": f"{UNUSED:.2f}",
                "EffectiveCost": f"{UNUSED:.2f}",
                "BillingCurrency": "USD",
                "ChargeCategory": "Usage",
                "ChargePeriodStart": day,
                "ChargePeriodEnd": end,
                "ServiceName": "Savings Plans",
                "ProviderName": "AWS",
                "SkuId": "ComputeSavingsPlans",
                "CommitmentDiscountName": "sp-2027",
                "CommitmentDiscountStatus": "Unused",
            }
        )
    path.write_text(buf.getvalue())


def _case(planned: Path, name: str, more: float, price: float) -> tuple[Path, Path]:
    report = planned / "report"
    p = plan_files.load(report)
    jobs = _planned_jobs(report)
    log, bill = planned / f"{name}.sacct", planned / f"{name}.focus.csv"
    _sacct(jobs, 3, more, log)
    used = usage.of(_read(log), p)
    ratio = [used.gpu_hours[i] / p.gpu_hours[i] for i in range(3)]
    _bill([float(x) for x in p.billed()[:3]], ratio, price, bill)
    return log, bill


def _read(log: Path) -> TraceJobs:
    from tco.simulator.workload.traces import read

    return read(log, "sacct")[0]


def test_each_variance_to_the_cent_and_the_forecast_moves_the_right_way(planned: Path) -> None:
    report = planned / "report"
    p = plan_files.load(report)
    log, bill = _case(planned, "more", MORE, PRICE)
    book = PriceBook("snapshot")
    t, f = follow(report, log, "sacct", bill, book=book, through=THROUGH)
    assert t.recorded == 3
    used = usage.of(_read(log), p)
    for i, m in enumerate(t.months):
        # More arrivals: the log's jobs are the plan's and half of them again.
        planned_jobs = p.jobs[i]
        assert m.planned_jobs == planned_jobs
        assert m.actual_jobs == used.jobs[i] and m.actual_jobs > planned_jobs * 1.4
        # The bill: compute at the usage's GPU-hours and 10 % dearer, plus the commitment.
        compute = float(p.billed()[i]) * used.gpu_hours[i] / p.gpu_hours[i] * PRICE
        want = round(compute, 2) + UNUSED + float(p.unbilled()[i])
        assert m.actual_cash_usd == pytest.approx(want, abs=0.005)
        assert m.variance_usd == pytest.approx(
            want - float(p.billed()[i] + p.unbilled()[i]), abs=0.005
        )
        # Waits as the log records them: the plan's own (each job started when it did).
        assert m.actual_p95_wait_h == pytest.approx(m.planned_p95_wait_h, abs=1e-3)
    # The unused commitment is named, with what it will waste by the horizon's end.
    (w,) = f.waste
    assert w.name == "sp-2027" and w.so_far_usd == pytest.approx(3 * UNUSED)
    assert w.to_end_usd == pytest.approx(9 * UNUSED)
    # The level with the growth held: the Gamma-Poisson conjugate, the plan weighing as
    # PRIOR_MONTHS months, to the grid's spacing.
    seen, expect = float(t.usage.jobs[:3].sum()), float(p.jobs[:3].sum())
    a = PRIOR_MONTHS * expect / 3
    held = fit(p.jobs, t.usage.jobs, 3, growth_sd=0.0)
    qs = (0.1, 0.5, 0.9)
    conjugate = gamma.ppf(qs, a + seen, scale=1 / (a + expect))
    assert weighted_quantiles(held.future(p.jobs, 3), held.weight, qs) == pytest.approx(
        conjugate, rel=2e-3
    )
    # Halfway from the plan (1) to the records (1.5): three months against the plan's three;
    # the growth uncertain too, so the months to come spread wider than the level alone.
    assert f.rate[0] < f.rate[1] < f.rate[2] and f.rate[1] == pytest.approx(1.25, abs=0.04)
    assert f.rate[2] - f.rate[0] > conjugate[2] - conjugate[0]
    assert abs(f.growth[1]) < 0.01  # the excess is even across the months: no growth in it
    assert f.price_ratio == pytest.approx(PRICE, abs=0.01)  # the commitment apart
    # The same plan tracked on usage and bill as planned: the odds of an overrun fall.
    log0, bill0 = _case(planned, "asplanned", 0.0, 1.0)
    _, f0 = follow(report, log0, "sacct", bill0, book=book, through=THROUGH)
    assert f0.rate[1] == pytest.approx(1.0, abs=0.05)
    assert f.over_budget > 0.95 and f.over_budget > f0.over_budget
    assert f.total_usd > f0.total_usd > 0
    assert math.isclose(f.budget_usd, p.total_usd)


def test_the_growth_fit_recovers_a_known_growth_and_its_spread() -> None:
    """Two years of records growing 3 % a month over a flat plan: the posterior's growth is
    the maximum-likelihood one (exact counts: the Poisson score is zero at the true growth)
    and its spread the Laplace approximation's: the inverse of the information matrix of
    level and growth (sum n, sum n x, sum n x^2, plus the priors' curvatures)."""
    months = np.arange(24)
    planned = np.full(24, 1000.0)
    seen = 1000.0 * 1.03**months
    f = fit(planned, seen, 24)
    low, mid, high = f.growth_quantiles((0.1, 0.5, 0.9))
    assert mid == pytest.approx(0.03, abs=0.002)  # the prior (0 +- 2 %) barely pulls
    x = months - f.centre
    info = np.array(
        [[seen.sum() + f.prior_a, seen @ x], [seen @ x, seen @ x**2 + 1 / f.growth_sd**2]]
    )
    sd = math.sqrt(np.linalg.inv(info)[1, 1])
    z = 1.2815515655446004  # the normal's 90th percentile
    assert (math.log1p(high) - math.log1p(low)) / (2 * z) == pytest.approx(sd, rel=0.05)


def test_rising_and_falling_records_move_the_growth_and_the_work_to_come_apart() -> None:
    """The same three months' total, rising or falling: the growth takes the sign of the
    trend, and the work to come (nine months more) is more after a rise than after a fall."""
    planned = np.full(12, 400.0)
    rising, falling = np.array([400.0, 500.0, 600.0]), np.array([600.0, 500.0, 400.0])
    up, down = fit(planned, rising, 3), fit(planned, falling, 3)
    assert up.growth_quantiles((0.5,))[0] > 0.01 > -0.01 > down.growth_quantiles((0.5,))[0]
    volume = [weighted_quantiles(g.future(planned, 3), g.weight, (0.5,))[0] for g in (up, down)]
    assert volume[0] > 1.25 > volume[1]


def test_a_mix_the_search_composed_is_made_again_and_tracked(tmp_path: Path) -> None:
    """A plan recommending a mix (not a listed option): the forecast makes it again from the
    parts summary.json keeps, and made again it costs what the plan says, to the cent (the
    same seed, the same jobs); tracked on the plan's own jobs, the forecast is the plan's."""
    (tmp_path / "small.yaml").write_text(SMALL_MIX)
    report = tmp_path / "report"
    main(
        [
            "simulate",
            str(tmp_path / "small.yaml"),
            "--out",
            str(report),
            *PLAN_FLAGS,
        ]
    )
    book = PriceBook("snapshot")
    p = plan_files.load(report)
    assert p.option.startswith("mix: ") and [r for r, _, _ in p.mix_parts] == ["base", "overflow"]
    base = scenario_of(p, None, book)
    made = rebuilt(base.scenario.options, p.option, p.mix_parts, p.mix_wait_h)
    assert made is not None
    again = revised(base, book, lambda data: data["options"].append(made.model_dump()))
    cash = play_named(again, p.option).ledger.cash
    assert sum(float(v.sum()) for v in cash.values()) == pytest.approx(p.total_usd, abs=0.01)
    log = tmp_path / "usage.sacct"
    _sacct(_planned_jobs(report, p.option), 3, 0.0, log)
    _, f = follow(report, log, "sacct", None, book=book, through=THROUGH)
    assert f.rate[1] == pytest.approx(1.0, abs=0.1)
    assert f.total_usd == pytest.approx(p.total_usd, rel=0.1)


def test_fail_if_exits_1_past_the_line_and_0_before_it(
    planned: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, bill = _case(planned, "gate", MORE, PRICE)
    # A job from before the plan's start and a charge after its horizon: counted nowhere, said.
    early = "0|COMPLETED|2026-12-30T00:00:00|2026-12-30T00:00:00|2026-12-30T01:00:00|gres/gpu=8"
    log.write_text(log.read_text() + early + "\n")
    late = bill.read_text().splitlines()[-1].replace("2027-03-01", "2028-06-01")
    bill.write_text(bill.read_text() + late + "\n")
    base = [
        "track",
        str(planned / "report"),
        "--usage",
        str(log),
        "--bill",
        str(bill),
        "--through",
        THROUGH,
        "--prices",
        "snapshot",
    ]
    with pytest.raises(SystemExit) as exc:
        main([*base, "--fail-if", "forecast.cash > +5%", "--out", str(planned / "t")])
    assert exc.value.code == 1
    out, err = capsys.readouterr()
    assert out.startswith("Forecast: $") and "odds of landing over it" in out
    assert "Commitment sp-2027 is under-used" in out
    assert "1 job submitted before, 1 bill row charged outside" in " ".join(out.split())
    assert "--fail-if forecast.cash > +5%" in err
    main([*base, "--fail-if", "forecast.cash > +500%"])  # returns: exit 0
    doc = json.loads((planned / "t" / "track.json").read_text())
    page = (planned / "t" / "track.html").read_text()
    assert "<html" in page and "Forecast: $" in page and "2027-03" in page
    assert doc["recorded_months"] == 3 and len(doc["months"]) == 12
    assert doc["left_out"] == {
        "jobs_before_start": 1,
        "jobs_after_horizon": 0,
        "jobs_after_a_gap": 0,
        "bill_rows_outside": 1,
    }
    assert [m["kind"] for m in doc["months"]] == ["actual"] * 3 + ["forecast"] * 9
    rows = list(csv.DictReader(io.StringIO((planned / "t" / "track.csv").read_text())))
    assert np.isclose(float(rows[0]["actual_cash_usd"]), doc["months"][0]["actual_cash_usd"])


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("BilledCost,ChargePeriodStart\n1,2027-01-01\n", "lacks ChargeCategory, BillingCurrency"),
        (",".join(FOCUS_COLUMNS[:5]) + "\n1,,EUR,Usage,2027-01-01\n", "export the bill in USD"),
        (",".join(FOCUS_COLUMNS[:5]) + "\nx,,USD,Usage,2027-01-01\n", "row 2"),
        (",".join(FOCUS_COLUMNS[:5]) + "\n1,,USD,Refund,2027-01-01\n", "give one of Usage"),
    ],
)
def test_a_bad_bill_is_one_line_naming_the_file_and_the_column(
    planned: Path, text: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = planned / "bad.csv"
    bad.write_text(text)
    log, _ = _case(planned, "badbill", 0.0, 1.0)
    with pytest.raises(SystemExit) as exc:
        main(["track", str(planned / "report"), "--usage", str(log), "--bill", str(bad)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(bad) in err and says in err


def test_focus_reads_the_charge_categories_and_the_months() -> None:
    text = (
        ",".join(FOCUS_COLUMNS) + "\n"
        "10.5,10.5,USD,Usage,2027-02-03T00:00:00Z,,EC2,AWS,x,,\n"
        "-2.25,,USD,Credit,2027-02-10,,EC2,AWS,x,,\n"
        "99,,USD,Purchase,2026-12-01,,SP,AWS,x,,\n"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "b.csv"
        f.write_text(text)
        b = focus.read(f, ("2027-01", "2027-02"))
    assert list(b.billed) == [0.0, 8.25] and b.outside == 1 and b.recorded == 2
    assert b.by_category["Credit"][1] == -2.25 and b.providers == ("AWS",)


FOCUS_FIXTURES = ROOT / "tests" / "fixtures" / "focus"


@pytest.mark.parametrize("provider", ["aws", "azure", "gcp"])
def test_focus_bills_of_aws_azure_and_gcp_shapes_are_read(provider: str) -> None:
    """Bills generated by focus-data-toolkit in each provider's shape (fixtures/focus/README.md):
    the month's BilledCost, each charge category's and each unused commitment's, against a plain
    sum of the file."""
    path = FOCUS_FIXTURES / f"focus_1_2_cost_and_usage_{provider}.csv"
    b = focus.read(path, ("2026-04", "2026-05"))
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert b.rows == len(rows) == 40 and b.recorded == 2 and b.billed[0] == 0
    assert b.billed[1] == pytest.approx(sum(float(r["BilledCost"]) for r in rows))
    for charge, usd in b.by_category.items():
        want = sum(float(r["BilledCost"]) for r in rows if r["ChargeCategory"] == charge)
        assert usd[1] == pytest.approx(want)
    unused = [r for r in rows if r["CommitmentDiscountStatus"] == "Unused"]
    assert sum(u[1] for u in b.unused.values()) == pytest.approx(
        sum(float(r["EffectiveCost"]) for r in unused)
    )
    assert len(b.providers) == 1


def test_the_plan_as_focus_has_the_providers_columns_and_reads_back_to_the_cent(
    planned: Path, tmp_path: Path
) -> None:
    """--format focus: every column the providers' FOCUS 1.2 files have, the values FOCUS
    requires, and each option's rows read back as a bill give its planned cash a month."""
    main(
        [
            "simulate",
            str(ROOT / "scenarios" / "lab.yaml"),
            "--out",
            str(tmp_path / "lab"),
            "--quiet",
            "--format",
            "json,focus",
            "--prices",
            "snapshot",
            "--odds",
            "0",
        ]
    )
    text = (tmp_path / "lab" / "focus.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    header = text.splitlines()[0].split(",")
    for provider in ("aws", "azure", "gcp"):
        theirs = (FOCUS_FIXTURES / f"focus_1_2_cost_and_usage_{provider}.csv").read_text()
        assert set(theirs.splitlines()[0].split(",")) <= set(header)
    for r in rows:
        assert r["ChargeCategory"] in focus.CHARGE_CATEGORIES
        for column in (
            "BilledCost",
            "EffectiveCost",
            "BillingCurrency",
            "ChargePeriodStart",
            "ChargePeriodEnd",
            "ProviderName",
            "ServiceName",
            "ServiceCategory",
            "ServiceSubcategory",
            "BillingAccountType",
            "ChargeFrequency",
        ):
            assert r[column] != "", (column, r)
        if r["ChargeCategory"] == "Purchase":
            assert r["ChargeFrequency"] in ("One-Time", "Recurring")
    # Who bills each row, as the kinds declare what they rent: a hybrid's burst by its cloud,
    # its servers' costs by the owner; an option renting on AWS alone, by AWS.
    burst = {
        (r["x_TcoCategory"], r["ProviderName"])
        for r in rows
        if r["x_TcoOption"] == "own-8xA40-burst"
    }
    assert {p for _, p in burst} == {"AWS", "Owned (on premises)"}
    assert all((p == "AWS") == category(c).billed for c, p in burst), burst
    assert {r["ProviderName"] for r in rows if r["x_TcoOption"] == "p4d-on-demand"} == {"AWS"}
    summary = json.loads((tmp_path / "lab" / "summary.json").read_text())
    months = tuple(summary["months"])
    statuses = {r["CommitmentDiscountStatus"] for r in rows if r["CommitmentDiscountId"]}
    assert statuses == {"", "Used", "Unused"}  # a Savings Plan: its purchase, used and unused
    for o in summary["options"]:
        mine = [r for r in rows if r["x_TcoOption"] == o["name"]]
        one = tmp_path / f"{o['name']}.csv"
        w = io.StringIO()
        writer = csv.DictWriter(w, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(mine)
        one.write_text(w.getvalue())
        billed = focus.read(one, months).billed
        cash = o["monthly"]["cash_usd"]
        expected = np.sum([np.asarray(v, dtype=float) for v in cash.values()], axis=0)
        assert np.allclose(billed, expected, atol=0.005 * 12), o["name"]


def test_a_plan_another_scenario_or_a_log_of_other_months_is_refused(
    planned: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad inputs name the file and what would do: the forecast replays the plan's own scenario
    (SHA-256), a log must hold the plan's months, a plan folder needs its jobs.csv."""
    log, _ = _case(planned, "refused", 0.0, 1.0)
    edited = tmp_path / "tracked.yaml"
    edited.write_text(SCENARIO.replace("seed: 7", "seed: 8"))
    base = ["track", str(planned / "report"), "--usage"]
    cases = [
        ([*base, str(log), "--scenario", str(edited)], "not the file the plan was made from"),
        ([*base, str(log), "--option", "nope"], "'nope' is not an option of the plan"),
        ([*base, str(log), "--fail-if", "p4d.cash > 5"], "tco track knows forecast.cash"),
    ]
    old = tmp_path / "old.sacct"
    old.write_text(
        "JobID|State|Submit|Start|End|AllocTRES\n"
        "1|COMPLETED|2020-01-01T00:00:00|2020-01-01T01:00:00|2020-01-01T02:00:00"
        "|gres/gpu=8\n"
    )
    cases.append(([*base, str(old)], "last record in 2020-01, before the plan's start"))
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("summary.json", "monthly.csv"):  # no jobs.csv
        (bare / name).write_text((planned / "report" / name).read_text())
    cases.append((["track", str(bare), "--usage", str(log)], "jobs.csv"))
    for args, says in cases:
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert exc.value.code == 2, args
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and says in err, repr(err)
