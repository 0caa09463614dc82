"""What the recommendation depends on beyond prices: one input changed at a time, and the point
where the workload volume turns the answer, checked against the M/M/c queue."""

from __future__ import annotations

from tco.reports import terminal
from tco.simulator.run import run
from tco.simulator.scenario import loads_scenario
from tco.simulator.summary import to_summary
from tests.test_recommendation import MMC, p_wait_over

# Seven one-GPU workstations against an expensive cloud: the workstations meet the p95 24-hour
# wait at today's volume (P(W > 24 h) = 1.2 % in theory) and miss it at +20 % (29.8 %).
SEVEN = MMC.replace("servers: 1}", "servers: 7}")


def theory_flip(c: int = 7) -> float:
    """The arrival factor at which c workstations stop meeting the level: P(W > 24 h) = 5 %."""
    lo, hi = 1.0, 1.5
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if p_wait_over(c, 400 * mid / 730, 0.1, 24) <= 0.05 else (lo, mid)
    return lo


def test_more_work_turns_the_answer_where_the_m_m_c_queue_says() -> None:
    r = run(loads_scenario(SEVEN))
    assert r.recommendation is not None and r.recommendation.option == "own"
    by = {(w.input, w.change): w for w in r.what_ifs}
    more = by[("workload volume", 0.2)]
    assert more.flips and more.recommended == "cloud"
    assert not by[("workload volume", -0.2)].flips
    assert by[("workload volume", -0.2)].recommended_cash_usd is not None
    f = r.flip_point
    assert f is not None and f.input == "workload volume" and f.to == "cloud"
    # Theory: 1.088. The p95 of ten years of jobs is an estimate; P(W > 24 h) is 2.7 % at 1.05
    # and 13.5 % at 1.15, so the simulated flip lies between them.
    assert abs(theory_flip() - 1.088) < 0.001
    assert 1.05 < f.factor < 1.15, f.factor


def test_the_answer_and_the_report_name_the_input_that_flips_it() -> None:
    r = run(loads_scenario(SEVEN))
    text = terminal.render(r)
    assert "workload volume +20% (cloud)" in text
    assert "it turns to cloud at" in text
    s = to_summary(r)
    assert s["flip_point"]["input"] == "workload volume" and s["flip_point"]["to"] == "cloud"
    names = {w["input"] for w in s["what_ifs"]}
    assert names == {
        "workload volume",
        "workload growth",
        "lead time",
        "resale value",
        "depreciation life",
    }


def test_without_resale_buying_costs_its_book_value_more() -> None:
    """Resale is at book value at the horizon: without it, the recommended cluster's cash rises by
    exactly what the resale brought in."""
    r = run(loads_scenario(SEVEN))
    own = r.option("own")
    resale = -float(own.ledger.cash["resale"].sum())
    assert resale > 0
    (w,) = [w for w in r.what_ifs if w.input == "resale value"]
    assert w.recommended == "own" and w.recommended_cash_usd is not None
    assert abs(w.recommended_cash_usd - (own.total_cash_usd + resale)) < 0.01


def test_a_scenario_without_owned_options_skips_the_owned_changes() -> None:
    text = SEVEN.replace(
        "  - {name: own, kind: owned, server: RTX 4090 workstation, servers: 7}\n", ""
    )
    r = run(loads_scenario(text))
    assert {w.input for w in r.what_ifs} == {"workload volume", "workload growth"}
