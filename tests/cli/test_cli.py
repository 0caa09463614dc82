"""The command line: help with examples, one-line errors with exit code 2, the report files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tco.cli import cli, main
from tests.conftest import ROOT

LAB = (ROOT / "scenarios" / "lab.yaml").read_text()

BROKEN = {
    "yaml_syntax": (LAB.replace("seed: 20271", "seed: [20271"), "line 16", "YAML syntax error"),
    "unknown_key": (
        LAB.replace("horizon_months: 36", "horizon_month: 36"),
        "horizon_month",
        "did you mean 'horizon_months'",
    ),
    "wrong_type": (
        LAB.replace("arrivals_per_month: 90", "arrivals_per_month: ninety"),
        "workload.job_classes[0].arrivals_per_month",
        "valid number",
    ),
    "negative": (
        LAB.replace("usd_per_hour: 32.0", "usd_per_hour: -32.0"),
        "options[6].instance.usd_per_hour",
        "greater than or equal to 0",
    ),
    "unknown_instance": (
        LAB.replace("instance_type: p4d.24xlarge\n", "instance_type: p4d.24xlarg\n", 1),
        "options[5].instance_type",
        "did you mean 'p4d.24xlarge'",
    ),
    "unknown_gpu": (
        LAB.replace(
            "reference_gpu: V100 SXM2 32GB, gpu_hours: 150",
            "reference_gpu: V100 32GB, gpu_hours: 150",
        ),
        "workload.job_classes[1].work.reference_gpu",
        "did you mean 'V100 SXM2 32GB'",
    ),
    "unknown_kind": (
        LAB.replace("kind: bare_metal", "kind: baremetal"),
        "options[6].kind",
        "did you mean 'bare_metal'",
    ),
    "duplicate_key": (
        LAB.replace("    term_years: 1\n", "    term_years: 1\n    term_years: 3\n"),
        "line",
        "duplicate key 'term_years'",
    ),
    "not_a_mapping": ("- just\n- a list\n", "", "must be a YAML mapping"),
}


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command's path of names, subcommands of a group included."""
    out = []
    for name, cmd in group.commands.items():
        path = (*prefix, name)
        out.append(path)
        if isinstance(cmd, click.Group):
            out += _commands(cmd, path)
    return out


