"""tco track's files and gates (issue 51): written as simulate writes a report (atomically, never
through a planted link, a manifest last), escaped as report.md and jobs.csv are, a FOCUS bill
whose rows do not fit its header refused in one line, and --fail-if on the forecast's service
as well as its cash; track.html draws planned, actual and forecast with its band."""

from __future__ import annotations

import csv
import errno
import io
import json
from pathlib import Path

import pytest

from tco.cli import main
from tests.tracking.test_track import (
    FOCUS_COLUMNS,
    MORE,
    PRICE,
    SCENARIO,
    THROUGH,
    _case,
    exit_code,
    plan_of,
)


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return plan_of(tmp_path_factory)


def _base(planned: Path, log: Path, bill: Path | None = None) -> list[str]:
    args = [
        "track",
        str(planned / "report"),
        "--usage",
        str(log),
        "--through",
        THROUGH,
        "--prices",
        "snapshot",
    ]
    return args + (["--bill", str(bill)] if bill else [])


def test_track_out_never_writes_through_a_planted_link_and_ends_with_a_manifest(
    planned: Path, tmp_path: Path
) -> None:
    log, bill = _case(planned, "files", MORE, PRICE)
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    out.mkdir()
    victim.write_text("not yours")
    (out / "track.json").symlink_to(victim)
    assert exit_code([*_base(planned, log, bill), "--out", str(out)]) == 0
    assert victim.read_text() == "not yours" and not (out / "track.json").is_symlink()
    doc = json.loads((out / "manifest.json").read_text())
    assert sorted(doc["files"]) == ["track.csv", "track.html", "track.json", "track.md"]
    assert not list(out.glob(".*.tmp"))


def test_a_full_disk_names_the_file_and_leaves_no_half_file_nor_manifest(
    planned: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log, _ = _case(planned, "full", 0.0, 1.0)
    out = tmp_path / "out"
    real = Path.write_text

    def full(self: Path, text: str, *a: object, **k: object) -> int:
        if self.name.startswith(".track.json"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, text, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", full)
    assert exit_code([*_base(planned, log), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(out / "track.json") in err and "No space left" in err
    assert not (out / "track.json").exists() and not (out / "manifest.json").exists()
    assert not list(out.glob(".*.tmp"))


def test_a_commitments_name_is_shown_as_written_in_track_md(planned: Path, tmp_path: Path) -> None:
    log, bill = _case(planned, "md", MORE, PRICE)
    bill.write_text(bill.read_text().replace("sp-2027", "[x](http://evil.example) <img src=x>"))
    out = tmp_path / "out"
    assert exit_code([*_base(planned, log, bill), "--out", str(out)]) == 0
    md = (out / "track.md").read_text()
    assert "\\[x\\](http://evil.example) &lt;img src=x>" in md and "<img" not in md
    assert "[x](" not in md.replace("\\[x\\](", "")
    assert "<img src=x>" not in (out / "track.html").read_text()


def test_focus_csv_writes_a_name_a_spreadsheet_would_run_as_text(tmp_path: Path) -> None:
    yaml = SCENARIO.replace("name: p4d", "name: '=HYPERLINK(\"http://evil.example\")'")
    (tmp_path / "s.yaml").write_text(yaml.replace("name: tracked", "name: '@SUM(1)'"))
    main(
        [
            "simulate",
            str(tmp_path / "s.yaml"),
            "--out",
            str(tmp_path / "r"),
            "--quiet",
            "--format",
            "focus",
            "--prices",
            "snapshot",
            "--odds",
            "0",
        ]
    )
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r" / "focus.csv").read_text())))
    assert rows and all(r["x_TcoOption"] == '\'=HYPERLINK("http://evil.example")' for r in rows)
    assert all(r["BillingAccountName"] == "'@SUM(1)" for r in rows)
    for r in rows:
        assert not any(v.startswith(("=", "+", "@")) for v in r.values()), r


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda rows: [*rows[:2], rows[2].rsplit(",", 4)[0], *rows[3:]], "row 3: 7 cells where"),
        (lambda rows: [*rows[:2], rows[2] + ",extra", *rows[3:]], "row 3: more cells than"),
        (lambda rows: [*rows[:2], rows[2] + "x" * 200_000, *rows[3:]], "row 3: not CSV"),
    ],
)
def test_a_focus_row_that_does_not_fit_its_header_is_one_line(
    planned: Path, change: object, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log, bill = _case(planned, "short", 0.0, 1.0)
    bill.write_text("\n".join(change(bill.read_text().splitlines())) + "\n")  # type: ignore[operator]
    assert exit_code(_base(planned, log, bill)) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(bill) in err and says in err, err
    assert len(FOCUS_COLUMNS) == 11  # the header the rows are cut against


def test_gates_on_the_forecasts_wait_and_a_classs_delay_and_their_errors(
    planned: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On demand, the cloud starts every job at once: the forecast's p95 wait is the plan's
    (0 h), so a gate past 0 holds and one at +1 h does not; a class the plan lacks, npv or a
    class's cash are refused naming what would do."""
    log, _ = _case(planned, "gates", 0.0, 1.0)
    base = _base(planned, log)
    assert exit_code([*base, "--fail-if", "forecast.p95_wait > 1"]) == 0
    assert exit_code([*base, "--fail-if", "forecast.p95_wait > -1"]) == 1
    assert "forecast.p95_wait > -1: forecast 0.0 h against the plan's 0.0 h" in (
        capsys.readouterr().err
    )
    assert exit_code([*base, "--fail-if", "train.p95_delay > -1"]) == 1
    for bad, says in [
        (
            "nope.p95_delay > 1",
            "'nope' is not a job class of the plan; give forecast or one of: train",
        ),
        ("forecast.npv > 1", "tco track knows forecast.cash, forecast.p95_delay"),
        ("train.cash > 1", "a job class is held to its p95_delay"),
        ("recommendation changed", "tco track knows"),
    ]:
        capsys.readouterr()
        assert exit_code([*base, "--fail-if", bad]) == 2, bad
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and says in err, err
    for budget in ("nan", "inf", "-5"):
        assert exit_code([*base, "--budget", budget]) == 2, budget


def test_track_html_draws_the_plan_the_actuals_and_the_forecast_band(
    planned: Path, tmp_path: Path
) -> None:
    log, bill = _case(planned, "chart", MORE, PRICE)
    out = tmp_path / "out"
    assert exit_code([*_base(planned, log, bill), "--out", str(out)]) == 0
    page = (out / "track.html").read_text()
    assert page.count("data:image/png;base64,") == 1 and "P10 and P90 of the work" in page
    rows = list(csv.DictReader(io.StringIO((out / "track.csv").read_text())))
    # The futures at the P10, median and P90 of the work to come: ordered over the horizon (a
    # month alone may cross: each is a replay of its own).
    keys = ("forecast_at_p10_work_usd", "actual_cash_usd", "forecast_at_p90_work_usd")
    totals = [sum(float(r[k] or r["actual_cash_usd"]) for r in rows) for k in keys]
    assert totals[0] < totals[1] < totals[2]
    assert all(r["forecast_at_p10_work_usd"] == "" for r in rows[:3])
