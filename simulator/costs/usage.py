"""Rebuild usage per clock hour from job intervals, exactly.

Each job holds ``weight`` (GPUs, instances, or delivered work per hour) over [start, end). The
amount used in hour h is the integral of the sum of those step functions over [h, h+1). It is
computed from the rate changes alone (+w at a start, -w at an end): a change at time t in hour b
adds w x (b + 1 - t) to hour b and w to every later hour. That is O(jobs + hours), with no event
per hour in the simulation.
"""

from __future__ import annotations

import numpy as np


def hourly(start: np.ndarray, end: np.ndarray, weight: np.ndarray, hours: int) -> np.ndarray:
    """Integral of sum_i weight_i x 1[start_i <= t < end_i] over each hour [h, h+1), h < hours.

    NaN starts (jobs that never ran) are ignored; intervals are clipped to [0, hours).
    """
    ok = ~np.isnan(start)
    s = np.clip(start[ok], 0.0, float(hours))
    e = np.clip(end[ok], 0.0, float(hours))
    w = np.asarray(weight, dtype=np.float64)[ok]
    keep = e > s
    s, e, w = s[keep], e[keep], w[keep]
    t = np.concatenate([s, e])
    d = np.concatenate([w, -w])
    inside = t < hours  # a change at the horizon affects no hour
    t, d = t[inside], d[inside]
    b = np.floor(t).astype(np.int64)
    partial = np.bincount(b, weights=d * (b + 1 - t), minlength=hours)
    full = np.bincount(b, weights=d, minlength=hours)
    rate_before = np.concatenate([[0.0], np.cumsum(full)[:-1]])
    out: np.ndarray = rate_before + partial
    # Float cancellation can leave -1e-12 where the true value is 0.
    out[np.abs(out) < 1e-9] = 0.0
    return out
