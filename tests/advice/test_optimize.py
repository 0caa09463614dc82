"""tco optimize against theory: the newsvendor commitment on a known usage profile, the smallest
M/M/c cluster, and never worse than the scenario's own settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.cli import main
from tco.pricing.book import PriceBook
from tco.reports.optimize_files import FILES
from tco.simulator.advice.optimize import best, evaluator, optimize
from tco.simulator.run import prepare
from tco.simulator.scenario.model import loads_scenario
from tests.advice.test_recommendation import MMC, p_wait_over
from tests.conftest import ROOT

HOURS = 672.0  # February 2027
# Two one-GPU jobs from hour 0: usage is 2 instances for 30 % of the hours, 1 for 50 %, 0 for 20 %.
TRACE = (
    "submit_time_s,duration_s,num_gpus\n"
    f"0,{0.8 * HOURS * 3600:.0f},1\n0,{0.3 * HOURS * 3600:.0f},1\n"
)
INSTANCE = (
    "{gpu: A100 SXM 40GB, gpus: 1, usd_per_hour: 4.0, price_source: test, price_as_of: 2025-11}"
)


def _newsvendor(tmp_path: Path, discount: float) -> str:
    (tmp_path / "t.csv").write_text(TRACE)
    return f"""
name: newsvendor
start: 2027-02
horizon_months: 1
workload:
  trace: {{file: {tmp_path / "t.csv"}, source_gpu: A100 SXM 40GB}}
options:
  - name: sp
    kind: savings_plan
    instance: {INSTANCE}
    virtualization_overhead: 0
    commitment_instances: 0.1
    discount: {discount}
    rate_source: test
"""


@pytest.mark.parametrize(("discount", "quantile"), [(0.4, 1.0), (0.1, 0.0), (0.75, 2.0)])
def test_the_commitment_is_the_newsvendor_quantile_of_hourly_usage(
    tmp_path: Path, discount: float, quantile: float
) -> None:
    """Committing one more instance costs (1 - d) x price each hour and saves the price in each
    hour usage reaches it: optimal where P(usage >= c) = 1 - d, the d-quantile of usage."""
    book = PriceBook()
    prepared = prepare(loads_scenario(_newsvendor(tmp_path, discount)), book)
    configs = optimize(prepared, book)
    searched = [c for c in configs if "commitment_instances" in c.knobs]
    if quantile == 0.0:  # 20 % of the hours idle: at 10 % off, no commitment pays
        assert searched == []
        return
    committed = {c.knobs["commitment_instances"] for c in searched}
    assert quantile in committed
    evaluate = evaluator(prepared, 0, book.frozen())
    option = prepared.plans[0].option

    def cost(c: float) -> float:
        variant = option.model_copy(update={"commitment_instances": c})
        return evaluate(variant, {"c": c}).cash_usd

    assert cost(quantile) < cost(quantile - 0.5) and cost(quantile) < cost(quantile + 0.5)


def test_optimize_finds_the_smallest_m_m_c_cluster_and_never_does_worse() -> None:
    lam, mu, t = 400 / 730, 0.1, 24.0
    theory = next(c for c in range(1, 50) if p_wait_over(c, lam, mu, t) <= 0.05)
    book = PriceBook()
    configs = optimize(prepare(loads_scenario(MMC), book), book)
    meeting = [
        c.knobs["servers"] for c in configs if "servers" in c.knobs and c.meets_service_level
    ]
    assert min(meeting) == theory
    b = best(configs)
    assert b is not None
    given = [c for c in configs if c.knobs == {"as given": True} and c.meets_service_level]
    assert all(b.cash_usd <= c.cash_usd for c in given)
    assert any(c.on_frontier for c in configs)


def test_optimize_command_writes_its_files(tmp_path: Path) -> None:
    main(["optimize", str(ROOT / "scenarios" / "lab.yaml"), "--out", str(tmp_path), "--quiet"])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(FILES)
    assert '"option": "fleet-spot"' in (tmp_path / "optimize.json").read_text()
