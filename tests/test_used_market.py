"""Resale per GPU generation (issue 27 item 1): the used-market fit against the dated used and new
prices it rests on (pricing/data/used_market.csv, from the shared gpu_price_history.csv and
costs.md section 5), Epoch AI's long-run slope, and what a scenario may say instead."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tco.pricing import hardware
from tco.pricing.used_market import (
    EPOCH_DECAY_PER_YEAR,
    SEGMENTS,
    fitted_generations,
    observations,
    used_market,
)
from tco.simulator.core.errors import ScenarioError
from tco.simulator.run import run
from tco.simulator.scenario.model import loads_scenario
from tests.conftest import ROOT, make_scenario

GPU_OF = {
    "V100 SXM3 32GB": "V100 SXM2 32GB",
    "A100 40GB PCIe": "A100 SXM 40GB",
    "A100 80GB": "A100 SXM 80GB",
    "GeForce cards": "RTX 4090",
}


@pytest.mark.parametrize(
    "o",
    [o for o in observations() if o.role in ("fit", "check")],
    ids=lambda o: f"{o.gpu}-{o.years}",
)
def test_every_observation_the_fit_uses_or_checks_lies_in_its_band(o: Any) -> None:
    """The band's slowest and fastest curves bracket each observed range at its ages."""
    m = used_market(GPU_OF.get(o.gpu, o.gpu))
    assert m.segment == o.segment
    slowest, fastest = m.share(o.years[0], m.low), m.share(o.years[1], m.high)
    assert fastest <= o.ratio[1] + 1e-9 and slowest >= o.ratio[0] - 1e-9, (o, m)


def test_the_generations_average_epochs_long_run_slope_and_the_rest_follow_it() -> None:
    """Epoch AI: hardware loses 0.14 orders of magnitude of value a year (Cottier et al. 2024).
    The fitted data-centre generations differ by scarcity (Hopper 0.16, Volta 0.38, Ampere
    0.53 a year) but their geometric mean is Epoch's within 2 %; a generation without a dated
    used price (Blackwell) decays at Epoch's rate, inside the fitted generations' spread."""
    rates = [m.per_year for m in fitted_generations()]
    assert {m.segment for m in fitted_generations()} == {"Volta", "Ampere", "Hopper"}
    assert math.exp(sum(map(math.log, rates)) / len(rates)) == pytest.approx(
        EPOCH_DECAY_PER_YEAR, rel=0.02
    )
    b200 = used_market("B200 (HGX 1000W)")
    assert b200.per_year == pytest.approx(0.14 * math.log(10))
    assert (b200.low, b200.high) == (min(rates), max(rates))


def test_a_hopper_server_keeps_what_the_2026_market_pays() -> None:
    """0.10.0 credited an H100 sold at 2.4-3 years 0.33-0.39 of its price (one curve x 0.72 for
    every GPU); used H100 SXM sold for 0.71-0.80 of the 2023-09 HGX price in 2026-Q1."""
    h100 = used_market("H100 SXM")
    assert h100.segment == "Hopper" and h100.share(2.45) > 0.6
    v100 = used_market("V100 SXM2 32GB")
    assert v100.share(4.0) == pytest.approx(2500 / 11500, rel=1e-3)  # the one Volta point


def test_every_catalog_gpu_has_a_segment() -> None:
    assert set(SEGMENTS) == set(hardware.gpus())


def test_the_band_quantile_runs_from_slowest_to_fastest_through_the_fit() -> None:
    m = used_market("H100 SXM")
    assert m.rate_at(0.0) == pytest.approx(m.low) and m.rate_at(0.5) == pytest.approx(m.per_year)
    assert m.rate_at(1.0) == pytest.approx(m.high) and m.rate_at(0.25) < m.per_year


def _own(**over: Any) -> Any:
    option = {"name": "own", "kind": "owned", "server": "HGX H100 8-GPU", "servers": 2, **over}
    return run(make_scenario(horizon_months=36, options=[option])).options[0]


def test_the_resale_counted_is_the_generations_fit_and_the_answer_states_its_band() -> None:
    own = _own()
    capex = float(own.ledger.cash["capex"].sum())
    resale = -float(own.ledger.cash["resale"].sum())
    assert resale == pytest.approx(capex * used_market("H100 SXM").share(3.0), rel=1e-9)
    notes = own.ledger.notes
    m = used_market("H100 SXM")
    assert notes["resale_band_low_usd"] == pytest.approx(capex * m.share(3.0, m.high))
    assert notes["resale_band_high_usd"] == pytest.approx(capex * m.share(3.0, m.low))


def test_a_quote_a_curve_or_a_rate_of_the_scenarios_own() -> None:
    quote = _own(resale_value={"usd_per_server": 90_000, "source": "dealer, 2026-11"})
    assert -quote.ledger.cash["resale"].sum() == pytest.approx(2 * 90_000)
    curve = _own(resale_value={"share_by_year": [0.8, 0.7, 0.5], "source": "our broker"})
    capex = float(curve.ledger.cash["capex"].sum())
    assert -curve.ledger.cash["resale"].sum() == pytest.approx(0.5 * capex)
    rate = _own(resale_decay_per_year=0.3)
    assert -rate.ledger.cash["resale"].sum() == pytest.approx(capex * math.exp(-0.9))
    assert "resale_band_low_usd" not in rate.ledger.notes  # the scenario's rate: no band


def test_a_bad_resale_is_refused_with_its_field(tmp_path: Any) -> None:
    text = (ROOT / "scenarios" / "lab.yaml").read_text()
    bad = text.replace(
        "    servers: 1\n", "    servers: 1\n    resale_value: {share_by_year: []}\n", 1
    )
    with pytest.raises(ScenarioError, match=r"options\[0\]\.resale_value"):
        loads_scenario(bad, str(tmp_path / "s.yaml"))
