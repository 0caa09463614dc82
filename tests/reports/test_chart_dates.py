"""The charts' date axis: ticks every few months, January-aligned, the year where it changes,
as matplotlib's AutoDateLocator placed them on the shipped horizons (24 and 36 months)."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from tco.reports.chart_dates import month_starts, month_ticks


def _labels(first: str, months: int) -> list[str]:
    result = SimpleNamespace(months=[str(np.datetime64(first, "M") + i) for i in range(months)])
    fig, ax = plt.subplots()
    try:
        x = month_starts(result)  # type: ignore[arg-type]
        ax.plot(x, np.arange(months))
        month_ticks(ax, result)  # type: ignore[arg-type]
        fig.canvas.draw()
        return [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    finally:
        plt.close(fig)


@pytest.mark.parametrize(
    ("first", "months", "labels"),
    [
        ("2027-01", 36, ["2027", "Jul", "2028", "Jul", "2029", "Jul", "2030"]),
        ("2027-01", 24, ["2027", "Apr", "Jul", "Oct", "2028", "Apr", "Jul", "Oct", "2029"]),
        ("2027-04", 12, ["May\n2027", "Jul", "Sep", "Nov", "2028", "Mar"]),  # the year at once
        ("2027-11", 2, ["Nov\n2027", "Dec", "2028"]),
        ("2027-03", 120, ["2028", "2030", "2032", "2034", "2036"]),
    ],
)
def test_ticks_every_few_months_with_the_year_where_it_changes(
    first: str, months: int, labels: list[str]
) -> None:
    assert _labels(first, months) == labels
