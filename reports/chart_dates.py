"""The date axis of the report's charts: month starts as dates, ticks every few months.

The ticks are worked out once from the months of the horizon (matplotlib's AutoDateLocator
tried calendar rules at every draw, a third of a chart's drawing time, for the same months on
the shipped horizons).
"""

from __future__ import annotations

import matplotlib.dates as mdates
import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import FixedLocator, FuncFormatter

from tco.simulator.engine.result import Result


def month_starts(result: Result) -> np.ndarray:
    """The first day of each month of the horizon: a real date axis."""
    return np.array([f"{m}-01" for m in result.months], dtype="datetime64[D]")


# Month intervals the axis may step by (the smallest showing at most MOST_TICKS is taken).
TICK_MONTHS = (1, 2, 3, 4, 6, 12, 24, 60)
MOST_TICKS = 9
MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def month_ticks(ax: Axes, result: Result) -> None:
    """Dates on the x axis: the first of every few months (January-aligned), each month by
    name, the year at each January and under the first tick."""
    first = np.datetime64(result.months[0], "M")
    months = first + np.arange(len(result.months) + 1)  # the last month's end too
    number = months.astype(np.int64)  # months since 1970-01
    step = next((m for m in TICK_MONTHS if len(months[number % m == 0]) <= MOST_TICKS), 120)
    ticks = months[number % step == 0]
    if not len(ticks):
        ticks = months[:1]
    at = mdates.date2num(ticks.astype("datetime64[D]"))  # type: ignore[no-untyped-call]
    labels = {}
    for i, (x, m) in enumerate(zip(at.tolist(), ticks.astype(np.int64).tolist(), strict=True)):
        year, month = divmod(m, 12)
        name = MONTH_NAMES[month]
        labels[round(x, 6)] = (
            str(1970 + year) if month == 0 else (f"{name}\n{1970 + year}" if i == 0 else name)
        )
    ax.xaxis.set_major_locator(FixedLocator(at))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: labels.get(round(v, 6), "")))
