"""What a user gets when they install tco and give it what they have (issue 22, "Ship it"): files
others can open, work that never starts counted against the answer, bounded work for every input
the validation accepts, and one line with exit code 2 for the held-out classes of bad input.
Each test fails on 0.7.0."""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tco.reports.build import write_report
from tco.simulator.core import atomic
from tco.simulator.core.errors import ScenarioError
from tco.simulator.costs.ledger import Ledger
from tco.simulator.engine.metrics import Metrics, measure
from tco.simulator.kinds.runs import JobRuns
from tco.simulator.run import run, run_file
from tco.simulator.scenario.service_level import ServiceLevel
from tco.simulator.workload.jobs import Jobs
from tests.conftest import ROOT, cli, make_scenario, one_line_error

LAB = ROOT / "scenarios" / "lab.yaml"
LAB_TEXT = LAB.read_text()
QUICK = ["--quiet", "--months", "2", "--format", "json", "--prices", "snapshot"]
OWN = "    servers: 1\n"  # the first such line is the owned option's, options[0]
SPOT = "    fallback_to_on_demand_after: 3\n"  # fleet-spot, options[4]


def lab_with(tmp_path: Path, old: str, new: str, name: str = "s.yaml") -> Path:
    assert old in LAB_TEXT, old
    f = tmp_path / name
    f.write_text(LAB_TEXT.replace(old, new, 1))
    return f


# ------------------------------------------------------------------ files people share


@pytest.fixture
def umask_022() -> object:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_report_files_take_the_users_umask(tmp_path: Path, umask_022: object) -> None:
    result = run_file(LAB, months=2)
    written = write_report(result, tmp_path / "r")
    assert len(written) > 10
    for p in written:  # 0.7.0: 0600 (tempfile.mkstemp), unreadable on a shared drive
        assert stat.S_IMODE(p.stat().st_mode) == 0o644, p
    os.umask(0o077)
    (p := atomic.write_text(tmp_path / "private.txt", "x"))
    assert stat.S_IMODE(p.stat().st_mode) == 0o600


def test_the_output_folder_is_checked_before_the_simulation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import tco.simulator.run as run_module

    def no_simulation(*_: object, **__: object) -> None:
        raise AssertionError("simulated before checking the output folder")

    monkeypatch.setattr(run_module, "simulate", no_simulation)
    a_file = tmp_path / "file"
    a_file.write_text("")
    code, err = cli(["simulate", str(LAB), *QUICK, "--out", str(a_file / "r")], capsys)
    one_line_error(code, err, str(a_file))


def test_a_write_error_names_the_target_and_a_full_disk_names_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(self: Path, *_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")  # as write() raises it: no name

    monkeypatch.setattr(Path, "write_text", disk_full)
    target = tmp_path / "summary.json"
    with pytest.raises(OSError) as info:
        atomic.write_text(target, "{}")
    assert info.value.filename == str(target) and info.value.errno == errno.ENOSPC
    assert not list(tmp_path.iterdir())  # no temporary file left behind


# ------------------------------------------------------------------ work that never starts


def _runs(start: list[float], run_h: float = 1.0) -> JobRuns:
    n = len(start)
    return JobRuns(
        run_h=np.full(n, run_h),
        gpus=np.ones(n),
        units=np.ones(n),
        start_h=np.asarray(start, dtype=float),
        end_h=np.asarray(start, dtype=float) + run_h,
        reason=np.array([""] * n, dtype=object),
        reason_text={},
    )


def _jobs(arrival: list[float]) -> Jobs:
    n = len(arrival)
    return Jobs(
        arrival_h=np.asarray(arrival, dtype=float),
        gpus=np.ones(n, np.int64),
        work_ref_gpu_h=np.ones(n),
        memory_gb=np.full(n, 8.0),
        comm_share=np.zeros(n),
        job_class=np.zeros(n, np.int64),
        reference_gpu=np.zeros(n, np.int64),
        class_names=("c",),
        reference_gpus=("A40",),
    )


def _measure(jobs: Jobs, runs: JobRuns, horizon_h: float, late_after_h: float) -> Metrics:
    ledger = Ledger(
        cash={"x": np.zeros(1)},
        accounting={"x": np.zeros(1)},
        gpu_hours_paid=np.zeros(1),
        gpu_hours_busy=np.zeros(1),
    )
    return measure(jobs, runs, ledger, horizon_h, 0.05, late_after_h=late_after_h)


def test_jobs_still_queued_count_in_the_waits_at_their_least() -> None:
    # Two jobs started after waits of 1 h; eight never started, arrived at 0 h: at the 100 h
    # horizon each has waited at least 100 h, so the p95 (and the mean) see them.
    arrival = [0.0] * 10
    start = [1.0, 1.0, *[math.nan] * 8]
    m = _measure(_jobs(arrival), _runs(start), 100.0, 72.0)
    assert m.waits.censored == 8 and m.waits.started == 2
    assert m.waits.p95_h == pytest.approx(100.0)
    assert m.waits.mean_h == pytest.approx((2 * 1.0 + 8 * 100.0) / 10)
    assert m.work.overdue == pytest.approx(8.0)  # waited past the 72 h level by the horizon
    assert m.work.overdue_share == pytest.approx(0.8)
    level = ServiceLevel(p95_wait_hours=1000.0)
    assert any("overdue at the horizon" in r for r in m.misses(level))
    # A job that arrived within the level's wait of the horizon is not late yet.
    recent = _measure(_jobs([0.0, 99.0]), _runs([0.0, math.nan]), 100.0, 72.0)
    assert recent.work.overdue == 0.0 and recent.waits.censored == 1
    assert recent.misses(ServiceLevel()) == []


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        # 0.7.0: "meets the service level" and recommended at $0
        (
            "lead_time_months: 1 ",
            "lead_time_months: 36 ",
            "options[0].lead_time_months",
        ),
        (
            OWN,
            "    tranches: [{month: 40, servers: 1}]\n",
            "options[0].tranches",
        ),
        (
            OWN,
            "    tranches: [{month: 0, servers: 1}, {month: 35, servers: 1}]\n",
            "options[0].tranches",
        ),
    ],
)
def test_a_cluster_that_never_arrives_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, field: str
) -> None:
    f = lab_with(tmp_path, old, new)
    for args in (["validate", str(f)], ["simulate", str(f), "--quiet", "--out", str(tmp_path)]):
        one_line_error(*cli(args, capsys), field, "horizon")
    one_line_error(*cli(["optimize", str(f), "--quiet", "--out", str(tmp_path)], capsys), field)


