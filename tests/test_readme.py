"""The README's Python example runs as written (examples cannot rot)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_readme_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
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