@pytest.mark.parametrize("name", ["(root)"] + [" ".join(p) for p in _commands(cli)])
def test_every_command_has_help_with_an_example(name: str) -> None:
    args = [] if name == "(root)" else name.split()
    result = CliRunner().invoke(cli, [*args, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_scenarios_give_one_line_and_exit_2(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, field, hint = BROKEN[case]
    f = tmp_path / f"{case}.yaml"
    f.write_text(text)
    for command in ("validate", "simulate"):
        with pytest.raises(SystemExit) as exc:
            main([command, str(f), "--quiet"] if command == "simulate" else [command, str(f)])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert str(f) in err and field in err and hint in err
        assert "Traceback" not in err


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(BROKEN["unknown_key"][0])
    proc = subprocess.run(
        [sys.executable, "-c", "from tco.cli import main; main()", "--debug", "validate", str(f)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    assert "Traceback" in proc.stderr and "ScenarioError" in proc.stderr


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["validate", "no/such/file.yaml"])
    assert exc.value.code == 2
    assert "no/such/file.yaml: no such file" in capsys.readouterr().err


def test_simulate_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(
        ["simulate", str(ROOT / "scenarios" / "lab.yaml"), "--out", str(tmp_path), "--months", "6"]
    )
    out = capsys.readouterr().out
    assert (
        out.startswith("Recommended: ") and "cash before tax over 6 months" in out.splitlines()[0]
    )
    assert "Cheapest over 6 months" not in out  # a detail: behind --details
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert doc["scenario"]["horizon_months"] == 6 and len(doc["months"]) == 6
    assert (tmp_path / "monthly.csv").read_text().startswith("option,month,view,category,usd")
    assert (tmp_path / "jobs.csv").exists()


def test_validate_describes_the_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    main(["validate", str(ROOT / "scenarios" / "lab.yaml")])
    out = capsys.readouterr().out
    assert "valid" in out and "own-8xA40 (owned)" in out


def test_version() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and "tco" in result.output


def test_prices_show_without_credentials(capsys: pytest.CaptureFixture[str]) -> None:
    main(["prices", "show", "p4d.24xlarge", "--region", "us-east-1"])
    captured = capsys.readouterr()
    assert "$21.957642/h" in captured.out
    assert "snapshot, as of 2025-11-30" in captured.out
    assert "no AWS credentials" in captured.err  # says why it is not live


def test_prices_live_without_credentials_stops(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["prices", "show", "p4d.24xlarge", "--prices", "live"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no AWS credentials found" in err


def test_simulate_offline_runs_the_live_path_and_agrees_with_the_snapshot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lab = str(ROOT / "scenarios" / "lab.yaml")
    # The prices are under test, not the advice or the report's parts: the quickest run.
    quick = ["--format", "json", "--search", "none", "-q"]
    main(["simulate", lab, "--out", str(tmp_path / "snap"), "--prices", "snapshot", *quick])
    main(["simulate", lab, "--out", str(tmp_path / "off"), "--offline", *quick])
    snap = json.loads((tmp_path / "snap" / "summary.json").read_text())
    off = json.loads((tmp_path / "off" / "summary.json").read_text())
    for a, b in zip(snap["options"], off["options"], strict=True):
        assert a["totals_usd"] == b["totals_usd"]
    sources = {p["source"] for o in off["options"] for p in o["prices"] if p["unit"] == "USD/h"}
    # AWS's prices through the replay; other clouds' from their own bundled snapshot.
    assert "offline-replay" in sources and "snapshot" not in sources
    assert "clouds-snapshot" in sources
    assert off["price_provenance"]["price_mode"] == "live (offline)"


def test_prices_snapshot_regenerated_offline_round_trips(tmp_path: Path) -> None:
    from tco.pricing import snapshot

    out = tmp_path / "snap.json"
    main(["prices", "snapshot", "--offline", "--out", str(out), "--region", "us-east-1"])
    doc = json.loads(out.read_text())
    # moto has no p3.2xlarge/p3.16xlarge: they are left out and named, never filled in.
    assert "p3.16xlarge in us-east-1" in doc["provenance"]["missing"]
    assert "p3.16xlarge" not in doc["regions"]["us-east-1"]
    assert len(doc["regions"]["us-east-1"]) >= 15
    for t, entry in doc["regions"]["us-east-1"].items():
        want = snapshot.entry(t, "us-east-1")
        assert want is not None
        assert entry["on_demand_usd_per_hour"] == want.on_demand_usd_per_hour, t
        assert entry["reserved"] == pytest.approx(want.reserved), t


def test_catalog_lists_servers(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")  # a pipe is 100 wide by default: names would fold
    main(["catalog", "servers"])
    out = capsys.readouterr().out
    assert "8x A40 NVLink server" in out and "76,660" in out


def test_unknown_savings_plan_rate_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # g6e.12xlarge has neither a bundled Savings Plan rate nor a reserved rate to stand in.
    text = LAB.replace(
        "    instance_types: *fleet\n    plan: Compute",
        "    instance_types: [g6e.12xlarge]\n    plan: Compute",
    )
    assert text != LAB
    f = tmp_path / "sp.yaml"
    f.write_text(text)
    with pytest.raises(SystemExit) as exc:
        main(["simulate", str(f), "--prices", "snapshot", "-q", "--out", str(tmp_path / "o")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "options[3].rate_usd_per_hour" in err and "not known" in err
    assert "To fix: set rate_usd_per_hour or discount" in err


def test_init_writes_a_valid_scenario_and_refuses_to_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "mine.yaml"
    main(["init", "--template", "industrial", str(f)])
    assert f.read_text() == (ROOT / "scenarios" / "industrial.yaml").read_text()
    main(["validate", str(f)])
    with pytest.raises(SystemExit) as exc:
        main(["init", str(f)])
    assert exc.value.code == 2 and "exists" in capsys.readouterr().err


def test_workload_stats_and_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    itp = str(ROOT / "scenarios" / "traces" / "itp_elasticflow_2021.csv.gz")
    main(["workload", "stats", itp])
    out = capsys.readouterr().out
    assert "69,351 jobs over 59.9 days, 1,632,719.7 GPU-hours" in out
    assert "57,682" in out  # single-GPU jobs
    dest = tmp_path / "w.csv"
    main(["workload", "import", itp, "-o", str(dest)])
    assert "69,351 jobs, 1,632,719.7 GPU-hours" in capsys.readouterr().out
    assert dest.read_text().startswith("job_id,submit_time_s,duration_s,num_gpus")


def test_bad_format_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", str(ROOT / "scenarios" / "lab.yaml"), "--format", "html,pdf"])
    assert exc.value.code == 2
    assert "unknown part(s) pdf" in capsys.readouterr().err


def test_no_help_shows_a_literal_backslash_b() -> None:
    """click reads a line holding only \\b (a backspace) as "do not rewrap"; written as the two
    characters backslash and b it shows up in the help (issue 29: tco optimize --help)."""
    runner = CliRunner()
    for path in _commands(cli):
        out = runner.invoke(cli, [*path, "--help"]).output
        assert "\\b" not in out, path


def test_prices_show_the_spot_interruption_bucket_and_one_line_of_unknown_plans() -> None:
    from tco.pricing import views
    from tco.pricing.book import PriceBook

    rows = views.price_rows(PriceBook("snapshot"), "p4d.24xlarge", "us-east-1")
    what = [r[0] for r in rows]
    bucket = rows[what.index("spot interruptions")]
    assert bucket[1] == ">20% a month" and "Spot Instance Advisor" in bucket[2]
    plans = [r for r in rows if r[0].startswith("Savings Plan")]
    assert len(plans) == 1 and plans[0][1] == "unknown" and "rate_usd_per_hour" in plans[0][2]
    assert "(12 of 12)" in plans[0][0]


def test_catalog_instances_takes_a_gpu_and_a_provider(capsys: pytest.CaptureFixture[str]) -> None:
    main(["catalog", "instances", "H100:8", "--provider", "lambda"])
    out = capsys.readouterr().out
    assert "lambda" in out and "H100" in out and "p5.48xl" not in out and "aws" not in out


def test_a_scenario_given_as_a_trace_is_named_as_such(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import cli as run_cli
    from tests.conftest import one_line_error

    code, err = run_cli(["workload", "stats", str(ROOT / "scenarios" / "lab.yaml")], capsys)
    one_line_error(code, err, "this looks like a scenario, not a trace", "tco simulate")