def test_an_option_that_leaves_work_waiting_misses_the_level() -> None:
    # One 8-GPU server for 400 one-GPU jobs of ~40 h a month: about 2x its capacity. The queue
    # grows all year; the jobs still queued at the horizon count in the waits and as overdue.
    sc = make_scenario(
        workload={
            "job_classes": [
                {
                    "name": "jobs",
                    "arrivals_per_month": 400,
                    "gpus": 1,
                    "work": {"reference_gpu": "A40", "gpu_hours": 40},
                }
            ]
        },
    )
    result = run(sc)
    o = next(x for x in result.options if x.name == "own")
    assert o.waits.censored > 100
    assert o.metrics.work.overdue > 0
    reasons = o.metrics.misses(sc.service_level)
    assert any("overdue at the horizon" in r for r in reasons), reasons
    assert result.recommendation is not None and result.recommendation.option == "od"


# ------------------------------------------------------------------ bounded work


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        (  # 0.7.0: ran until killed at 0.6-6.2 GB
            OWN,
            OWN + "    failures: {gpu_failures_per_1000_gpu_days: 1e9}\n",
            "options[0].failures.gpu_failures_per_1000_gpu_days",
        ),
        (
            SPOT,
            SPOT + "    interruptions_per_instance_month: 1e9\n",
            "options[4].interruptions_per_instance_month",
        ),
    ],
)
def test_failure_and_interruption_rates_have_physical_ranges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, field: str
) -> None:
    one_line_error(*cli(["validate", str(lab_with(tmp_path, old, new))], capsys), field)


def test_failures_beyond_the_event_limit_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The top of the range (one failure a GPU-day) on 64 servers: ~4 million events over
    # three years, more than this test's limit.
    monkeypatch.setenv("TCO_MAX_EVENTS", "100000")
    f = lab_with(
        tmp_path,
        OWN,
        "    servers: 64\n    failures: {gpu_failures_per_1000_gpu_days: 1000}\n",
    )
    args = ["simulate", str(f), "--quiet", "--format", "json", "--out", str(tmp_path / "r")]
    one_line_error(*cli(args, capsys), "options[0].failures", "TCO_MAX_EVENTS")


