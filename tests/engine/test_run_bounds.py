"""Work bounded and said before it starts, limits read strictly, inputs that made no sense
refused (issue 51, the last round's classes). 0.19.0: a scenario of 2.4 million jobs ran past
5 minutes with no bound said; `TCO_MAX_INPUT_MB=inf` was a traceback and "64MB" silently
ignored; `tco fit --tokens 0.5` and `candidates: {regions: [mars-1]}` passed without a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.cli import main
from tco.pricing.book import PriceBook
from tco.simulator import run as run_module
from tco.simulator.advice import ahead
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine import allowance
from tco.simulator.engine.simulate import simulate_options
from tests.conftest import ROOT, cli, one_line_error

LAB = ROOT / "scenarios" / "lab.yaml"
QUICK = ["--prices", "snapshot", "--format", "json", "--quiet"]


def _lab() -> run_module.Prepared:
    book = PriceBook("snapshot")
    sc, digest = run_module.load_file(LAB, book)
    return run_module.prepare(sc, book, str(LAB), digest)


def test_a_run_past_the_limit_is_refused_before_it_plays_with_its_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_play(*_: object, **__: object) -> None:
        raise AssertionError("played before the run's size was checked")

    monkeypatch.setattr(run_module, "simulate_options", no_play)
    monkeypatch.setenv("TCO_MAX_RUN_JOB_PLAYS", "1000000")
    most, parts = ahead.most(_lab())
    # The declared parts: the options as listed, the search's, the race's and the what-ifs'.
    assert parts.startswith("4,719 jobs x 8 options: 37,752; the portfolio search:")
    assert most > 1_000_000 and "the decision's race: 6,000,000" in parts
    code, err = cli(["simulate", str(LAB), *QUICK, "--out", f"{tmp_path}/r"], capsys)
    one_line_error(code, err, f"may play up to {most:,} job-plays", "TCO_MAX_RUN_JOB_PLAYS")


def test_plays_no_declaration_bounds_stop_at_the_same_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The allowance charges every play: past it, one line with what was played."""
    prepared = _lab()
    monkeypatch.setenv("TCO_MAX_RUN_JOB_PLAYS", str(4_719 * 3))
    with allowance.allowing(prepared.file), pytest.raises(ScenarioError) as info:
        simulate_options(prepared)
    assert "this run has played 18,876 job-plays" in str(info.value)
    assert "\n" not in str(info.value)
    simulate_options(prepared)  # outside a run's allowance (a notebook's play): not bounded


def test_a_long_run_says_what_it_may_play_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tco import cli_simulate

    monkeypatch.setattr(cli_simulate, "SAY_AHEAD_JOB_PLAYS", 1)
    short = LAB.read_text().replace("horizon_months: 36", "horizon_months: 3")
    (f := tmp_path / "lab.yaml").write_text(short)
    main(["simulate", str(f), "--prices", "snapshot", "--format", "json", "--out", f"{tmp_path}/r"])
    err = capsys.readouterr().err
    assert "tco: this run may play up to " in err and "of CPU at most" in err


@pytest.mark.parametrize("value", ["inf", "nan", "abc", "-1", "0", "64MB"])
def test_a_limit_set_to_nonsense_is_one_line_naming_the_variable(
    value: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TCO_MAX_INPUT_MB", value)
    code, err = cli(["simulate", str(LAB), *QUICK, "--out", f"{tmp_path}/r"], capsys)
    one_line_error(code, err, "TCO_MAX_INPUT_MB", repr(value), "give e.g. 64 (the default)")


def test_a_whole_number_limit_refuses_a_fraction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TCO_MAX_JOB_PLAYS", "1.5")
    code, err = cli(["simulate", str(LAB), *QUICK, "--out", f"{tmp_path}/r"], capsys)
    one_line_error(code, err, "TCO_MAX_JOB_PLAYS", "is not a whole number above 0")


@pytest.mark.parametrize(("tokens", "says"), [("0.5", "tokens 0.5"), ("2", "tokens 2 is")])
def test_fewer_tokens_than_one_sequence_are_refused(
    tokens: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "2" for 2T priced a run of seconds."""
    code, err = cli(["fit", "llama-2-7b", "--tokens", tokens], capsys)
    one_line_error(code, err, says, "fewer than one sequence of 4,096 tokens", "e.g. 2T")


@pytest.mark.parametrize(
    ("where", "region", "says"),
    [
        ("candidates: {regions: [mars-1]}\n", "mars-1", "unknown region 'mars-1'"),
        ("candidates: {regions: [us-east-4]}\n", "us-east-4", "did you mean 'us-east4'?"),
    ],
)
def test_a_region_no_provider_has_is_refused(
    where: str, region: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = LAB.read_text().replace("\noptions:", f"\n{where}options:", 1)
    (f := tmp_path / "s.yaml").write_text(text)
    code, err = cli(["validate", str(f)], capsys)
    one_line_error(code, err, "candidates.regions", says)
    ok = text.replace(region, "us-east4")
    f.write_text(ok)
    code, err = cli(["validate", str(f)], capsys)
    assert code == 0, err


def test_an_interrupt_lost_while_the_report_is_written_leaves_no_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C just after the first file: a KeyboardInterrupt raised inside a finaliser is
    printed as "Exception ignored" and lost; 0.19.0 then wrote the manifest and exited 0."""
    import contextlib
    import os
    import signal

    from tco.reports import files

    real = files.write_data
    # What the handler was before: the default one, or ignored when the suite itself was started
    # in the background (a shell ignores SIGINT for what it runs with &, nohup among them).
    before = signal.getsignal(signal.SIGINT)

    def interrupted(*args: object, **kwargs: object) -> object:
        written = real(*args, **kwargs)  # type: ignore[arg-type]
        with contextlib.suppress(KeyboardInterrupt):  # lost, as in a finaliser
            os.kill(os.getpid(), signal.SIGINT)
        return written

    monkeypatch.setattr(files, "write_data", interrupted)
    out = tmp_path / "r"
    code, err = cli(
        [
            "simulate",
            str(LAB),
            "--prices",
            "snapshot",
            "--format",
            "json,md",
            "--quiet",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 1 and "Aborted." in err, err
    assert (out / "summary.json").exists() and not (out / "manifest.json").exists()
    assert signal.getsignal(signal.SIGINT) is before  # restored
