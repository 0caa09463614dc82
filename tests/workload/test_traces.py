"""Recorded workloads: the ITP trace against its published totals, real Slurm lines, round trips,
garbage rows, and replay on every option."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tco.simulator.core.errors import ScenarioError
from tco.simulator.run import run
from tco.simulator.scenario.model import Scenario, validate
from tco.simulator.workload.traces import (
    XDMOD_FIELDS,
    LoadReport,
    TraceJobs,
    expand_array,
    gpus_from_tres,
    parse_elapsed,
    read,
    read_sacct,
    write_normalised,
)
from tests.conftest import FIXTURES, ROOT

ITP = ROOT / "scenarios" / "traces" / "itp_elasticflow_2021.csv.gz"
SACCT = FIXTURES / "sacct"

# shared/data/traces/README.md: jobs / GPU-hours per cluster.
ITP_CLUSTERS = {
    "c01": (1_595, 22_740),
    "c02": (5_778, 123_748),
    "c03": (3_011, 165_443),
    "c04": (15_802, 705_683),
    "c05": (3_629, 14_303),
    "c06": (2_396, 123_879),
    "c07": (12_699, 366_800),
    "c08": (13_047, 67_100),
    "c09": (11_134, 39_001),
    "c10": (260, 4_023),
}


ReadTrace = tuple[TraceJobs, LoadReport]


@pytest.fixture(scope="module")
def itp() -> ReadTrace:
    return read(ITP, "csv")


def test_itp_totals(itp: ReadTrace) -> None:
    jobs, report = itp
    assert len(jobs) == 69_351 and report.bad_count == 0
    assert jobs.gpu_hours() == pytest.approx(1_632_719.7, abs=0.05)
    sizes, counts = np.unique(jobs.gpus, return_counts=True)
    assert dict(zip(sizes.tolist(), counts.tolist(), strict=True)) == {
        1: 57_682,
        2: 1_483,
        4: 2_371,
        8: 7_009,
        16: 381,
        32: 354,
        64: 71,
    }


def test_itp_per_cluster_gpu_hours(itp: ReadTrace) -> None:
    jobs, _ = itp
    cluster = np.asarray(jobs.cluster)
    for name, (n, gpu_hours) in ITP_CLUSTERS.items():
        sel = cluster == name
        assert int(sel.sum()) == n, name
        got = float((jobs.duration_s[sel] * jobs.gpus[sel]).sum() / 3600)
        assert round(got) == gpu_hours, name


def _itp_scenario(tmp_path: Path, **trace_extra: object) -> Scenario:
    data = {
        "name": "itp-unlimited",
        "start": "2027-01",
        "horizon_months": 3,
        "seed": 1,
        "workload": {
            "trace": {
                "file": str(ITP),
                "source_gpu": "V100 SXM2 32GB",
                "comm_share": 0.0,
                **trace_extra,
            }
        },
        "options": [
            {
                "name": "od",
                "kind": "on_demand",
                "instance_type": "p3dn.24xlarge",
                "virtualization_overhead": 0.0,
            }
        ],
    }
    return validate(data, str(tmp_path / "s.yaml"))


def test_itp_unlimited_on_demand_delivers_exactly_the_trace(tmp_path: Path, itp: ReadTrace) -> None:
    trace_jobs, _ = itp
    r = run(_itp_scenario(tmp_path))
    o = r.options[0]
    assert len(r.jobs) == 69_351
    assert o.work.delivered == pytest.approx(1_632_719.74, abs=0.01)
    assert o.work.unfinished == 0 and o.work.cannot_run == 0
    # The same total from the hourly usage rebuilt from intervals (GPU-hours actually used).
    assert o.ledger.gpu_hours_busy.sum() == pytest.approx(1_632_719.74, abs=0.01)
    # Every job starts at its submit time (no quota, no provisioning delay).
    np.testing.assert_array_equal(o.runs.start_h, r.jobs.arrival_h)
    np.testing.assert_allclose(np.sort(r.jobs.arrival_h), trace_jobs.submit_s / 3600.0)
    assert o.waits.max_h == 0.0


def test_provisioning_delay_shifts_every_start(tmp_path: Path) -> None:
    sc = _itp_scenario(tmp_path, clusters=["c10"])
    sc = sc.model_copy(
        update={"options": [sc.options[0].model_copy(update={"provisioning_delay_minutes": 6.0})]}
    )
    r = run(sc)
    np.testing.assert_allclose(r.options[0].runs.start_h - r.jobs.arrival_h, 0.1)


def test_filters_scaling_repeat_and_growth(tmp_path: Path) -> None:
    base = run(_itp_scenario(tmp_path, clusters=["c10"]))
    assert len(base.jobs) == 260
    big = run(_itp_scenario(tmp_path, clusters=["c10"], min_gpus=8))
    assert (big.jobs.gpus >= 8).all() and 0 < len(big.jobs) < 260
    fast = run(_itp_scenario(tmp_path, clusters=["c10"], scale_arrivals=2.0))
    np.testing.assert_allclose(fast.jobs.arrival_h.max(), base.jobs.arrival_h.max() / 2)
    rep = run(_itp_scenario(tmp_path, clusters=["c10"], repeat=True))
    assert len(rep.jobs) > 260 and rep.jobs.arrival_h.max() < rep.horizon_h
    assert any(i.endswith("#r2") for i in rep.jobs.job_ids())
    grow = run(
        _itp_scenario(
            tmp_path,
            clusters=["c10"],
            repeat=True,
            growth_per_month=0.5,
        )
    )
    assert len(grow.jobs) > len(rep.jobs) * 1.2
    window = run(_itp_scenario(tmp_path, clusters=["c10"], start_day=10, end_day=20))
    assert 0 < len(window.jobs) < 260 and window.jobs.arrival_h.max() < 10 * 24


# ------------------------------------------------------------------ Slurm


def test_alloc_tres_gpu_count_table() -> None:
    # Open XDMoD's own test table: AllocTRES -> GPU count.
    for tres, expected in json.loads((SACCT / "xdmod_alloc-tres-gpu-count.json").read_text()):
        assert gpus_from_tres(tres)[0] == expected, tres
    assert gpus_from_tres("billing=1,cpu=1,gres/gpu:p100=1,mem=125G,node=1") == (1, "p100")


def test_typed_and_untyped_gres_are_not_added() -> None:
    lines = (SACCT / "slurm-mail_issue142_alloctres.psv").read_text().splitlines()[1:]
    jobs = {line.split("|")[0]: gpus_from_tres(line.split("|")[1]) for line in lines}
    assert jobs["8117657"] == (1, "a100_3g.20gb")  # MIG slice listed with gres/gpu=1
    assert jobs["8117678"] == (1, "h100")


def test_sacct_header_without_times_is_a_clear_error() -> None:
    with pytest.raises(ScenarioError, match="lacks State, Start, End \\(or Elapsed\\)"):
        read_sacct(SACCT / "slurm-mail_issue142_alloctres.psv", "sacct")


def test_xdmod_accounting_lines() -> None:
    jobs, _ = read_sacct(SACCT / "xdmod_accounting-logs.log", "xdmod", keep_empty=True)
    assert jobs.job_id == ["4103947", "4107166", "4107219", "5692623"]
    assert jobs.gpus.tolist() == [0, 0, 0, 2]
    assert jobs.status == ["TIMEOUT", "CANCELLED", "COMPLETED", "COMPLETED"]  # 'CANCELLED by N'
    assert jobs.duration_s.tolist() == [3 * 86400, parse_elapsed("2-22:03:04"), 14 * 3600 + 49, 0]
    assert jobs.cluster[0] == "ub-hpc"
    replay, rep = read_sacct(SACCT / "xdmod_accounting-logs.log", "xdmod")
    assert len(replay) == 0
    assert rep.skipped == {"without GPUs": 3, "of zero duration": 1}


def test_job_arrays_are_expanded() -> None:
    jobs, _ = read_sacct(
        SACCT / "xdmod_accounting-logs-with-job-arrays.log", "xdmod", keep_empty=True
    )
    assert jobs.job_id[:4] == ["4103947_100", "4103947_1", "4103947_2", "4103947_3"]
    assert len(jobs) == 1 + 3 + 2 + 4 + 4 + 9
    assert expand_array("4103947_[9-11,13,16-20]") == [
        f"4103947_{i}" for i in (9, 10, 11, 13, 16, 17, 18, 19, 20)
    ]


def test_pending_and_running_are_kept_as_demand_or_skipped_and_counted() -> None:
    f = SACCT / "xdmod_non-ended-job-state.log"
    jobs, report = read_sacct(f, "xdmod", keep_empty=True)
    # RUNNING for its Elapsed so far (22:32:22); PENDING from its submit for its Timelimit (3 d).
    assert jobs.status == ["RUNNING", "PENDING"]
    assert jobs.duration_s.tolist() == [22 * 3600 + 32 * 60 + 22.0, 3 * 86400.0]
    assert report.unfinished == {"running": 1, "pending": 1} and not report.skipped
    jobs, report = read_sacct(f, "xdmod", keep_empty=True, keep_unfinished=False)
    assert len(jobs) == 0
    assert report.skipped == {"not started or not ended (pending, running...)": 2}


def test_sacct_with_header_steps_and_bad_lines(tmp_path: Path) -> None:
    f = tmp_path / "sacct.txt"
    f.write_text(
        "JobID|State|Submit|Start|End|Elapsed|AllocTRES|Cluster\n"
        "10|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|2024-01-01T03:00:00|02:00:00|"
        "cpu=8,gres/gpu:a100=4,gres/gpu=4|c\n"
        "10.batch|COMPLETED|2024-01-01T00:00:00|2024-01-01T01:00:00|2024-01-01T03:00:00|02:00:00|"
        "cpu=8,gres/gpu=4|c\n"
        "11|CANCELLED by 42|2024-01-01T00:30:00|2024-01-01T00:30:00|2024-01-01T00:40:00|10:00|"
        "gres/gpu=1|c\n"
        "12|COMPLETED|garbage|2024-01-01T01:00:00|2024-01-01T03:00:00|not-a-time|gres/gpu=1|c\n"
        "13|COMPLETED|only|three\n"
        "14|PENDING|2024-01-01T00:00:00|Unknown|Unknown|00:00|gres/gpu=2|c\n"
    )
    jobs, report = read_sacct(f, "sacct", utc_offset_hours=-5)
    assert jobs.job_id == ["10", "11"]
    assert jobs.gpus.tolist() == [4, 1] and jobs.gpu_type == ["a100", ""]
    assert jobs.duration_s.tolist() == [7200.0, 600.0]
    # Local time at UTC-5: midnight local is 05:00 UTC.
    assert jobs.submit_s[0] == pytest.approx(1704085200.0)
    assert report.steps_folded == 1 and "job steps" not in report.skipped  # folded into 10
    assert report.skipped["pending without a time limit (their length is unknown)"] == 1
    assert report.bad_count == 2 and [n for n, _ in report.bad_lines] == [5, 6]
    assert "line 5" in report.summary() and "line 6" in report.summary()


def test_csv_garbage_rows_are_reported_by_line(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text(
        "job_id,submit_time_s,duration_s,num_gpus,gpu_type,status\n"
        "a,0,3600,1,,\n"
        "b,zero,3600,1,,\n"
        "c,10,-5,1,,\n"
        "d,20,3600\n"
        "e,30,7200,2,,\n"
    )
    jobs, report = read(f, "csv")
    assert jobs.job_id == ["a", "e"]
    assert [n for n, _ in report.bad_lines] == [3, 4, 5]
    assert report.bad_count == 3


def test_csv_missing_column_names_the_closest(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("job,submit_time,duration_s,num_gpus\nx,0,1,1\n")
    with pytest.raises(ScenarioError, match="did you mean 'submit_time'"):
        read(f, "csv")


def _xdmod_with_gpus(tmp_path: Path) -> Path:
    """The recorded XDMoD lines (job arrays included), each given 2 GPUs in AllocTRES: the
    recorded sample has none, and a round trip of no jobs proves nothing."""
    alloc = XDMOD_FIELDS.index("AllocTRES")
    lines = (SACCT / "xdmod_accounting-logs-with-job-arrays.log").read_text().splitlines()
    out = []
    for line in lines:
        parts = line.split("|")
        parts[alloc] = parts[alloc] + ",gres/gpu=2"
        out.append("|".join(parts))
    f = tmp_path / "xdmod_gpus.log"
    f.write_text("\n".join(out) + "\n")
    return f


@pytest.mark.parametrize("fmt", ["csv", "xdmod"])
def test_import_round_trip(tmp_path: Path, fmt: str) -> None:
    src = ITP if fmt == "csv" else _xdmod_with_gpus(tmp_path)
    first, _ = read(src, fmt)
    assert len(first) > (1000 if fmt == "csv" else 6)  # arrays expanded: more jobs than lines
    out = write_normalised(first, tmp_path / "norm.csv")
    again, report = read(out, "csv")
    assert report.bad_count == 0
    assert again.job_id == first.job_id
    np.testing.assert_allclose(again.submit_s, first.submit_s - first.submit_s.min())
    np.testing.assert_array_equal(again.duration_s, first.duration_s)
    np.testing.assert_array_equal(again.gpus, first.gpus)
    assert again.cluster == first.cluster
    assert again.status == first.status


def test_trace_scenario_file_is_relative_and_checked(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(
        "name: x\nstart: 2027-01\nhorizon_months: 1\nworkload:\n  trace:\n"
        "    file: nope.csv\n    source_gpu: A40\noptions:\n"
        "  - {name: od, kind: on_demand, instance_type: g5.xlarge}\n"
    )
    from tco.simulator.scenario.model import load_scenario

    with pytest.raises(ScenarioError, match=r"workload\.trace\.file: no such file 'nope\.csv'"):
        load_scenario(f)