@pytest.mark.parametrize("placement", ["pool", "servers"])
def test_jobs_that_never_reach_a_checkpoint_are_refused_not_looped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], placement: str
) -> None:
    # One failure a GPU-day and a checkpoint every 1,000 h: a job of hundreds of hours would be
    # restarted about e^40 times (0.7.0 looped without end on the pool). The play is the
    # question: no mix search around it, and six months show it as well as three years (the
    # resize of the failing cluster plays it seven times: 28 s of CPU at 36 months).
    f = lab_with(
        tmp_path,
        OWN,
        OWN + f"    placement: {placement}\n    failures: {{gpu_failures_per_1000_gpu_days: 1000,"
        " checkpoint_interval_hours: 1000}\n",
    )
    assert "horizon_months: 36" in f.read_text()
    f.write_text(f.read_text().replace("horizon_months: 36", "horizon_months: 6", 1))
    args = ["simulate", str(f), "--quiet", "--format", "json", "--out", str(tmp_path / "r")]
    args += ["--search", "none", "--odds", "0"]
    code, err = cli(args, capsys)
    if placement == "pool":
        one_line_error(code, err, "options[0].failures.gpu_failures_per_1000_gpu_days")
    else:  # on servers a failure stops the job and requeues it: bounded by the failures
        assert code == 0, err


def test_spot_jobs_interrupted_without_end_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = lab_with(
        tmp_path,
        SPOT,
        "    interruptions_per_instance_month: 720\n    checkpoint_interval_hours: 500\n",
    )
    args = ["simulate", str(f), "--quiet", "--format", "json", "--out", str(tmp_path / "r")]
    one_line_error(*cli(args, capsys), "options[4].interruptions_per_instance_month")


# ------------------------------------------------------------------ held-out bad inputs


def test_tranches_empty_or_out_of_order_with_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fails = "    failures: {gpu_failures_per_1000_gpu_days: 5, repair_days: 3}\n"
    empty = lab_with(tmp_path, OWN, "    tranches: []\n" + fails)
    one_line_error(*cli(["validate", str(empty)], capsys), "options[0].tranches")
    # 0.7.0: IndexError in the scheduler; tranches are a set of orders, in any order.
    a, b = "{month: 3, servers: 1}", "{month: 0, servers: 1}"
    out_of_order = lab_with(tmp_path, OWN, f"    tranches: [{a}, {b}]\n" + fails, "o.yaml")
    in_order = lab_with(tmp_path, OWN, f"    tranches: [{b}, {a}]\n" + fails, "i.yaml")
    sums = []
    for f in (out_of_order, in_order):
        args = ["simulate", str(f), "--quiet", "--months", "6", "--format", "json"]
        code, err = cli([*args, "--out", str(tmp_path / f.stem)], capsys)
        assert code == 0, err
        doc = json.loads((tmp_path / f.stem / "summary.json").read_text())
        sums.append([o["totals_usd"] for o in doc["options"]])
    assert sums[0] == sums[1]


def _summary(tmp_path: Path) -> dict[str, object]:
    doc = json.loads((ROOT / "tests" / "golden" / "personal.summary.json").read_text())
    assert isinstance(doc, dict)
    return doc


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda d: d.update(schema="tco-summary/2"), "another version of the summary"),
        (lambda d: d["options"][0]["totals_usd"].update(cash="abc"), "totals_usd.cash"),
        (lambda d: d["options"].append(1), "options[4]: expected an object"),
        (lambda d: d.pop("scenario"), "scenario: expected dict"),
        (lambda d: d["options"][1].pop("prices"), "options[1].prices"),
        (lambda d: d["options"][0]["prices"][0].pop("value"), "prices[0].value"),
        (lambda d: d.update(recommendation=[]), "recommendation"),
    ],
)
def test_compare_refuses_malformed_and_other_version_summaries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: object, says: str
) -> None:
    good = tmp_path / "old.json"
    good.write_text(json.dumps(_summary(tmp_path)))
    doc = _summary(tmp_path)
    edit(doc)  # type: ignore[operator]
    bad = tmp_path / "new.json"
    bad.write_text(json.dumps(doc))
    one_line_error(*cli(["compare", str(good), str(bad)], capsys), str(bad), says)
    code, err = cli(["compare", str(good), str(good)], capsys)
    assert code == 0, err


@pytest.mark.parametrize("command", ["validate", "simulate", "sweep", "optimize", "compare"])
def test_a_fifo_or_a_device_is_refused_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # 0.7.0 blocked on the FIFO (waiting for a writer) and read /dev/zero without end.
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    for path, says in ((fifo, "named pipe"), (Path("/dev/zero"), "a device")):
        golden = ROOT / "tests" / "golden" / "lab.summary.json"
        args = [command, str(path)] if command != "compare" else [command, str(golden), str(path)]
        if command in ("simulate", "sweep", "optimize"):
            args += ["--quiet", "--out", str(tmp_path / "r")]
        one_line_error(*cli(args, capsys), str(path), says)


def test_a_negative_price_multiplier_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = lab_with(
        tmp_path,
        "distribution: {kind: uniform, low: 0.8, high: 1.2}",
        "distribution: {kind: uniform, low: -0.5, high: 1.2}",
    )
    one_line_error(*cli(["validate", str(f)], capsys), "uncertain[2]", "cannot be negative")


