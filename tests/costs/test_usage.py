"""Hourly usage rebuilt from intervals equals a brute-force integral."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tco.simulator.costs.usage import hourly, monthly_by


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


def test_monthly_by_is_each_group_s_hourly_integral_summed_into_months() -> None:
    """``monthly_by`` (no hourly array) equals ``hourly`` of each group's intervals summed into
    months: intervals across month edges, clipped at both ends, never started (NaN), of zero
    length; a group with no interval is zero."""
    rng = np.random.default_rng(7)
    n, hours = 2000, 2160
    start = rng.uniform(-50.0, hours + 50.0, n)
    end = start + rng.exponential(200.0, n)
    start[::37] = np.nan
    end[::41] = start[::41]
    weight = rng.integers(1, 9, n).astype(np.float64)
    group = rng.integers(0, 3, n)
    edges = np.array([0, 744, 1416, 2160])
    months = monthly_by(group, 4, start, end, weight, edges)
    for g in range(3):
        mine = group == g
        by_hour = hourly(start[mine], end[mine], weight[mine], hours)
        expected = [by_hour[a:b].sum() for a, b in pairwise(edges)]
        np.testing.assert_allclose(months[g], expected, rtol=1e-12)
    assert (months[3] == 0).all()
    # By hand: one job of 2 GPUs from hour 700 to 800 is 88 GPU-hours in January, 112 after.
    one = monthly_by(np.array([0]), 1, np.array([700.0]), np.array([800.0]), np.array([2.0]), edges)
    np.testing.assert_allclose(one[0], [88.0, 112.0, 0.0])
