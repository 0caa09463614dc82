"""Pure financial functions: depreciation schedules, NPV, break-even.

Conventions (as numpy-financial states its own): amounts are costs, positive when money leaves;
monthly flows are at the *end* of each month; an annual discount rate r becomes the monthly rate
(1 + r)^(1/12) - 1.
"""

from __future__ import annotations

import numpy as np


def straight_line(cost: float, salvage: float, months: int) -> np.ndarray:
    """Equal monthly depreciation; sums to cost - salvage over ``months``."""
    return np.full(months, (cost - salvage) / months)


def sum_of_years_digits(cost: float, salvage: float, months: int) -> np.ndarray:
    """Sum-of-the-years'-digits on a monthly grid: month i (1-based) of n gets a share
    (n - i + 1) / (n(n+1)/2) of cost - salvage."""
    n = months
    weights = np.arange(n, 0, -1, dtype=np.float64) / (n * (n + 1) / 2)
    return (cost - salvage) * weights


def declining_balance(cost: float, salvage: float, months: int, factor: float = 2.0) -> np.ndarray:
    """Declining balance at ``factor`` / life per month, switching to straight line when that
    gives more (the usual rule), never going below salvage; sums to cost - salvage."""
    rate = factor / months
    book = cost
    out = np.zeros(months)
    for i in range(months):
        remaining = months - i
        db = book * rate
        sl = (book - salvage) / remaining
        dep = min(max(db, sl), book - salvage)
        out[i] = dep
        book -= dep
    return out


def depreciation(
    method: str, cost: float, salvage: float, months: int, factor: float
) -> np.ndarray:
    """Monthly depreciation by ``method``: straight_line, declining_balance or
    sum_of_years_digits."""
    if method == "straight_line":
        return straight_line(cost, salvage, months)
    if method == "sum_of_years_digits":
        return sum_of_years_digits(cost, salvage, months)
    if method == "declining_balance":
        return declining_balance(cost, salvage, months, factor)
    raise ValueError(f"unknown depreciation method {method!r}")


def monthly_rate(annual_rate: float) -> float:
    """Monthly rate equivalent to an annual rate."""
    return float((1.0 + annual_rate) ** (1.0 / 12.0) - 1.0)


def npv(annual_rate: float, monthly_costs: np.ndarray) -> float:
    """Present value at month 0 of costs paid at the end of months 1..n."""
    r = monthly_rate(annual_rate)
    t = np.arange(1, len(monthly_costs) + 1, dtype=np.float64)
    return float(np.sum(np.asarray(monthly_costs) / (1.0 + r) ** t))


def break_even_month(mine: np.ndarray, other: np.ndarray) -> int | None:
    """First month (1-based) from which my cumulative cost stays at or below the other's to the
    end of the horizon; None when I end up dearer. Month 1 means cheaper (or equal) throughout."""
    a = np.cumsum(mine)
    b = np.cumsum(other)
    tol = 1e-6 * max(1.0, float(np.max(np.abs(b))) if len(b) else 1.0)
    ok = a <= b + tol
    if not ok[-1]:
        return None
    bad = np.nonzero(~ok)[0]
    return 1 if len(bad) == 0 else int(bad[-1]) + 2
