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
    # Written for memory (at 5 M jobs each temporary is 40 MB): a column is dropped as soon as
    # it is used up, and the sums are the same operations in the same order as ever.
    ok = ~np.isnan(start)
    s = start[ok]
    np.clip(s, 0.0, float(hours), out=s)
    e = end[ok]
    np.clip(e, 0.0, float(hours), out=e)
    w = np.asarray(weight, dtype=np.float64)[ok]
    del ok
    keep = e > s
    t = np.concatenate([s[keep], e[keep]])
    del s, e
    w = w[keep]
    del keep
    d = np.concatenate([w, -w])
    del w
    inside = t < hours  # a change at the horizon affects no hour
    if not inside.all():
        t, d = t[inside], d[inside]
    del inside
    b = t.astype(np.int64)  # t >= 0: its floor
    x = np.add(b, 1, dtype=np.float64)  # d x (b + 1 - t), in one buffer
    np.subtract(x, t, out=x)
    np.multiply(d, x, out=x)
    del t
    partial = np.bincount(b, weights=x, minlength=hours)
    del x
    full = np.bincount(b, weights=d, minlength=hours)
    rate_before = np.concatenate([[0.0], np.cumsum(full)[:-1]])
    out: np.ndarray = rate_before + partial
    # Float cancellation can leave -1e-12 where the true value is 0.
    out[np.abs(out) < 1e-9] = 0.0
    return out


def monthly(
    start: np.ndarray, end: np.ndarray, weight: np.ndarray, edges: np.ndarray
) -> np.ndarray:
    """The same integral as :func:`hourly`, summed into the months between ``edges`` without an
    hourly array: F(T) = sum_j d_j max(0, T - t_j) over the rate changes (+w at a start, -w at
    an end), at each edge, from sorted changes and two cumulative sums; a month is the
    difference of F at its edges. O(jobs log jobs + months), for figures that need months
    only (a shape's busy GPU-hours, its power)."""
    ok = ~np.isnan(start)
    last = float(edges[-1])
    s = np.clip(start[ok], 0.0, last)
    e = np.clip(end[ok], 0.0, last)
    w = np.asarray(weight, dtype=np.float64)[ok]
    keep = e > s
    t = np.concatenate([s[keep], e[keep]])
    d = np.concatenate([w[keep], -w[keep]])
    order = np.argsort(t, kind="stable")
    t, d = t[order], d[order]
    rate = np.concatenate([[0.0], np.cumsum(d)])
    moment = np.concatenate([[0.0], np.cumsum(d * t)])
    k = np.searchsorted(t, edges, side="left")  # the changes before each edge
    at_edges = rate[k] * edges - moment[k]
    out: np.ndarray = np.diff(at_edges)
    out[np.abs(out) < 1e-9] = 0.0
    return out