def test_an_integer_choice_on_an_integer_field_is_swept(tmp_path: Path) -> None:
    from tco.pricing.book import PriceBook
    from tco.simulator.run import prepare
    from tco.simulator.scenario.model import loads_scenario
    from tco.simulator.sweep.run import run_sweep

    text = LAB_TEXT.replace("horizon_months: 36", "horizon_months: 2").replace(
        "  - path: options[0].resale_scale",
        "  - path: options[0].servers\n    distribution: {kind: choice, values: [1, 2, 3]}\n"
        "  - path: options[0].resale_scale",
    )
    sc = loads_scenario(text, str(tmp_path / "s.yaml"))
    book = PriceBook("snapshot")
    reps = run_sweep(prepare(sc, book), book, 6, workers=1)
    # Stream 0 is the base job stream: its inputs are as written, none drawn.
    drawn = {r.inputs["options[0].servers"] for r in reps if r.stream > 0}
    assert drawn and drawn <= {1, 2, 3} and all(isinstance(v, int) for v in drawn)  # 0.7.0: 2.0


HOSTILE = '=HYPERLINK("http://example.invalid","x") <b>bold</b> [a](javascript:x) *em*'


def test_names_that_look_like_formulas_or_markup_stay_text(tmp_path: Path) -> None:
    text = LAB_TEXT.replace("name: own-8xA40\n", f"name: '{HOSTILE}'\n", 1)
    text = text.replace("owned: own-8xA40\n", f"owned: '{HOSTILE}'\n", 1)
    text = text.replace("    - name: finetune", "    - name: '+cmd|calc'", 1)
    assert HOSTILE in text
    f = tmp_path / "s.yaml"
    f.write_text(text)
    d = tmp_path / "r"
    write_report(run_file(f, months=2), d, ("csv", "md", "xlsx"))
    for csv_file in ("jobs.csv", "monthly.csv"):  # 0.7.0: live formulas when opened
        rows = (d / csv_file).read_text().splitlines()[1:]
        assert rows and not any(re.match(r'"?[=+@-]', r) for r in rows), csv_file
        assert any(r.startswith(f'"\'{HOSTILE.replace(chr(34), chr(34) * 2)}"') for r in rows)
    md = (d / "report.md").read_text()
    assert "<b>" not in md and "&lt;b>bold&lt;/b>" in md  # 0.7.0: raw HTML in report.md
    assert "[a](javascript" not in md and "\\[a\\](javascript" in md
    with zipfile.ZipFile(d / "budget.xlsx") as z:
        xml = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/")]
    formulas = [f for s in xml for f in re.findall(r"<f>([^<]*)</f>", s)]
    # Every formula is one of the workbook's own (sums, products, a cell of another sheet, the
    # NPV of a sheet's cash at the Inputs' rate); the name is in the workbook as text (0.7.0: a
    # live =HYPERLINK formula).
    ours = re.compile(
        r"^(SUM|PRODUCT)\(|^'[^']*'!\$?[A-Z]+\$?\d+$"
        r"|^NPV\(\(1\+Inputs!\$B\$\d+\)\^\(1/12\)-1,'[^']*'![A-Z]+\d+:[A-Z]+\d+\)$"
    )
    assert formulas and all(ours.search(f) for f in formulas), [
        f for f in formulas if not ours.search(f)
    ]
    assert any("<t>=HYPERLINK(" in s or '<t xml:space="preserve">=HYPERLINK(' in s for s in xml)


@pytest.mark.parametrize("where", ["name: research-lab", "    - name: finetune"])
def test_a_line_break_in_a_name_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    f = lab_with(tmp_path, where, where.replace("name: ", 'name: "two\\nlines ') + '"')
    one_line_error(*cli(["validate", str(f)], capsys), "one line of text")
    # and an error that quotes such text is still one line
    code, err = cli(["validate", str(tmp_path / "no\nsuch.yaml")], capsys)
    one_line_error(code, err, "no\\nsuch.yaml")


def test_concurrent_atomic_writes_keep_the_umask(tmp_path: Path, umask_022: object) -> None:
    target = tmp_path / "f.txt"
    threads = [threading.Thread(target=atomic.write_text, args=(target, str(i))) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_scenario_errors_survive_pickling() -> None:
    import pickle

    e = pickle.loads(pickle.dumps(ScenarioError("a.yaml", "options[0]", "bad")))
    assert (e.file, e.field, str(e)) == ("a.yaml", "options[0]", "a.yaml: options[0]: bad")
