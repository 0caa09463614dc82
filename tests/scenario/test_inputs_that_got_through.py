"""Inputs that got through 0.13.0 (issue 40), each now an answer or one line and exit 2 within
bounded time and memory: a sacct export's pending and running jobs replayed as demand; a
file whose only row is unreadable; a submit time of nan; the documented ``speed.<GPU>`` path;
a drawn option name; a Dask address that is none; a price file with a byte-order mark or a
price of 1e308; a corrupt price cache (1e308, a FIFO, /dev/zero, deep JSON); a summary of NaN
totals or naming no option; ``--fail-if`` on 60,000 blanks; formulas in the sweep's and the
optimiser's CSVs; a symbolic link planted in the report folder; two runs writing one folder;
Ctrl-C while the report is written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tco.simulator.core.errors import ScenarioError
from tests.conftest import FIXTURES, ROOT, cli, make_scenario, one_line_error

TRACES = FIXTURES / "traces"
LAB = str(ROOT / "scenarios" / "lab.yaml")

SACCT = (
    "JobID|State|Submit|Start|End|Elapsed|Timelimit|AllocTRES|ReqTRES\n"
    # 2 GPUs for 3 h, ended.
    "1|COMPLETED|2026-11-02T00:00:00|2026-11-02T01:00:00|2026-11-02T04:00:00|03:00:00|"
    "1-00:00:00|gres/gpu=2|gres/gpu=2\n"
    # 4 GPUs running for 5 h at the export (its time so far: a lower bound).
    "2|RUNNING|2026-11-02T02:00:00|2026-11-02T03:00:00|Unknown|05:00:00|2-00:00:00|"
    "gres/gpu=4|gres/gpu=4\n"
    # 8 GPUs asked for, pending, for a day (its time limit); nothing allocated yet.
    "3|PENDING|2026-11-02T05:00:00|Unknown|Unknown|00:00:00|1-00:00:00||gres/gpu=8\n"
    # Pending without a limit: its length is unknown, counted apart.
    "4|PENDING|2026-11-02T06:00:00|Unknown|Unknown|00:00:00|UNLIMITED||gres/gpu=1\n"
)


def test_a_replay_keeps_pending_and_running_jobs_as_demand_accounted_by_state(
    tmp_path: Path,
) -> None:
    from tco.simulator.workload.traces import read

    f = tmp_path / "sacct.txt"
    f.write_text(SACCT)
    jobs, report = read(f, "sacct")
    assert jobs.job_id == ["1", "2", "3"] and jobs.status == ["COMPLETED", "RUNNING", "PENDING"]
    # GPU-hours by state: ended 2 x 3, running 4 x 5 (so far), pending 8 x 24 (its limit).
    assert jobs.gpu_hours() == pytest.approx(6 + 20 + 192)
    assert report.unfinished == {"running": 1, "pending": 1}
    assert report.unfinished_gpu_h == {"running": 20.0, "pending": 192.0}
    assert report.skipped == {"pending without a time limit (their length is unknown)": 1}
    words = report.summary()
    assert "1 pending job kept as demand (192.0 GPU-hours" in words
    assert "1 running job kept as demand (20.0 GPU-hours" in words
    dropped, _ = read(f, "sacct", keep_unfinished=False)
    assert dropped.job_id == ["1"]
    # A scenario replays them unless it says unfinished: drop.
    from tco.simulator.run import prepare

    def replay(**trace: object) -> int:
        sc = make_scenario(
            workload={"trace": {"file": str(f), "format": "sacct", "source_gpu": "A40", **trace}}
        )
        return len(prepare(sc).jobs)

    assert replay() == 3 and replay(unfinished="drop") == 1


def test_a_log_whose_only_row_is_unreadable_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "sacct.txt"
    f.write_text("JobID|State|Submit|Start|End|AllocTRES\n1|COMPLETED|x|y|z|gres/gpu=1\n")
    code, err = cli(["workload", "stats", str(f), "--format", "sacct"], capsys)
    one_line_error(code, err, "no job to replay", "1 unreadable line")


@pytest.mark.parametrize("fmt", ["lsf", "pbs"])
def test_a_submit_time_of_nan_is_an_unreadable_line(tmp_path: Path, fmt: str) -> None:
    from tco.simulator.workload.traces import read

    src = TRACES / ("lsb.acct" if fmt == "lsf" else "pbs_accounting.txt")
    lines = src.read_text().splitlines(keepends=True)
    if fmt == "lsf":
        first = lines[0].split(" ")
        first[7] = "nan"  # submitTime
        lines[0] = " ".join(first)
    else:
        i = next(n for n, line in enumerate(lines) if ";E;" in line and "qtime=" in line)
        lines[i] = lines[i].replace("qtime=", "qtime=nan x=", 1)
    f = tmp_path / src.name
    f.write_text("".join(lines))
    jobs, report = read(f, fmt)
    assert all(s == s for s in jobs.submit_s.tolist())  # no nan reaches the replay
    assert any("submit time is not a finite number" in why for _, why in report.bad_lines)


def _with_uncertain(path: str, tmp_path: Path, kind: str = "uniform, low: 0.8, high: 1.2") -> Path:
    """A scenario renting p4d (A100 SXM 40GB), its work stated on the A40, drawing ``path``."""
    import yaml

    f = tmp_path / "u.yaml"
    data = make_scenario().model_dump(mode="json", exclude_defaults=True)
    data["uncertain"] = [{"path": path, "distribution": yaml.safe_load(f"{{kind: {kind}}}")}]
    f.write_text(yaml.safe_dump(data))
    return f


def test_the_documented_speed_path_takes_a_gpu_name_with_a_space(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 0.13.0: an AssertionError traceback for any GPU name with a space.
    code, err = cli(["validate", str(_with_uncertain("speed.A100 SXM 40GB", tmp_path))], capsys)
    assert code == 0, err
    # A GPU none of the options runs on, or the one the work is stated on: one line naming
    # the path and the valid ones.
    code, err = cli(["validate", str(_with_uncertain("speed.H200 SXM", tmp_path))], capsys)
    one_line_error(code, err, "uncertain[0].path", "speed.H200 SXM: no option runs it", "valid:")
    code, err = cli(["validate", str(_with_uncertain("speed.A40", tmp_path))], capsys)
    one_line_error(code, err, "speed.A40: the work is stated on it")


def test_a_drawn_option_name_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _with_uncertain("options[0].name", tmp_path, "choice, values: [a, b]")
    code, err = cli(["validate", str(f)], capsys)
    one_line_error(code, err, "uncertain[0]", "not a quantity to draw")


@pytest.mark.parametrize("command", ["simulate", "sweep"])
def test_a_dask_address_that_is_none_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    args = [command, LAB, "--engine", "dask", "--scheduler", "nonsense", "--out", str(tmp_path)]
    one_line_error(*cli(args, capsys), "--scheduler 'nonsense'", "tcp://host:port")


PRICES = (
    "instance_type,region,gpu,gpu_count,gpu_memory_gb,vcpus,memory_gib,usd_per_hour,"
    "spot_usd_per_hour,provider,source,as_of\n"
    "gpu-1x,r1,H100 SXM,1,80,16,100,{price},,acme,a quote,2026-11\n"
)


def test_a_price_file_with_a_byte_order_mark_reads_and_1e308_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tco.pricing.providers import registry, user_file

    # The file's provider is registered for the run: for this test only.
    monkeypatch.setattr(registry, "_PROVIDERS", dict(registry._PROVIDERS))

    rows = user_file.read(PRICES.format(price="2.50"))
    assert rows[0].usd_per_hour == 2.5
    f = tmp_path / "prices.csv"
    f.write_bytes(b"\xef\xbb\xbf" + PRICES.format(price="2.50").encode())
    sc = make_scenario(price_files=[str(f)])  # the BOM is not part of the first column's name
    assert sc.price_files
    with pytest.raises(ValueError, match="usd_per_hour: '1e308' must be a number from 0 to 1e"):
        user_file.read(PRICES.format(price="1e308"))


def test_a_corrupt_price_cache_is_ignored_with_a_warning_never_hangs_or_fills_memory(
    tmp_path: Path,
) -> None:
    import datetime as dt

    from tco.pricing import snapshot
    from tco.pricing.cache import PriceCache

    entry = snapshot.entry("p4d.24xlarge", "us-east-1")
    assert entry is not None
    cache = PriceCache(tmp_path)
    now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    p = cache.put(entry.instance_type, "us-east-1", entry, now)
    doc = json.loads(p.read_text())
    doc["entry"]["on_demand_usd_per_hour"] = 1e308
    p.write_text(json.dumps(doc))
    assert cache.get(entry.instance_type, "us-east-1") is None
    assert "not a USD/h from 0 to 1e+09" in cache.warnings[-1]
    p.unlink()
    os.mkfifo(p)  # a FIFO would block a plain open for ever
    t0 = time.monotonic()
    assert cache.get(entry.instance_type, "us-east-1") is None and time.monotonic() - t0 < 5
    p.unlink()
    p.symlink_to("/dev/zero")
    assert cache.get(entry.instance_type, "us-east-1") is None
    assert "not a regular file" in cache.warnings[-1]
    p.unlink()
    p.write_text("[" * 100_000 + "]" * 100_000)
    assert cache.get(entry.instance_type, "us-east-1") is None


def test_compare_refuses_nan_or_huge_totals_and_a_recommendation_of_no_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tco.reports import summary
    from tests.conftest import shipped

    good = tmp_path / "good.json"
    good.write_text(json.dumps(summary.to_summary(shipped("lab"))))
    cases: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
        ("nan", lambda d: d["options"][0]["totals_usd"].update(cash=float("nan")), "nan is not"),
        ("huge", lambda d: d["options"][0]["totals_usd"].update(cash=1e308), "1e+308"),
        ("who", lambda d: d["recommendation"].update(option="nobody"), "'nobody' is none"),
    ]
    for name, change, says in cases:
        doc = json.loads(good.read_text())
        change(doc)
        bad = tmp_path / f"{name}.json"
        bad.write_text(json.dumps(doc))
        one_line_error(*cli(["compare", str(good), str(bad)], capsys), str(bad), says)


def test_fail_if_is_linear_in_its_text_and_a_gate_on_no_common_option_is_refused() -> None:
    from tco.reports import gate

    t0 = time.process_time()
    with pytest.raises(gate.GateError):
        gate.parse(" " * 60_000 + "cash > 10%")  # 0.13.0: minutes of backtracking
    with pytest.raises(gate.GateError):
        gate.parse(" " * 900 + "x" * 50 + " cash >> 10%")
    assert time.process_time() - t0 < 1.0  # a hang guard: milliseconds where it works
    g = gate.parse("  cash > +10%  ")
    assert (g.measure, g.op, g.amount, g.relative) == ("cash", ">", 10.0, True)
    diff = {
        "recommendation": {"old": "a", "new": "b", "changed": True},
        "totals": [{"option": "a", "cash_usd": {"delta": None, "share": None}}],
    }
    with pytest.raises(gate.GateError, match="no option is in both runs"):
        gate.hits(diff, g)


def test_names_that_look_like_formulas_stay_text_in_the_sweep_and_optimiser_csvs() -> None:
    from tco.reports.optimize_files import _knob
    from tco.reports.sweep_files import _value

    assert _value("=HYPERLINK(1)") == "'=HYPERLINK(1)" and _value(0.5) == "0.5"
    assert _knob("@SUM(A1)") == "'@SUM(A1)" and _knob(True) == "true" and _knob(3) == 3


def test_a_symbolic_link_planted_in_the_report_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, elsewhere = tmp_path / "r", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "charts").symlink_to(elsewhere)
    args = ["simulate", LAB, "--months", "2", "--search", "none", "--quiet", "--out", str(out)]
    one_line_error(*cli(args, capsys), "charts", "a symbolic link")
    assert not list(elsewhere.iterdir())


def test_two_runs_of_two_seeds_into_one_folder_leave_one_runs_files(tmp_path: Path) -> None:
    from tco.reports.build import verify_report, write_report
    from tco.simulator.run import run_file

    results = [run_file(LAB, months=2, seed=s) for s in (1, 2)]
    for attempt in range(6):
        d = tmp_path / str(attempt)
        threads = [
            threading.Thread(target=write_report, args=(r, d, ("json", "csv"))) for r in results
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert verify_report(d) == []  # the manifest certifies the files of one seed


def test_ctrl_c_while_the_report_is_written_stops_the_run(tmp_path: Path) -> None:
    out = tmp_path / "r"
    env = {**os.environ, "TCO_ODDS": "0"}
    code = "import sys; from tco.cli import main; main(sys.argv[1:])"
    # Six months: the report is written as for three years, the run before it is shorter.
    args = ["simulate", LAB, "--search", "none", "--quiet", "--prices", "snapshot", "--months", "6"]
    p = subprocess.Popen(
        [sys.executable, "-c", code, *args, "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not (out / "summary.json").exists() and p.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=300)
    if (out / "manifest.json").exists():  # the report was done before the signal came
        pytest.skip("the run ended before Ctrl-C reached it")
    assert p.returncode != 0 and "Aborted." in err


def test_a_drawn_part_of_a_hybrid_is_refused(tmp_path: Path) -> None:
    import yaml

    from tco.simulator.scenario.model import load_scenario

    data = make_scenario(
        options=[
            {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1},
            {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
            {"name": "od2", "kind": "on_demand", "instance_type": "p5.48xlarge"},
            {
                "name": "mix",
                "kind": "hybrid",
                "owned": "own",
                "burst": "od",
                "burst_after_wait_hours": 24,
            },
        ]
    ).model_dump(mode="json", exclude_defaults=True)
    data["uncertain"] = [
        {"path": "options[3].burst", "distribution": {"kind": "choice", "values": ["od", "od2"]}}
    ]
    f = tmp_path / "h.yaml"
    f.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError, match=r"options\[3\]\.burst names another option"):
        load_scenario(str(f))


def test_a_resize_stops_at_a_limit_instead_of_failing_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The size search doubles an owned cluster that misses the level; a size past a limit
    (here the failures a run may draw, TCO_MAX_EVENTS; also 100,000 servers) is not tried:
    0.13.0 refused the whole run there, after the search's work, or ended in a traceback."""
    from tco.pricing.book import PriceBook
    from tco.simulator.advice.recommendation import smallest_cluster
    from tco.simulator.kinds.owned.parts import smallest_meeting
    from tco.simulator.run import prepare

    sc = make_scenario(
        workload={
            "job_classes": [
                {
                    "name": "jobs",
                    "arrivals_per_month": 1000,
                    "gpus": 1,
                    "work": {"reference_gpu": "A40", "gpu_hours": 10, "distribution": "fixed"},
                }
            ]
        },
        options=[{"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1}],
    )
    failures = sc.options[0].failures  # type: ignore[attr-defined]
    assert failures is not None  # on by default
    one = failures.expected_events(8, 1, 12 * 730.0)
    monkeypatch.setenv("TCO_MAX_EVENTS", str(1.5 * one))  # one server fits, two do not
    book = PriceBook("snapshot")
    resize = smallest_cluster(prepare(sc, book), 0, book)
    assert resize is not None and resize.servers is None  # none it could try meets
    # The rule itself: sizes past the limit give None, and what was found is returned.
    calls: list[int] = []

    class C:
        def __init__(self, n: int) -> None:
            self.meets_service_level = n >= 5

    def at(n: int) -> C | None:
        calls.append(n)
        return None if n > 4 else C(n)

    found = smallest_meeting(at, 1, 0, 64)
    assert calls == [1, 2, 4, 8] and [c.meets_service_level for c in found] == [False] * 3
