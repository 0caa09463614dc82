"""The README's examples run as written (examples cannot rot): its Python runs; each YAML
excerpt it quotes from a shipped scenario is that file's text; each console block's commands run
(in a folder of their own, at 80 columns, offline) and print what it shows: the whole output
where the block shows it whole, else its lines in order where it elides with '...'."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
VERSION = re.compile(r"tco \d+\.\d+\.\d+")  # the version a quoted output names moves each release


def test_readme_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "the README has a Python example"
    monkeypatch.chdir(ROOT)
    for code in blocks:
        namespace: dict[str, object] = {}
        exec(compile(code, "README.md", "exec"), namespace)
        results = namespace.get("results")
        if results is not None:  # the staged example: three seeds, three different job streams
            totals = [r.option("own-8xA40").metrics.cash_usd for r in results]  # type: ignore[attr-defined]
            jobs = {len(r.jobs) for r in results}  # type: ignore[attr-defined]
            assert len(totals) == 3 and len(jobs) > 1


def test_the_yaml_it_quotes_is_the_shipped_lab_scenario() -> None:
    """The walk-through shows lab.yaml's own lines (no scenario that only looks like it)."""
    lab = (ROOT / "scenarios" / "lab.yaml").read_text()
    start = README.index("## Five minutes on the lab")
    end = README.index("\n## ", start + 1)
    blocks = re.findall(r"```yaml\n(.*?)```", README[start:end], re.S)
    assert len(blocks) >= 2
    for block in blocks:
        assert block in lab, f"not a run of scenarios/lab.yaml's lines:\n{block[:200]}"


def _console_blocks() -> list[list[tuple[str, list[str]]]]:
    """Each console block as its commands, each with the lines shown after it."""
    out = []
    for block in re.findall(r"```console\n(.*?)```", README, re.S):
        steps: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line.rstrip())
        out.append(steps)
    return out


def _run(command: str, cwd: Path) -> tuple[int, str, str]:
    args = shlex.split(command)
    assert args[0] == "tco", command
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "TCO_ODDS"))}
    env.update(COLUMNS="80", AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull)
    proc = subprocess.run(
        [sys.executable, "-c", "from tco.cli import main; main()", *args[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return proc.returncode, proc.stdout, proc.stderr


def _in_order(shown: list[str], printed: list[str]) -> str | None:
    """The first shown line not found, in order, among the printed ones (None: all are)."""
    at = 0
    for line in (x for x in shown if x != "..."):
        while at < len(printed) and printed[at] != line:
            at += 1
        if at == len(printed):
            return line
        at += 1
    return None


def test_its_commands_print_what_it_shows(tmp_path: Path) -> None:
    """Every console block, in the README's order, in one folder (a later block reads what an
    earlier one wrote), with the shipped scenarios beside it."""
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    blocks = _console_blocks()
    assert len(blocks) >= 5
    for steps in blocks:
        for command, shown in steps:
            code, out, err = _run(command, tmp_path)
            gated = "--fail-if" in command
            assert code in ((0, 1) if gated else (0,)), f"{command}: exit {code}\n{err[-2000:]}"
            # A note on stderr comes before the output (a log's first line) or after it (a
            # gate that failed): the shown lines are in order in one or the other.
            lines = [[VERSION.sub("tco X", x.rstrip()) for x in t.splitlines()] for t in (out, err)]
            shown = [VERSION.sub("tco X", x) for x in shown]
            if "..." not in shown and shown:  # shown whole: the output is exactly that
                assert [VERSION.sub("tco X", x.rstrip()) for x in out.splitlines()] == shown
            else:
                missing = _in_order(shown, lines[0] + lines[1])
                if missing is not None:
                    missing = _in_order(shown, lines[1] + lines[0])
                assert missing is None, f"{command}: does not print, in order: {missing!r}"


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a Markdown file's headings (lower case, punctuation dropped)."""
    heads = re.findall(r"^#+ (.*)$", markdown, re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in heads}


def test_its_links_lead_to_sections_that_exist() -> None:
    """A reader sent to a section finds it: every link to a heading of the README or of a
    document it names."""
    links = re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", README)
    assert links
    for path, anchor in links:
        text = README if not path else (ROOT / path).read_text()
        assert anchor in _anchors(text), f"{path or 'README.md'}#{anchor}: no such heading"
