"""A server priced at its order date (issue 27 item 2): the generation's new-price trend fitted to
the dated prices (pricing/data/new_price_history.csv, from the shared gpu_price_history.csv)
against an independent least-squares fit, applied from the catalogue price's date, and named in
the answer when it moves a price more than 5 %."""

from __future__ import annotations

import csv
import math
from datetime import date
from typing import Any

import numpy as np
import pytest

from tco.pricing import hardware
from tco.pricing.new_prices import trend
from tco.reports.answer import caveats
from tco.simulator.run import run
from tests.conftest import ROOT, make_scenario

ROWS = list(
    csv.DictReader((ROOT / "pricing" / "data" / "new_price_history.csv").read_text().splitlines())
)


def _years(text: str) -> float:
    d = date.fromisoformat(text)
    return d.year + (d.timetuple().tm_yday - 1) / 365.25


def test_the_ampere_trend_is_a_fixed_effects_least_squares_fit() -> None:
    """numpy's lstsq with one dummy per configuration priced twice reproduces the slope."""
    rows = [r for r in ROWS if r["segment"] == "Ampere"]
    counts = {
        c: sum(r["configuration"] == c for r in rows) for c in {r["configuration"] for r in rows}
    }
    rows = [r for r in rows if counts[r["configuration"]] >= 2]
    configs = sorted({r["configuration"] for r in rows})
    x = np.array(
        [[_years(r["date"])] + [float(r["configuration"] == c) for c in configs] for r in rows]
    )
    y = np.log([float(r["price_usd"]) for r in rows])
    (slope, *_), *_ = np.linalg.lstsq(x, y, rcond=None)
    t = trend("A100 SXM 40GB")
    assert len(configs) == 3 and t.per_year == pytest.approx(slope, rel=1e-9)
    assert -0.03 < t.per_year < -0.01 and t.standard_error is not None


def test_a_generation_priced_in_one_configuration_keeps_its_price() -> None:
    """Hopper: the HGX H100 went up and down 2023-2025; one configuration is too few to fit."""
    for gpu in ("H100 SXM", "B200 (HGX 1000W)", "V100 SXM2 32GB"):
        t = trend(gpu)
        assert t.per_year == 0.0 and t.standard_error is None and "price holds" in t.basis


def _own(server: str, month: int, **over: Any) -> Any:
    option = {
        "name": "own",
        "kind": "owned",
        "server": server,
        "tranches": [{"month": month, "servers": 1}],
        "failures": None,  # the price alone: no spare pool
        **over,
    }
    sc = make_scenario(horizon_months=24, options=[option])
    return run(sc)


def test_a_dgx_a100_ordered_in_2027_is_priced_by_the_trend_and_the_answer_says_so() -> None:
    """0.10.0 priced the DGX A100 at its 2020 launch price in any month."""
    r = _own("DGX A100 320GB", 6)
    s = hardware.server("DGX A100 320GB")
    years = _years("2027-07-01") - _years(s.price_date)
    capex = float(r.options[0].ledger.cash["capex"].sum())
    want = s.price_usd * math.exp(trend(s.gpu).per_year * years)
    assert capex == pytest.approx(want, rel=2e-3) and capex < 0.9 * s.price_usd
    said = " ".join(caveats(r))
    assert "Ampere new prices -2.0% a year" in said and "x0.8" in said


def test_a_price_the_trend_leaves_alone_is_not_named_and_a_scenario_rate_wins() -> None:
    r = _own("HGX H100 8-GPU", 6)
    capex = float(r.options[0].ledger.cash["capex"].sum())
    assert capex == pytest.approx(hardware.server("HGX H100 8-GPU").price_usd)
    assert "ordered in" not in " ".join(caveats(r))
    mine = _own("HGX H100 8-GPU", 6, price_decline_per_year=0.1)
    assert float(mine.options[0].ledger.cash["capex"].sum()) < 0.9 * capex
