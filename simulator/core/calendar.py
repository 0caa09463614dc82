"""Simulated time: hours since the start of the first month, and calendar months.

The clock unit is the hour. Month m covers hours [edges[m], edges[m+1]); months have their real
calendar lengths (28-31 days), so a monthly budget matches the calendar.
"""

from __future__ import annotations

import calendar as _cal

import numpy as np


def month_labels(start: str, months: int) -> list[str]:
    """['2027-01', '2027-02', ...] for ``months`` months from ``start`` (YYYY-MM)."""
    year, month = int(start[:4]), int(start[5:7])
    out = []
    for i in range(months):
        y, m = divmod(month - 1 + i, 12)
        out.append(f"{year + y:04d}-{m + 1:02d}")
    return out


def month_number(month: str) -> int:
    """A month (YYYY-MM, or the month of YYYY-MM-DD) as months since year 0: differences of
    two are the months between them."""
    return int(month[:4]) * 12 + int(month[5:7]) - 1


def month_edges_h(start: str, months: int) -> np.ndarray:
    """Hour at which each month starts, plus the horizon end: an int64 array of months + 1."""
    lengths = [
        _cal.monthrange(int(lbl[:4]), int(lbl[5:]))[1] * 24 for lbl in month_labels(start, months)
    ]
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def calendar_months(start: str, months: int) -> np.ndarray:
    """Calendar month number (1-12) of each simulated month."""
    return np.array([int(lbl[5:]) for lbl in month_labels(start, months)], dtype=np.int64)


def per_month(hourly: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Sum an hourly array (length edges[-1]) into months."""
    csum = np.concatenate([[0.0], np.cumsum(hourly, dtype=np.float64)])
    return np.diff(csum[edges])


def month_index(edges: np.ndarray, hour: float) -> int:
    """The month (0-based, within the horizon) that ``hour`` falls in; ``edges``: the month
    boundaries in hours (``month_edges_h``)."""
    return int(months_of(edges, np.asarray([hour]))[0])


def month_ending(edges: np.ndarray, hour: float) -> int:
    """The month (0-based) that an interval ending at ``hour`` last falls in: an end on a month's
    edge ends the month before (a group of servers retired at midnight on the 1st served the
    month that ended then, not the one that starts)."""
    return max(0, int(np.searchsorted(edges, hour, side="left")) - 1)


def months_of(edges: np.ndarray, hours: np.ndarray) -> np.ndarray:
    """:func:`month_index` of each of ``hours`` (an int64 array)."""
    m = np.searchsorted(edges, hours, side="right") - 1
    return np.clip(m, 0, len(edges) - 2).astype(np.int64)
