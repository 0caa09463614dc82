"""track.html's chart: the plan's cash month by month, what was spent in the months recorded, and
the forecast for the rest with its P10-P90 fan; below, the same cumulated against the budget
(where a budget owner reads whether the year lands over)."""

from __future__ import annotations

import numpy as np

from tco.reports.chart_files import close, png_bytes
from tco.reports.charts import PALETTE, Chart
from tco.simulator.tracking.forecast import Forecast
from tco.simulator.tracking.variance import Tracked

CHART_TITLE = (
    "Cash a month and cumulated: planned, actual (the whole months recorded) and forecast (the"
    " median, with the band of the futures at the P10 and P90 of the work to come)"
)


def chart_png(t: Tracked, f: Forecast) -> bytes:
    """The chart as PNG bytes (no date or software in them: the same inputs, the same bytes)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    p = t.plan
    planned = p.billed() + p.unbilled()
    x = np.arange(1, len(p.months) + 1)
    r = t.recorded
    fan = f.monthly_fan_usd or (f.monthly_usd,) * 3
    fig, (month, cum) = plt.subplots(2, 1, layout="constrained", figsize=(9, 6.5), sharex=True)
    usd = FuncFormatter(lambda v, _: f"${v:,.0f}")
    plan_c, actual_c, forecast_c = PALETTE[7], PALETTE[0], PALETTE[1]
    for ax, cumulate in ((month, False), (cum, True)):

        def shaped(v: np.ndarray, cumulate: bool = cumulate) -> np.ndarray:
            return np.cumsum(v) if cumulate else np.asarray(v, dtype=float)

        ax.plot(x, shaped(planned), color=plan_c, linestyle="--", label="planned")
        low, mid, high = (shaped(v) for v in fan)
        # Each future is a replay of its own: a month alone may cross, so the band spans them.
        band = np.vstack([low, mid, high])
        ax.fill_between(
            x[r:],
            band.min(0)[r:],
            band.max(0)[r:],
            color=forecast_c,
            alpha=0.2,
            linewidth=0,
            label="forecast at P10-P90 of the work",
        )
        ax.plot(
            x[max(r - 1, 0) :], mid[max(r - 1, 0) :], color=forecast_c, label="forecast (median)"
        )
        ax.plot(x[:r], mid[:r], color=actual_c, marker="o", label="actual")
        ax.yaxis.set_major_formatter(usd)
    cum.axhline(f.budget_usd, color="black", linewidth=0.8, label="budget")
    month.set_ylabel("USD a month")
    cum.set_ylabel("USD cumulated")
    cum.set_xlabel(f"month (1 = {p.months[0]}; actual to {p.months[r - 1]})")
    month.legend(fontsize=8, loc="best")
    cum.legend(fontsize=8, loc="upper left")
    month.set_title(f"{p.option}: plan, actuals and forecast")
    chart = Chart("track", CHART_TITLE, fig)
    try:
        return png_bytes(chart)
    finally:
        close(chart)
