"""The fast tier's list of slow tests names tests that exist (a renamed test would silently
rejoin the fast tier and a stale line would hide nothing)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import slow_test_ids

ROOT = Path(__file__).resolve().parents[2]


def test_every_listed_slow_test_exists() -> None:
    ids = slow_test_ids()
    assert len(ids) >= 10  # the list was read, not an empty file
    missing = []
    for node in sorted(ids):
        file, _, name = node.partition("::")
        function = re.sub(r"\[.*\]$", "", name).split("::")[-1]
        path = ROOT / file
        if not path.is_file() or not re.search(rf"def {re.escape(function)}\(", path.read_text()):
            missing.append(node)
    assert not missing, f"tests/slow_tests.txt names tests that do not exist: {missing}"


def test_heavy_tests_are_slow_too(request) -> None:  # type: ignore[no-untyped-def]
    heavy = [i for i in request.session.items if i.get_closest_marker("heavy")]
    assert all(i.get_closest_marker("slow") for i in heavy)
