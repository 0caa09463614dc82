"""Accounting logs as clusters export them (issue 30): sacct with its header in any order and
after comments, headerless with its --format list, steps folded into their job, a CPU-only log
accounted for; LSF's lsb.acct and PBS accounting logs. Fixtures (tests/fixtures/traces) are
written from each format's documentation: sacct(1), IBM Spectrum LSF 10.1 "lsb.acct", PBS
Professional Reference Guide "Accounting Log"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.simulator.core.errors import ScenarioError
from tco.simulator.workload.traces import read
from tests.conftest import FIXTURES

TRACES = FIXTURES / "traces"
ORDER = "Partition,AllocTRES,End,Start,Submit,State,JobID,Elapsed,ReqMem"
# 1001: 2 GPUs, 1 h (three steps folded in); 1002: CANCELLED by 501, 8 GPUs, 30 min; 1003
# pending; 1004 CPU only; 1005 known only by its two steps (4 GPUs, 2 h); 1006 zero length;
# 1007 a truncated line.
WANT = [("1001", 3600.0, 2), ("1002", 1800.0, 8), ("1005", 7200.0, 4)]


@pytest.mark.parametrize(
    ("name", "sacct_format"),
    [
        ("sacct_jobid_first.txt", None),
        ("sacct_state_first.txt", None),  # sacct --format State,JobID,...
        ("sacct_comment_header.txt", None),  # after a blank line and # comments
        ("sacct_headerless.txt", ORDER),  # --noheader, with its --format list
        ("sacct_comment_header.txt", ORDER),  # a list given for a file with a header
    ],
)
def test_sacct_in_any_order_reads_the_same_jobs(name: str, sacct_format: str | None) -> None:
    jobs, report = read(TRACES / name, "sacct", sacct_format=sacct_format)
    got = list(zip(jobs.job_id, jobs.duration_s.tolist(), jobs.gpus.tolist(), strict=True))
    assert got == WANT
    assert jobs.submit_s[0] == 1793610000.0  # 2026-11-02T09:00:00Z
    assert (report.held, report.with_gpus, report.jobs) == (6, 4, 3)
    assert report.steps_folded == 5 and report.from_steps == 1
    assert report.skipped == {
        "pending without a time limit (their length is unknown)": 1,  # no Timelimit field
        "of zero duration": 1,
        "without GPUs": 1,
    }
    assert report.bad_count == (0 if name == "sacct_headerless.txt" else 1)  # 1007, truncated


def test_a_headerless_file_of_no_known_layout_is_refused_with_the_flag_to_give() -> None:
    with pytest.raises(ScenarioError) as e:
        read(TRACES / "sacct_headerless.txt", "sacct")
    msg = str(e.value)
    assert "9 fields matches no layout" in msg and "--sacct-format" in msg and "\n" not in msg
    with pytest.raises(ScenarioError, match=r"unknown sacct field\(s\) 'Strat'"):
        read(TRACES / "sacct_headerless.txt", "sacct", sacct_format=ORDER.replace("Start", "Strat"))


def test_a_cpu_only_log_is_accounted_for_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    from tco.cli import main

    try:
        main(["workload", "stats", str(TRACES / "sacct_cpu_only.txt"), "--format", "sacct"])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert code == 0  # 0.7.0: "no job to replay", exit 2
    assert "0 of 2 jobs asked for GPUs: nothing to replay on GPU options" in out
    assert "2 jobs in the file, 0 of them with GPUs" in err and "2 without GPUs" in err
    with pytest.raises(ScenarioError, match=r"no job to replay: .*2 jobs in the file, 0 of them"):
        read(TRACES / "sacct_cpu_only.txt", "sacct")  # a replay stays an error


def test_lsf_job_finish_records() -> None:
    """101: 2 hosts x 4 GPUs (LSF's effectiveResReq, rusage[ngpus_physical=4.00]), 2 h; 102:
    -gpu num=1 on one host (4*gpu03), 1 h, a record that stops after the command; 103 a CPU
    job; 104 never dispatched; a JOB_RESIZE record; a truncated JOB_FINISH."""
    jobs, report = read(TRACES / "lsb.acct", "lsf")
    got = list(zip(jobs.job_id, jobs.duration_s.tolist(), jobs.gpus.tolist(), strict=True))
    assert got == [("101", 7200.0, 8), ("102", 3600.0, 1)]
    assert jobs.submit_s.tolist() == [1762074000.0, 1762074100.0]
    assert jobs.status == ["COMPLETED", "COMPLETED"]
    # held: the jobs the file is known to hold; the unreadable record is counted apart.
    assert (report.held, report.with_gpus, report.jobs, report.bad_count) == (4, 2, 2, 1)
    assert report.skipped["not started (startTime 0)"] == 1
    assert report.skipped["records other than a job's end (JOB_FINISH)"] == 1
    assert report.skipped["without GPUs"] == 1
    assert report.bad_lines[0] == (6, "the record ends early (truncated)")


def test_pbs_end_records() -> None:
    """1201: select=1:ncpus=8:ngpus=4, 2 h; 1202: 2 chunks x 4 GPUs + 1 x 2, 1 h, a quoted job
    name with a space, exit 1; 1203: Resource_List.ngpus=2; 1204 CPU; 1205 deleted before it
    started; Q, S, D records; a truncated line."""
    jobs, report = read(TRACES / "pbs_accounting.txt", "pbs")
    got = list(zip(jobs.job_id, jobs.duration_s.tolist(), jobs.gpus.tolist(), strict=True))
    assert got == [("1201.pbs01", 7200.0, 4), ("1202.pbs01", 3600.0, 10), ("1203.pbs01", 1800.0, 2)]
    assert jobs.status == ["COMPLETED", "FAILED", "COMPLETED"]
    assert (report.held, report.with_gpus, report.jobs, report.bad_count) == (5, 3, 3, 1)
    assert report.skipped["records other than a job's end (E)"] == 3
    assert report.skipped["not started (no start time)"] == 1


def test_a_scenario_replays_an_lsf_log_and_a_headerless_sacct(tmp_path: Path) -> None:
    from tco.simulator.run import run
    from tco.simulator.scenario.model import loads_scenario

    for name, extra in (
        ("lsb.acct", "format: lsf"),
        ("sacct_headerless.txt", f"format: sacct, sacct_format: '{ORDER}'"),
    ):
        (tmp_path / name).write_bytes((TRACES / name).read_bytes())
        text = f"""
name: t
start: 2027-01
horizon_months: 1
search: none
workload:
  trace: {{file: {name}, {extra}, source_gpu: A100 SXM 80GB}}
options:
  - {{name: od, kind: on_demand, instance_type: p4d.24xlarge}}
"""
        r = run(loads_scenario(text, str(tmp_path / "s.yaml")), file=str(tmp_path / "s.yaml"))
        assert len(r.jobs) == (2 if name == "lsb.acct" else 3)


HPC_FORMAT = (
    "State,JobID,ReqCPUS,ReqMem,ReqNodes,Constraints,Submit,Eligible,Start,Elapsed,Suspended,End,"
    "ExitCode,DerivedExitCode,AllocNodes,NCPUS,MaxDiskRead,MaxDiskWrite,MaxPages,MaxRSS,"
    "MaxVMSize,CPUTime,UserCPU,SystemCPU,TotalCPU,Partition"
)


def _hpc_line(state: str, job: str, mem: str = "100M", disk: str = "") -> str:
    values = [
        state,
        job,
        "1",
        mem,
        "1",
        "",
        "2026-11-02T09:00:00",
        "2026-11-02T09:00:00",
        "2026-11-02T09:01:00",
        "00:05:16",
        "00:00:00",
        "2026-11-02T09:06:16",
        "0:125",
        "0:0",
        "1",
        "1",
        disk,
        disk,
        "",
        "",
        "",
        "00:05:16",
        "01:07.402",
        "01:03.182",
        "02:10.584",
        "part1",
    ]
    return "|".join(values)


def test_a_headerless_26_field_export_is_not_misread_as_xdmod(tmp_path: Path) -> None:
    """0.7.0 read a 26-field export of another order as Open XDMoD's ('unknown state
    '0.07M''). Now it is refused, and read with its own --format list: no AllocTRES, so every
    job is accounted as without GPUs known, steps (with sacct's memory units) folded in."""
    f = tmp_path / "sacct-output.txt"
    f.write_text(
        "\n".join(
            [
                _hpc_line("OUT_OF_MEMORY", "67108865"),
                _hpc_line("OUT_OF_MEMORY", "67108865.batch", mem="", disk="0.07M"),
                _hpc_line("COMPLETED", "67108866", mem="4Gn"),
                _hpc_line("CANCELLED by 0", "67108867", mem="2Gc"),
            ]
        )
        + "\n"
    )
    with pytest.raises(ScenarioError, match="26 fields matches no layout"):
        read(f, "sacct")
    jobs, report = read(f, "sacct", sacct_format=HPC_FORMAT, allow_empty=True)
    assert len(jobs) == 0 and (report.held, report.with_gpus, report.steps_folded) == (3, 0, 1)
    assert report.skipped == {
        "without GPUs known (the export has no AllocTRES: add it to --format)": 3
    }


PEER = (
    "State,JobID,ReqCPUS,ReqMem,ReqNodes,Constraints,Submit,Eligible,Start,Elapsed,Suspended,End,"
    "ExitCode,DerivedExitCode,AllocNodes,NCPUS,MaxDiskRead,MaxDiskWrite,MaxPages,MaxRSS,"
    "MaxVMSize,CPUTime,UserCPU,SystemCPU,TotalCPU,Partition"
)


def test_a_parsable2_export_whose_lines_lack_their_last_empty_field_reads(tmp_path: Path) -> None:
    """aws-samples/hpc-cost-simulator's test export (fixtures/sacct): 846 of its 878 lines end
    without their last field (Partition, empty). 0.12.0 read its 483 jobs, 0.19.0 none (every
    such line "truncated"). A field tco reads is never taken as empty: a line lacking one is
    still unreadable."""
    path = FIXTURES / "sacct" / "hpc-cost-simulator_sacct-output-v2.txt"
    _, report = read(path, "sacct", sacct_format=PEER, allow_empty=True)
    assert (report.rows, report.held, report.steps_folded, report.bad_count) == (878, 483, 395, 0)
    # A line cut before End (a field tco reads) is still refused as truncated.
    cut = path.read_text().splitlines()
    short = tmp_path / "cut.txt"
    short.write_text("\n".join([*cut[:4], "|".join(cut[4].split("|")[:11])]) + "\n")
    _, report = read(short, "sacct", sacct_format=PEER, allow_empty=True)
    assert report.bad_count == 1 and "truncated" in report.bad_lines[0][1]
