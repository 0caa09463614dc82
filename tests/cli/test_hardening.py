"""Bad input of every class seen in use gets one line on stderr and exit code 2, never a
traceback, never unbounded work, never a silently wrong number (issue: correctness and
hardening). Each test names the input that once crashed, hung or was accepted."""

from __future__ import annotations

import gzip
import json
import threading
import time
import zipfile
from pathlib import Path

import pytest

from tco.reports import build, spreadsheet
from tco.reports.build import verify_report, write_report
from tco.simulator.core.errors import ScenarioError
from tco.simulator.run import run_file
from tco.simulator.scenario.model import loads_scenario, parse_yaml
from tests.conftest import ROOT, cli, one_line_error

LAB = ROOT / "scenarios" / "lab.yaml"
LAB_TEXT = LAB.read_text()


def mutated(tmp_path: Path, old: str, new: str, name: str = "s.yaml") -> Path:
    assert old in LAB_TEXT, old
    f = tmp_path / name
    f.write_text(LAB_TEXT.replace(old, new, 1))
    return f


# ------------------------------------------------------------------ scenarios

SCENARIO_MUTATIONS = [
    ("start: 2027-01", "start: 9999-01", "start: must be a month YYYY-MM from 2000-01"),
    ("start: 2027-01", "start: 2027-13", "start: must be a month"),
    ("arrivals_per_month: 90", "arrivals_per_month: 1e308", "less than or equal to"),
    ("arrivals_per_month: 90", "arrivals_per_month: true", "valid number (got True)"),
    ("arrivals_per_month: 90", "arrivals_per_month: .inf", "finite number"),
    ("arrivals_per_month: 90", "arrivals_per_month: 1e8", "TCO_MAX_JOBS"),
    ("weights: [0.3, 0.4, 0.3]", "weights: [.inf, 0.4, 0.3]", "finite number"),
    ("sigma: 1.0}", "sigma: 1e308}", "work.sigma"),
    ("usd_per_hour: 32.0", "usd_per_hour: 1e308", "less than or equal to"),
    ("price_as_of: 2025-03-17", "price_as_of: 2027-00", "must be a date"),
    ("servers: 1\n", "servers: 1e9\n", "options[0].servers"),
    ("instance_type: p4d.24xlarge\n\n", "\n", "give one of instance_type (an EC2 type"),
    ("V100 SXM2 32GB, gpu_hours: 150", "V100, gpu_hours: 150", "did you mean 'V100 SXM2 16GB'"),
    # found by the fuzz test: a plan without a rate or discount validated, then could not run
    (
        "    instance_types: *fleet\n    plan: Compute",
        "    instance_types: [g6e.12xlarge]\n    plan: Compute",
        "rate_usd_per_hour: the Compute Savings Plan 1yr",
    ),
]


@pytest.mark.parametrize(("old", "new", "says"), SCENARIO_MUTATIONS)
def test_validate_and_simulate_refuse_the_same_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, says: str
) -> None:
    f = mutated(tmp_path, old, new)
    one_line_error(*cli(["validate", str(f)], capsys), says)
    args = ["simulate", str(f), "--quiet", "--prices", "snapshot", "--out", str(tmp_path / "r")]
    one_line_error(*cli(args, capsys), says)
    assert not (tmp_path / "r").exists()


def test_yaml_nested_ten_thousand_deep_is_one_line() -> None:
    with pytest.raises(ScenarioError, match="nested too deeply"):
        parse_yaml("a: " + "[" * 10_000 + "]" * 10_000, "deep.yaml")


def test_yaml_floats_without_a_dot_are_numbers() -> None:
    assert parse_yaml("a: 1e6\nb: 2.5E-3\nc: '1e6'", "x") == {"a": 1e6, "b": 0.0025, "c": "1e6"}


def test_a_number_in_quotes_is_not_a_number() -> None:
    with pytest.raises(ScenarioError, match="arrivals_per_month: Input should be a valid number"):
        loads_scenario(LAB_TEXT.replace("arrivals_per_month: 90", "arrivals_per_month: '90'"))


# ------------------------------------------------------------------ traces


