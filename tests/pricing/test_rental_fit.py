"""The rental price volatility fitted to dated prices (``pricing.rental_paths``), checked
against the arithmetic by hand and the shipped history's own figures."""

from __future__ import annotations

import math

import pytest

from tco.pricing import rental_paths


def _row(month: str, usd: float, series: str = "s", gpu: str = "H100 SXM") -> dict[str, str]:
    return {
        "series": series,
        "gpu": gpu,
        "month": month,
        "usd_per_gpu_hour": str(usd),
        "source": "test",
    }


def test_the_fit_is_the_zero_drift_maximum_likelihood_by_hand() -> None:
    # The shipped H100 series: $2.99 (2024-10), $1.70 (2025-10), $2.35 (2026-03).
    found = rental_paths.changes()
    assert [(c.start, c.end) for c in found] == [("2024-10", "2025-10"), ("2025-10", "2026-03")]
    x1, x2 = math.log(1.70 / 2.99), math.log(2.35 / 1.70)
    by_hand = math.sqrt((x1**2 / 1.0 + x2**2 / (5 / 12)) / 2)
    assert rental_paths.fitted().pooled == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx(0.5341, abs=1e-4)  # docs/MODEL.md's figure
    assert rental_paths.fitted().by_architecture == {"Hopper": pytest.approx(by_hand)}


def test_leave_one_out_refits_on_the_others_and_places_the_held_out_change() -> None:
    held = rental_paths.leave_one_out(rental_paths.changes())
    x1, x2 = math.log(1.70 / 2.99), math.log(2.35 / 1.70)
    s1 = abs(x2) / math.sqrt(5 / 12)  # the fit without the first change
    s2 = abs(x1)  # the fit without the second
    assert held[0].volatility_per_year == pytest.approx(s1)
    assert held[0].z == pytest.approx(x1 / s1)
    assert held[1].z == pytest.approx(x2 / (s2 * math.sqrt(5 / 12)))
    assert [round(h.z, 3) for h in held] == [-1.126, 0.888]  # docs/MODEL.md's table
    assert all(h.in_band for h in held)


def test_a_generation_without_a_series_takes_the_pooled_fit_and_says_so() -> None:
    rows = [_row("2024-01", 2.0), _row("2025-01", 1.0), _row("2024-01", 1.0, "a", "A100 SXM 80GB")]
    rows.append(_row("2024-07", 1.5, "a", "A100 SXM 80GB"))
    fit = rental_paths.fit(rental_paths.changes(rows))
    assert fit.by_architecture["Hopper"] == pytest.approx(math.log(2.0))
    assert fit.by_architecture["Ampere"] == pytest.approx(math.log(1.5) / math.sqrt(0.5))
    sigma, basis = fit.volatility("B200 (HGX 1000W)")
    assert sigma == fit.pooled and "no dated Blackwell rental prices" in basis
    with pytest.raises(ValueError, match="no rental price changes"):
        rental_paths.volatility(())
