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


def monthly_by(
    group: np.ndarray,
    groups: int,
    start: np.ndarray,
    end: np.ndarray,
    weight: np.ndarray,
    edges: np.ndarray,
) -> np.ndarray:
    """The integral of :func:`hourly` by month for each group of intervals (``group``: each
    one's, 0 to ``groups`` - 1), groups x months, without an hourly array: an interval within
    one month adds weight x its length there; one across months adds its first and last
    months' parts there and weight x each whole month between (a difference array over the
    months). O(jobs + groups x months), for figures that need months only (each instance
    shape's busy GPU-hours, for its power)."""
    months = len(edges) - 1
    ok = ~np.isnan(start)
    last = float(edges[-1])
    s = np.clip(start[ok], 0.0, last)
    e = np.clip(end[ok], 0.0, last)
    w = np.asarray(weight, dtype=np.float64)[ok]
    g = np.asarray(group, dtype=np.int64)[ok]
    keep = e > s
    s, e, w, g = s[keep], e[keep], w[keep], g[keep]
    at = np.asarray(edges, dtype=np.float64)
    first = np.clip(np.searchsorted(at, s, side="right") - 1, 0, months - 1)
    final = np.clip(np.searchsorted(at, e, side="left") - 1, 0, months - 1)
    size = groups * months
    one = first == final
    out = np.zeros(size)
    out += np.bincount(
        g[one] * months + first[one], weights=w[one] * (e[one] - s[one]), minlength=size
    )
    cross = ~one
    if cross.any():
        gc, fc, lc, wc = g[cross], first[cross], final[cross], w[cross]
        out += np.bincount(gc * months + fc, weights=wc * (at[fc + 1] - s[cross]), minlength=size)
        out += np.bincount(gc * months + lc, weights=wc * (e[cross] - at[lc]), minlength=size)
        # Whole months between: +w from the month after the first to the month before the last.
        diff = np.bincount(gc * (months + 1) + fc + 1, weights=wc, minlength=groups * (months + 1))
        diff -= np.bincount(gc * (months + 1) + lc, weights=wc, minlength=groups * (months + 1))
        rate = np.cumsum(diff.reshape(groups, months + 1)[:, :months], axis=1)
        out += (rate * np.diff(at)).reshape(size)
    result: np.ndarray = out.reshape(groups, months)
    result[np.abs(result) < 1e-9] = 0.0
    return result
