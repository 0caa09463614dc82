"""Hourly usage rebuilt from intervals equals a brute-force integral."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tco.simulator.costs.usage import hourly


def brute(start: np.ndarray, end: np.ndarray, w: np.ndarray, hours: int) -> np.ndarray:
    out = np.zeros(hours)
    for s, e, x in zip(start, end, w, strict=True):
        if np.isnan(s):
            continue
        for h in range(hours):
            out[h] += x * max(0.0, min(e, h + 1) - max(s, h))
    return out


@given(st.lists(st.tuples(st.floats(-5, 60), st.floats(0, 30), st.floats(0, 16)), max_size=40))
def test_hourly_equals_brute_force(rows: list[tuple[float, float, float]]) -> None:
    start = np.array([r[0] for r in rows], dtype=float)
    end = start + np.array([r[1] for r in rows], dtype=float)
    w = np.array([r[2] for r in rows], dtype=float)
    np.testing.assert_allclose(hourly(start, end, w, 48), brute(start, end, w, 48), atol=1e-6)


def test_nan_starts_are_ignored() -> None:
    got = hourly(np.array([np.nan, 0.5]), np.array([3.0, 1.5]), np.array([5.0, 2.0]), 3)
    np.testing.assert_allclose(got, [1.0, 1.0, 0.0])