def _stats(path: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    return cli(["workload", "stats", str(path), "--format", fmt], capsys)


SACCT_HEADER = "JobID|Cluster|Submit|Start|End|Elapsed|State|AllocTRES\n"
SACCT_GOOD = (
    "7|c|2024-01-01T00:00:00|2024-01-01T00:10:00|2024-01-01T01:10:00|01:00:00|COMPLETED|"
    "cpu=4,gres/gpu=2\n"
)


def test_a_one_line_array_of_a_hundred_million_tasks_is_refused_quickly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "array.txt"
    f.write_text(SACCT_HEADER + SACCT_GOOD.replace("7|", "100_[1-100000000]|"))
    t = time.perf_counter()
    one_line_error(*_stats(f, "sacct", capsys), "TCO_MAX_JOBS")
    assert time.perf_counter() - t < 5


def test_a_gzip_bomb_stops_at_the_size_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TCO_MAX_TRACE_MB", "1")
    for fmt, head in (("csv", b"submit_time_s,duration_s,num_gpus\n"), ("sacct", SACCT_HEADER)):
        f = tmp_path / f"bomb.{fmt}.gz"
        head = head if isinstance(head, bytes) else head.encode()
        f.write_bytes(gzip.compress(head + b"\n" * (8 << 20)))
        one_line_error(*_stats(f, fmt, capsys), "TCO_MAX_TRACE_MB")


def test_accounting_logs_are_read_line_by_line_in_bounded_memory(tmp_path: Path) -> None:
    """0.13.0 split a log's whole text into one string per line: a 0.5 MB gzip within the
    text cap reached 4.5 GB, one long line a MemoryError. Now the text is streamed: 400,000
    short lines of an LSF log (1.2 MB of text, 24 MB as a list of str lines, 18 MB as bytes)
    peak at a few MB, and a line longer than any record is refused by name. (Until 0.17.0 a
    million lines of one character, which Python interns: a list of them stayed under the
    bound, and tracemalloc made the million slow.)"""
    import tracemalloc

    from tco.simulator.workload.traces import read
    from tco.simulator.workload.traces.source import MAX_LINE_BYTES

    f = tmp_path / "lsb.acct"
    f.write_bytes(b"xy\n" * 400_000)
    tracemalloc.start()
    with pytest.raises(ScenarioError):  # no job in it: an error, after reading every line
        read(f, "lsf")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 << 20, peak
    long = tmp_path / "long.acct"
    long.write_bytes(b'"JOB_FINISH" ' + b"x" * (MAX_LINE_BYTES + 10) + b"\n")
    with pytest.raises(ScenarioError, match="a line of more than"):
        read(long, "lsf")


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda d: Path("/dev/zero"), "not a regular file"),
        (lambda d: d, "is a directory"),
        (lambda d: _write(d / "x.csv.gz", b"not gzip at all"), "cannot decompress"),
        (lambda d: _write(d / "t.csv.gz", _truncated_gzip()), "truncated"),
        (lambda d: _write(d / "e.csv", b""), "empty"),
        (lambda d: _write(d / "e.txt", b""), "no job to replay"),
    ],
)
def test_unreadable_trace_files_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, says: str
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    fmt = "sacct" if path.suffix == ".txt" else "csv"
    one_line_error(*_stats(path, fmt, capsys), says)


def _truncated_gzip() -> bytes:
    data = gzip.compress(b"submit_time_s,duration_s,num_gpus\n" + b"0,60,1\n" * 50_000)
    return data[: len(data) // 2]


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_etc_passwd_is_not_a_slurm_log(capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(
        *_stats(Path("/etc/passwd"), "sacct", capsys), "matches no layout", "--sacct-format"
    )


def test_a_submit_time_far_in_the_past_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _write(tmp_path / "t.csv", b"submit_time_s,duration_s,num_gpus\n-1e18,60,1\n0,60,1\n")
    one_line_error(*_stats(f, "csv", capsys), "TCO_MAX_TRACE_SPAN_DAYS")


def test_nonsense_rows_are_unreadable_lines_not_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = "x" * 200_000
    rows = [
        "submit_time_s,duration_s,num_gpus,job_id",
        "0,3600,1,good",
        "1,1e308,1,long",
        "2,60,1000000000,wide",
        "3,60,inf,infinite",
        "4,-60,1,negative",
        f'5,60,1,"{huge}"',
    ]
    f = _write(tmp_path / "t.csv", ("\n".join(rows) + "\n").encode())
    code, err = _stats(f, "csv", capsys)
    assert code == 0 and "Traceback" not in err, err
    assert "1 kept from 6 rows" in err and "5 unreadable" in err, err


def test_sacct_negative_gres_and_backward_arrays_are_unreadable_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        SACCT_GOOD,
        SACCT_GOOD.replace("gres/gpu=2", "gres/gpu=-4").replace("7|", "8|"),
        SACCT_GOOD.replace("7|", "9_[5-1]|"),
    ]
    f = _write(tmp_path / "s.txt", (SACCT_HEADER + "".join(lines)).encode())
    code, err = _stats(f, "sacct", capsys)
    assert code == 0 and "1 kept from 3 rows" in err and "2 unreadable" in err, err
    assert "negative GPU count" in err and "runs backwards" in err, err


def test_a_wrong_file_given_as_csv_is_not_echoed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "root:x:0:0:do-not-print-me:/root:/bin/bash"
    f = _write(tmp_path / "t.csv", (secret + "\n" + secret + "\n").encode())
    code, err = _stats(f, "csv", capsys)
    one_line_error(code, err, "not a CSV header")
    assert "do-not-print-me" not in err


def test_a_scenario_trace_that_is_a_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "traces").mkdir()
    f = tmp_path / "s.yaml"
    f.write_text(
        "name: x\nstart: 2027-01\nhorizon_months: 1\nworkload:\n  trace:\n"
        "    file: traces\n    source_gpu: A40\noptions:\n"
        "  - {name: od, kind: on_demand, instance_type: g5.xlarge}\n"
    )
    one_line_error(*cli(["validate", str(f)], capsys), "workload.trace.file", "a folder")


