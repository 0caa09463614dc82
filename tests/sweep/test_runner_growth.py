"""The odds' default runner: this process while the plays are small, local workers once they
have taken ``SECOND_WORKER_CPU_S`` of CPU; the same results either way."""

from __future__ import annotations

import pytest

from tco.simulator.sweep import runner
from tco.simulator.sweep.runner import GrowingRunner


def _square(payload: int, task: int) -> int:
    return payload + task * task  # module level: a worker process reaches it by name


def _rounds(r: GrowingRunner) -> list[list[int]]:
    out = []
    for tasks in ([1, 2, 3], [4, 5], [6, 7, 8, 9]):
        got = dict(r.map(tasks))
        out.append([got[i] for i in range(len(tasks))])
    return out


def test_small_plays_stay_in_this_process() -> None:
    r = GrowingRunner(10, _square, 2, "odds")
    try:
        assert _rounds(r) == [[11, 14, 19], [26, 35], [46, 59, 74, 91]]
        assert r.pool is None and 0 <= r.spent < runner.SECOND_WORKER_CPU_S
    finally:
        r.close()


def test_plays_past_the_threshold_go_to_workers_with_the_same_results(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runner, "SECOND_WORKER_CPU_S", 0.0)
    r = GrowingRunner(10, _square, 2, "odds")
    try:
        assert _rounds(r) == [[11, 14, 19], [26, 35], [46, 59, 74, 91]]
        assert r.pool is not None  # the first round here, the rest on the pool
    finally:
        r.close()


def test_one_cpu_never_opens_a_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "SECOND_WORKER_CPU_S", 0.0)
    r = GrowingRunner(10, _square, 1, "odds")
    try:
        assert _rounds(r)[2] == [46, 59, 74, 91] and r.pool is None
    finally:
        r.close()
