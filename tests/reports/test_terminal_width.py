"""The answer fits the terminal: run `tco simulate` in a real pseudo-terminal at 80, 100 and 160
columns; no line is wider than the terminal and no figure is cut."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.conftest import ROOT

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _run_in_pty(width: int, out: Path, *extra: str) -> str:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    cmd = [
        sys.executable,
        "-c",
        "from tco.cli import main; main()",
        "simulate",
        str(ROOT / "scenarios" / "lab.yaml"),
        "--format",
        "json",
        "--out",
        str(out),
        *extra,
    ]
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    text = ANSI.sub("", b"".join(chunks).decode("utf-8"))
    # As a terminal shows it: a carriage return goes back to the line's start (the progress
    # spinner redraws itself in place and is erased).
    return "\n".join(line.split("\r")[-1] for line in text.replace("\r\n", "\n").split("\n"))


@pytest.mark.parametrize("width", [80, 100, 160])
def test_the_summary_fits_the_terminal(width: int, tmp_path: Path) -> None:
    details = width >= 150  # the default is the compact summary; --details shows every column
    text = _run_in_pty(width, tmp_path, *(["--details"] if details else []))
    # Warnings are one line each on stderr, as errors are (the terminal wraps them).
    lines = [line for line in text.split("\n") if line.strip() and not line.startswith("tco: ")]
    assert max(len(line) for line in lines) <= width
    lines = [line for line in lines if not "\u2800" <= line[0] <= "\u28ff"]  # no spinner
    assert "…" not in text  # no cell cut short
    row = re.compile(r"^│? ?[* ] \S+ .*\$\d{1,3}(,\d{3})+")  # the whole total shows
    rows = [line for line in lines if row.match(line)]
    assert len(rows) == 8, text  # one per option of the lab
    assert lines[0].startswith("Recommended:")
    if details:
        assert "savings_plan" in text and "USD/GPU-h" in text
    else:
        assert len(lines) <= 33  # about 30: the decision, the table, what it rests on


def test_a_long_list_shows_the_cheapest_eight_and_says_how_many_more() -> None:
    """The first screen holds the decision (issue 53: 40 lines at 80 columns): past eight
    options the compact table keeps the cheapest eight, the recommended one always, and the
    legend says how many more --details lists."""
    from rich.console import Console

    from tco.reports import terminal
    from tco.simulator.run import OddsRun, prepare, simulate
    from tests.conftest import make_scenario

    options = [
        {"name": f"od-{i}", "kind": "on_demand", "instance_type": "p4d.24xlarge"} for i in range(11)
    ]
    r = simulate(prepare(make_scenario(options=options)), odds=OddsRun(futures=0))
    shown = terminal.shown(r, details=False)
    assert len(shown) == terminal.COMPACT_ROWS == 8
    assert r.recommendation.option in {o.name for o in shown}
    import io

    out = Console(width=80, record=True, file=io.StringIO())
    terminal.print_summary(r, out)
    text = out.export_text()
    assert sum(line.lstrip("* ").startswith("od-") for line in text.splitlines()) == 8
    assert "(and 3 more options)" in " ".join(text.split())
    assert len(terminal.shown(r, details=True)) == 11