def test_validate_reads_the_trace_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _write(tmp_path / "garbage.csv", b"submit_time_s,duration_s,num_gpus\nx,y,z\n")
    f = tmp_path / "s.yaml"
    f.write_text(
        "name: x\nstart: 2027-01\nhorizon_months: 1\nworkload:\n  trace:\n"
        f"    file: {trace.name}\n    source_gpu: A40\noptions:\n"
        "  - {name: od, kind: on_demand, instance_type: g5.xlarge}\n"
    )
    one_line_error(*cli(["validate", str(f)], capsys), "no job to replay", "1 unreadable")


# ------------------------------------------------------------------ files


def test_a_scenario_name_cannot_put_the_report_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    f = mutated(tmp_path, "name: research-lab", "name: ../../escaped", "s.yaml")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, err = cli(["simulate", str(f), "--quiet", "--months", "2", "--format", "json"], capsys)
    assert code == 0, err
    assert (work / "tco-report" / "escaped" / "summary.json").exists()
    assert not (tmp_path / "escaped").exists()


@pytest.mark.parametrize("out", ["", "{file}/sub", "/dev/null"])
def test_unusable_output_folders_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str
) -> None:
    a_file = _write(tmp_path / "file", b"")
    args = ["simulate", str(LAB), "--quiet", "--months", "1", "--format", "json", "--prices"]
    code, err = cli([*args, "snapshot", "--out", out.format(file=a_file)], capsys)
    one_line_error(code, err)


def test_init_and_import_to_unwritable_places_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = _write(tmp_path / "file", b"")
    one_line_error(*cli(["init", str(a_file / "s.yaml")], capsys))
    itp = ROOT / "scenarios" / "traces" / "itp_elasticflow_2021.csv.gz"
    code, err = cli(["workload", "import", str(itp), "-o", str(a_file / "w.csv")], capsys)
    assert (
        code == 2
        and "Traceback" not in err
        and err.strip().splitlines()[-1].startswith("tco: error:")
    )


def test_every_report_file_is_byte_identical_between_runs(tmp_path: Path) -> None:
    result = run_file(LAB, months=3)
    write_report(result, tmp_path / "a")
    time.sleep(2.1)  # zip entry times have a 2-second resolution: a clock would now differ
    write_report(result, tmp_path / "b")
    files = sorted(
        p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file()
    )
    assert len(files) > 10
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    with zipfile.ZipFile(tmp_path / "a" / "budget.xlsx") as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert b"1980-01-01T00:00:00Z" in z.read("docProps/core.xml")


def test_a_report_is_complete_or_says_it_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_file(LAB, months=2)
    d = tmp_path / "r"
    write_report(result, d, ("json", "csv", "xlsx"))
    assert verify_report(d) == []
    (d / "monthly.csv").write_text("changed by someone else\n")
    assert any("monthly.csv" in p for p in verify_report(d))

    def killed(*_: object) -> None:
        raise KeyboardInterrupt  # a run stopped half-way

    monkeypatch.setattr(spreadsheet, "write", killed)
    with pytest.raises(KeyboardInterrupt):
        write_report(result, d, ("json", "csv", "xlsx"))
    assert verify_report(d) == [
        f"{d / build.MANIFEST}: missing or unreadable: the report was not completed"
    ]


def test_two_runs_into_one_folder_at_once_both_finish(tmp_path: Path) -> None:
    result = run_file(LAB, months=2)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            write_report(result, tmp_path / "r", ("json", "csv", "xlsx"))
        except BaseException as exc:  # the test reports any failure
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert verify_report(tmp_path / "r") == []
    assert not list((tmp_path / "r").glob("*.tmp")) and not list((tmp_path / "r").glob(".*"))
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["seed"] == 20271
