"""US federal income tax rules on equipment and expenses, as tables with their sources: what a
buyer of servers may deduct, and when. Pure data and arithmetic; ``costs.tax`` applies them to
an option's ledger.

- Computers and peripheral equipment are 5-year MACRS property (Rev. Proc. 87-56, asset class
  00.12), depreciated by 200 % declining balance switching to straight line, half-year
  convention, or mid-quarter when more than 40 % of a tax year's property is placed in service
  in its last quarter (IRC §168(d)(3)). The percentages are IRS Publication 946's own Tables
  A-1 to A-5 (and A-8 for the straight-line election), which taxpayers use as printed; a test
  derives them from the method and checks them to the printed rounding.
- Bonus depreciation (IRC §168(k)): 100 % for property acquired and placed in service after
  2025-01-19, permanently (Public Law 119-21 of 2025-07-04, "OBBBA", §70301); before, the TCJA
  phase-down. tco knows months, not days: January 2025 is taken at its old 40 % (property
  acquired by the 19th), and a server is taken as acquired the month it is placed in service.
- Section 179 expensing: up to a limit a year, reduced dollar for dollar by the year's §179
  property above a threshold (IRC §179(b)), limits as the IRS indexes them.
"""

from __future__ import annotations

from dataclasses import dataclass

# IRS Publication 946 (2024), Appendix A, 5-year property, percentages of the basis by
# recovery year: Table A-1 (half-year convention), Tables A-2 to A-5 (mid-quarter convention,
# placed in service in quarter 1 to 4), Table A-8 (straight line, half-year convention).
HALF_YEAR = (20.00, 32.00, 19.20, 11.52, 11.52, 5.76)
MID_QUARTER = {
    1: (35.00, 26.00, 15.60, 11.01, 11.01, 1.38),
    2: (25.00, 30.00, 18.00, 11.37, 11.37, 4.26),
    3: (15.00, 34.00, 20.40, 12.24, 11.30, 7.06),
    4: (5.00, 38.00, 22.80, 13.68, 10.94, 9.58),
}
STRAIGHT_LINE = (10.00, 20.00, 20.00, 20.00, 20.00, 10.00)
RECOVERY_YEARS = 5
SOURCE_TABLES = "IRS Publication 946 (2024), Appendix A, Tables A-1 to A-5 and A-8"

# Section 179 (IRC §179(b)(1)-(2)): (limit, threshold) in USD by the tax year's calendar year.
# 2018-2024: the IRS's inflation adjustments (Rev. Proc. 2018-57, 2019-44, 2020-45, 2021-45,
# 2022-38, 2023-34); 2025: Public Law 119-21 §70306 ($2.5 M, $4 M); 2026: Rev. Proc. 2025-32.
# Later years are indexed to inflation by rules not yet published: 2026's figures are used
# (said by ``section_179_limits``).
SECTION_179 = {
    2018: (1_000_000, 2_500_000),
    2019: (1_020_000, 2_550_000),
    2020: (1_040_000, 2_590_000),
    2021: (1_050_000, 2_620_000),
    2022: (1_080_000, 2_700_000),
    2023: (1_160_000, 2_890_000),
    2024: (1_220_000, 3_050_000),
    2025: (2_500_000, 4_000_000),
    2026: (2_560_000, 4_090_000),
}
SOURCE_179 = (
    "IRC §179(b); Rev. Proc. 2023-34 (2024), Public Law 119-21 §70306 (2025), Rev. Proc."
    " 2025-32 (2026)"
)

# Bonus depreciation by the month property is placed in service (YYYY-MM, first month it
# applies from): IRC §168(k)(6) as TCJA set it (100 % from 2017-09-28, then 80 % in 2023, 60 %
# in 2024, 40 % in 2025) and as Public Law 119-21 §70301 changed it (100 % after 2025-01-19).
BONUS = (
    ("0000-01", 0.50),
    ("2017-10", 1.00),
    ("2023-01", 0.80),
    ("2024-01", 0.60),
    ("2025-01", 0.40),
    ("2025-02", 1.00),
)
SOURCE_BONUS = "IRC §168(k) as amended by Public Law 119-21 §70301 (2025-07-04)"

# The US federal corporate income tax rate since 2018 (IRC §11(b)).
FEDERAL_RATE = 0.21
SOURCE_RATE = "IRC §11(b): 21 % since 2018"


def bonus_share(month: str) -> float:
    """The bonus depreciation share for property placed in service in ``month`` (YYYY-MM)."""
    share = BONUS[0][1]
    for since, s in BONUS:
        if month >= since:
            share = s
    return share


def section_179_limits(year: int) -> tuple[float, float]:
    """(limit, threshold) of the §179 deduction for a tax year (the last published year's for a
    later one; the first's for an earlier one)."""
    known = sorted(SECTION_179)
    return SECTION_179[min(max(year, known[0]), known[-1])]


def section_179_deduction(year: int, placed_usd: float) -> float:
    """The §179 deduction a tax year allows when ``placed_usd`` of §179 property is placed in
    service in it: the limit reduced dollar for dollar above the threshold, never below 0 and
    never more than the property's cost (the business-income limit is taken as met)."""
    limit, threshold = section_179_limits(year)
    return max(0.0, min(placed_usd, limit - max(0.0, placed_usd - threshold)))


def macrs_shares(convention: str, quarter: int = 0) -> tuple[float, ...]:
    """The share of the basis deducted in each recovery year (5-year property): ``half_year``,
    ``mid_quarter`` (``quarter`` 1-4 of the tax year it was placed in service) or
    ``straight_line`` (the straight-line election, half-year convention)."""
    if convention == "half_year":
        table = HALF_YEAR
    elif convention == "mid_quarter":
        table = MID_QUARTER[quarter]
    elif convention == "straight_line":
        table = STRAIGHT_LINE
    else:
        raise ValueError(f"unknown convention {convention!r}")
    return tuple(p / 100.0 for p in table)


def declining_balance_shares(years: int, first_year: float) -> tuple[float, ...]:
    """200 % declining balance switching to straight line when that gives more, the first year
    a fraction ``first_year`` of a year (0.5: half-year; 0.875, 0.625, 0.375, 0.125: mid-quarter
    in quarters 1 to 4): the method the IRS tables print, for a test to check them by."""
    rate = 2.0 / years
    book, left, out = 1.0, float(years), []
    fraction = first_year
    while book > 1e-12:
        dep = max(book * rate, book / left if left > 0 else book) * fraction
        dep = min(dep, book) if left > fraction else book
        out.append(dep)
        book -= dep
        left -= fraction
        fraction = 1.0
    return tuple(out)


@dataclass(frozen=True)
class Disposal:
    """In the year an asset is sold, half-year property takes half a year's deduction, and
    mid-quarter property the months to the middle of the quarter it is sold in (Publication 946,
    chapter 4, "Property disposed of early")."""

    convention: str
    quarter: int = 0  # of the tax year the asset is sold in, 1-4

    @property
    def share_of_year(self) -> float:
        if self.convention == "mid_quarter":
            return (3 * self.quarter - 1.5) / 12.0
        return 0.5
