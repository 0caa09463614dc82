"""tco compare: what changed between two runs of a budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tco
from tco.cli import main
from tests.conftest import make_scenario


def _write(tmp_path: Path, name: str, **over: object) -> Path:
    r = tco.run(make_scenario(**over))
    out = tmp_path / name
    tco.write_report(r, out, formats=("json",))
    return out


def test_compare_lists_totals_prices_and_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _write(tmp_path, "old")
    options = [
        {
            "name": "own",
            "kind": "owned",
            "server": "8x A40 NVLink server",
            "servers": 1,
            "power": {"usd_per_kwh": 0.2},
        },
        {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
    ]
    new = _write(tmp_path, "new", options=options)
    main(["compare", str(old), str(new / "summary.json"), "--format", "json"])
    diff = json.loads(capsys.readouterr().out)
    own = next(t for t in diff["totals"] if t["option"] == "own")
    od = next(t for t in diff["totals"] if t["option"] == "od")
    assert own["cash_usd"]["delta"] > 0 and od["cash_usd"]["delta"] == 0
    assert own["cash_usd"]["new"] - own["cash_usd"]["old"] == pytest.approx(
        own["cash_usd"]["delta"]
    )
    assert [p["item"] for p in diff["prices"]] == ["electricity"]
    assert diff["prices"][0]["old"]["value"] == 0.0826 and diff["prices"][0]["new"]["value"] == 0.2
    assert [i["path"] for i in diff["inputs"]] == ["options[own].power.usd_per_kwh"]
    assert diff["recommendation"]["changed"] is False
    main(["compare", str(old), str(new)])
    md = capsys.readouterr().out
    assert "| own |" in md and "## Prices that changed (1)" in md and "usd_per_kwh" in md


def test_compare_refuses_what_is_not_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"a": 1}')
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(bad), str(bad)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and "not a tco summary.json" in err
    with pytest.raises(SystemExit):
        main(["compare", str(tmp_path / "missing"), str(bad)])
    assert "no such file" in capsys.readouterr().err
