"""Golden files: each scenario in scenarios/ has a stored summary.json (and lab its terminal
summary) that a run must reproduce, with the odds off; lab and industrial also as a user runs
them, with the odds on (a small number of futures: the decision over them, its odds, frontier
and search). After an intended change, regenerate them with
``TCO_UPDATE_GOLDEN=1 python -m pytest tests/house/test_golden.py`` and review the diff."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tco.reports import summary, terminal
from tests.conftest import ROOT, shipped, shipped_with_odds

GOLDEN = ROOT / "tests" / "golden"
SCENARIOS = sorted(p.stem for p in (ROOT / "scenarios").glob("*.yaml"))
UPDATE = os.environ.get("TCO_UPDATE_GOLDEN") == "1"


def _compare(path: Path, text: str) -> None:
    if UPDATE:  # rewriting is not passing: the run says so, and the diff is reviewed
        assert not os.environ.get("CI"), "TCO_UPDATE_GOLDEN=1 in CI would compare nothing"
        path.write_text(text, encoding="utf-8")
        pytest.skip(f"rewrote {path.name}: review `git diff tests/golden`")
    assert path.exists(), f"no golden file {path.name}; run with TCO_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


# The ITP replay (42,000 jobs on a backfilled cluster) takes over a minute of CPU, and the
# existing cluster's replay (21,000 jobs, its portfolio search) 11 s: out of the default run,
# run by `python -m pytest -m heavy` (README); tests/kinds/test_existing_servers.py checks its
# mechanics in the default run.
HEAVY = {"itp-cluster", "existing-cluster"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.heavy) if n in HEAVY else n for n in SCENARIOS]
)
def test_summary_matches_golden(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    doc = json.loads(summary.dumps(shipped(name)))
    doc["tco_version"] = "<version>"  # a release does not change the numbers
    _compare(GOLDEN / f"{name}.summary.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


ODDS_GOLDEN = ("lab", "industrial")


@pytest.mark.parametrize("name", ODDS_GOLDEN)
def test_summary_with_odds_matches_golden(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    doc = json.loads(summary.dumps(shipped_with_odds(name)))
    doc["tco_version"] = "<version>"
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    _compare(GOLDEN / f"{name}.odds.summary.json", text)


def test_terminal_summary_matches_golden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    # What a user sees by default in a pipe or a log: the compact summary at 100 columns.
    _compare(GOLDEN / "lab.terminal.txt", terminal.render(shipped("lab"), 100, details=False))


def test_every_scenario_has_a_golden_file_and_every_golden_a_scenario() -> None:
    assert len(SCENARIOS) >= 4
    stored = {p.name.removesuffix(".summary.json") for p in GOLDEN.glob("*.summary.json")}
    assert stored == set(SCENARIOS) | {f"{n}.odds" for n in ODDS_GOLDEN}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.heavy) if n in HEAVY else n for n in SCENARIOS]
)
def test_the_first_screen_holds_the_answer(name: str) -> None:
    """At 80 columns the answer fits one screen: at most 40 lines, none wider (issue 53); with
    its odds where the golden runs have them, as a user sees it."""
    r = shipped_with_odds(name) if name in ODDS_GOLDEN else shipped(name)
    lines = terminal.render(r, width=80, details=False).splitlines()
    assert len(lines) <= 40, "\n".join(lines)
    assert max(len(x) for x in lines) <= 80
