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


def _options(usd_per_kwh: float) -> list[dict[str, object]]:
    """make_scenario's two options, the owned one's electricity at ``usd_per_kwh``."""
    return [
        {
            "name": "own",
            "kind": "owned",
            "server": "8x A40 NVLink server",
            "servers": 1,
            "power": {"usd_per_kwh": usd_per_kwh},
        },
        {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
    ]


def test_compare_lists_totals_prices_and_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _write(tmp_path, "old")
    new = _write(tmp_path, "new", options=_options(0.2))
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


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, float]]:
    """Two runs, made once for the tests of this module (see ``_pair``)."""
    return _pair(tmp_path_factory.mktemp("pair"))


def _pair(tmp_path: Path) -> tuple[Path, Path, dict[str, float]]:
    """Two runs whose owned option's electricity doubles: its cash moves, on-demand's not."""
    old = _write(tmp_path, "old")
    new = _write(tmp_path, "new", options=_options(0.4))
    cash = {}
    for name, d in (("old", old), ("new", new)):
        doc = json.loads((d / "summary.json").read_text())
        cash[name] = next(o for o in doc["options"] if o["name"] == "own")["totals_usd"]["cash"]
    return old, new, cash


def _code(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def test_fail_if_exits_1_past_the_threshold_and_0_below_it(
    pair: tuple[Path, Path, dict[str, float]], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, cash = pair
    grew = (cash["new"] - cash["old"]) / cash["old"]
    assert grew > 0.001
    below, above = f"{grew * 100 * 1.01:.3f}%", f"{grew * 100 * 0.99:.3f}%"
    assert _code(["compare", str(old), str(new), "--fail-if", f"own.cash > +{below}"]) == 0
    capsys.readouterr()
    assert _code(["compare", str(old), str(new), "--fail-if", f"cash > {above}"]) == 1
    err = capsys.readouterr().err
    assert f"--fail-if cash > {above}: own cash +" in err
    delta = cash["new"] - cash["old"]
    assert _code(["compare", str(old), str(new), "--fail-if", f"own.cash > {delta * 0.99}"]) == 1
    assert _code(["compare", str(old), str(new), "--fail-if", f"own.cash > {delta * 1.01}"]) == 0
    assert _code(["compare", str(old), str(new), "--fail-if", "od.cash > 0"]) == 0  # unmoved
    assert _code(["compare", str(old), str(new), "--fail-if", "own.cash < 0"]) == 0
    assert _code(["compare", str(old), str(new), "--fail-if", "recommendation changed"]) == 0


@pytest.mark.parametrize("bad", ["cash >> 10%", "price > 10%", "nobody.cash > 1", "cash > ten"])
def test_a_bad_condition_is_one_line_and_exit_2(
    bad: str, pair: tuple[Path, Path, dict[str, float]], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, _ = pair
    assert _code(["compare", str(old), str(new), "--fail-if", bad]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--fail-if" in err


def test_github_comment_leads_with_the_recommendation_and_folds_the_details(
    pair: tuple[Path, Path, dict[str, float]], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, _ = pair
    code = _code(["compare", str(old), str(new), "--format", "github", "--fail-if", "cash > 0"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("### tco: ") and "(unchanged)" in out.splitlines()[0]
    assert "**Failed:** cash > 0: own cash +" in out
    assert "| own |" in out and "| od |" not in out  # only what moved
    assert "<details><summary>Prices" in out and out.rstrip().endswith("</details>")


def test_a_switch_to_a_dearer_recommendation_fails_the_budget_gate(
    pair: tuple[Path, Path, dict[str, float]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 43: recommended.cash is the recommendation's own cash on each side, whichever
    option it is; 0.17.0 held the new recommendation to its own old figure and passed a switch
    to an option 59 % dearer as "+0.0 %"."""
    old, _, _ = pair
    doc = json.loads((old / "summary.json").read_text())
    cash = {o["name"]: o["totals_usd"]["cash"] for o in doc["options"]}
    was = doc["recommendation"]["option"]
    dearer = max(cash, key=cash.__getitem__)
    assert was is not None and cash[dearer] > cash[was]
    doc["recommendation"]["option"] = dearer
    new = tmp_path / "switched.json"
    new.write_text(json.dumps(doc))
    rose = cash[dearer] / cash[was] - 1
    args = ["compare", str(old), str(new), "--fail-if"]
    assert _code([*args, f"recommended.cash > +{rose * 100 * 0.99:.4f}%"]) == 1
    out, err = capsys.readouterr()
    assert f"recommended ({was} -> {dearer}) cash {rose:+.1%}" in err
    assert f"Recommended: {was} -> {dearer} (changed)" in out  # the switch is always printed
    assert f"{cash[was] - cash[dearer]:,.0f}" not in out  # (the rise is positive)
    assert _code([*args, f"recommended.cash > +{rose * 100 * 1.01:.4f}%"]) == 0
    assert _code([*args, "own.p95_delay > 1000000"]) == 0  # the delay the level judges
    capsys.readouterr()
    main(["compare", str(old), str(new), "--format", "json"])
    rec = json.loads(capsys.readouterr().out)["recommended"]
    assert (rec["old"], rec["new"]) == (was, dearer)
    assert rec["cash_usd"]["delta"] == pytest.approx(cash[dearer] - cash[was])
    assert {"npv_usd", "p95_delay_h", "p95_wait_h"} <= set(rec)


def test_an_option_neither_run_has_is_refused_naming_the_valid_ones(
    pair: tuple[Path, Path, dict[str, float]], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, _ = pair
    assert _code(["compare", str(old), str(new), "--fail-if", "nobody.cash > +10%"]) == 2
    err = capsys.readouterr().err
    assert "'nobody' is an option of neither run; give recommended or one of: own, od" in err


def test_inputs_are_the_ones_written_and_an_added_option_is_one_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """0.21.0 listed every default of an added option and of a `candidates: {}` block (28
    rows for --catalog's three candidates); now what either scenario gave, an option as one."""
    old = _write(tmp_path, "old")
    spot = {"name": "spot", "kind": "spot", "instance_type": "p4d.24xlarge"}
    new = _write(tmp_path, "new", options=[*_options(0.0826), spot])
    doc = json.loads((new / "summary.json").read_text())
    doc["scenario"]["written"]["candidates"] = {}  # as --catalog sets it
    doc["scenario"]["input"]["candidates"] = {"most": 4, "within": 1.1}
    (new / "summary.json").write_text(json.dumps(doc))
    main(["compare", str(old / "summary.json"), str(new / "summary.json"), "--format", "json"])
    rows = {i["path"]: (i["old"], i["new"]) for i in json.loads(capsys.readouterr().out)["inputs"]}
    assert rows == {
        "candidates": (None, "given, its defaults"),
        "options[spot]": (None, "spot option"),
    }  # (the new side writes the default electricity price: no change, so no row)


def test_monthly_lines_up_the_months_and_sums_to_the_change(
    pair: tuple[Path, Path, dict[str, float]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--monthly: the recommendation's cash month by month on each side; the running change
    ends at the change of its total (to the cent per month), and a month only one run covers
    counts as no cash on the other side."""
    old, new, _ = pair
    main(["compare", str(old), str(new), "--monthly", "--format", "json"])
    diff = json.loads(capsys.readouterr().out)
    rows = diff["monthly"]["months"]
    months = json.loads((old / "summary.json").read_text())["months"]
    assert [r["month"] for r in rows] == months
    end = rows[-1]["cumulative_change_usd"]
    assert end == pytest.approx(diff["recommended"]["cash_usd"]["delta"], abs=0.01 * len(rows))
    assert all(r["change_usd"] == pytest.approx(r["new_usd"] - r["old_usd"]) for r in rows)
    longer = _write(tmp_path, "longer", horizon_months=len(months) + 2)
    main(["compare", str(old), str(longer), "--monthly"])
    md = capsys.readouterr().out
    last = md.rstrip("\n").split("## The recommendation's cash by month")[1].split("\n## ")[0]
    assert last.strip().splitlines()[-1].split(" | ")[1] == "-"  # no cash old in the new month
    # A summary whose months are damaged is named by file and field (exit 2, one line).
    doc = json.loads((new / "summary.json").read_text())
    rec = doc["recommendation"]["option"]
    o = next(o for o in doc["options"] if o["name"] == rec)
    first = next(iter(o["monthly"]["cash_usd"]))
    o["monthly"]["cash_usd"][first] = o["monthly"]["cash_usd"][first][:-1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert _code(["compare", str(old), str(bad), "--monthly"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"monthly.cash_usd.{first}" in err and str(bad) in err


def test_a_run_decided_after_tax_is_compared_before_tax_with_one_decided_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Like for like: the same work and prices, one run deciding on cash after tax and the
    other before, differ in nothing but the tax; compared before tax on both, nothing moved,
    and the comparison says on which cash it compared."""
    old = _write(tmp_path, "old")
    new = _write(tmp_path, "new", tax={"rate": 0.21, "decide_on": "after_tax"})
    main(["compare", str(old), str(new), "--monthly", "--format", "json"])
    diff = json.loads(capsys.readouterr().out)
    assert diff["basis"].startswith("before tax")
    assert all(t["cash_usd"]["delta"] == pytest.approx(0.0, abs=0.01) for t in diff["totals"])
    assert diff["recommended"]["cash_usd"]["delta"] == pytest.approx(0.0, abs=0.01)
    assert all(abs(r["change_usd"]) < 0.01 for r in diff["monthly"]["months"])
    main(["compare", str(old), str(new)])
    assert "before tax: one run decided on cash after tax" in capsys.readouterr().out
    both = _write(tmp_path, "both", tax={"rate": 0.3, "decide_on": "after_tax"})
    main(["compare", str(new), str(both), "--format", "json"])
    diff = json.loads(capsys.readouterr().out)
    assert "basis" not in diff  # both after tax: compared as decided, and the rate moved it
    assert all(t["cash_usd"]["delta"] < 0 for t in diff["totals"])
