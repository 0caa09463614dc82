"""The terminal leads with the decision (issue 29): the recommendation, its cost, the level, how
sure and the runner-up in the first lines; one comparison sorted by cost with the answer marked;
about 30 lines at 80 columns; everything else behind --details; break-even only where owning
meets renting; the sensitivity about the answer and its runner-up; the width of a pipe from
$COLUMNS, else 100."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from tco.reports import decision, lead, robustness, terminal
from tco.simulator.engine.findings import Odds, OptionOdds
from tco.simulator.kinds import registry
from tests.conftest import shipped

ROW = re.compile(r"^│? ?([* ]) (\S+)\s+│?\s*\$([\d,]+)")


def _rows(text: str) -> list[tuple[bool, str, float]]:
    out = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            out.append((m.group(1) == "*", m.group(2), float(m.group(3).replace(",", ""))))
    return out


def test_the_decision_comes_first_and_fits_30_lines_at_80_columns() -> None:
    result = shipped("lab")
    text = terminal.render(result, width=80, details=False)
    lines = text.rstrip("\n").split("\n")
    assert len(lines) <= 32, text  # about 30: 31 for the lab without odds
    assert max(len(line) for line in lines) <= 80
    rec = result.recommendation
    assert lines[0].startswith(f"Recommended: {rec.option}, $")
    assert any(line.startswith("Service level:") for line in lines[:5])
    runner = decision.runner_up(result)
    assert runner is not None and any(f"Runner-up: {runner}" in line for line in lines[:10])
    rows = _rows(text)
    assert len(rows) == len(result.options)
    cash = [c for _, _, c in rows]
    assert cash == sorted(cash)  # by cost
    assert [name for marked, name, _ in rows if marked] == [rec.option]
    # The details are one flag away, not in the default.
    assert "utilisation (" not in text or "Owning (" not in text.split("Runner-up")[0]
    full = terminal.render(result, width=80, details=True)
    assert len(full.splitlines()) > len(lines)


def test_details_keep_every_sentence_the_default_leaves_out() -> None:
    result = shipped("lab")
    short = terminal.render(result, width=160, details=False)
    full = terminal.render(result, width=160, details=True)
    for needle in ("Cheapest over", "counts $"):
        assert needle in full and needle not in short


def test_the_sensitivity_is_about_the_answer_and_its_runner_up() -> None:
    result = shipped("lab")
    said = " ".join(robustness.lead_sensitivity(result))
    rec, runner = result.recommendation.option, decision.runner_up(result)
    assert f"The lead of {rec} over {runner}" in said


def test_break_even_only_for_owned_options() -> None:
    from tco.reports.answer import break_even_cell

    result = shipped("lab")
    for o in result.options:
        cell = break_even_cell(result, o)
        if not registry.get(o.kind).buys_hardware:
            assert cell == "-", (o.name, cell)
        elif cell != "-":
            other = cell.split(" vs ")[1]
            assert not registry.get(result.option(other).kind).buys_hardware


def test_how_sure_and_the_runner_up_odds_are_in_the_lead() -> None:
    result = shipped("lab")
    rec = result.recommendation
    runner = decision.runner_up(result)
    assert rec.option is not None and runner is not None

    def odds_of(name: str, best: float) -> OptionOdds:
        return OptionOdds(name, best, 0.01, 0.97, 70_000, 78_000, 90_000, 12.0, 900.0)

    odds = Odds(100, odds_of(rec.option, 0.99), odds_of(runner, 0.01), {rec.option: 0.99}, ())
    lines = lead.lead(replace(result, recommendation=replace(rec, odds=odds)))
    sure = next(line for line in lines if line.startswith("How sure:"))
    assert "99 of 100 futures" in sure and "$70,000 to $90,000" in sure
    assert "the best choice in 1% of the futures" in next(
        line for line in lines if line.startswith("Runner-up:")
    )


@pytest.mark.parametrize(("columns", "width"), [("80", 80), ("", 100), ("abc", 100)])
def test_a_pipe_takes_its_width_from_columns_else_100(
    columns: str, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert terminal.terminal_console().width == width  # pytest's output is not a terminal
