"""A fully covered Savings Plan costs exactly (1 - discount) x on-demand over the horizon, for
every term, payment option and horizon length (leap years included): prepaid commitment that
runs past the horizon is credited, like a server's value at the horizon, not charged."""

from __future__ import annotations

import numpy as np
import pytest

from tco.simulator.kinds import registry
from tco.simulator.kinds.runs import JobRuns
from tco.simulator.run import prepare
from tco.simulator.scenario.model import loads_scenario

OD_USD_PER_HOUR = 32.0
DISCOUNT = 0.40
INSTANCE = (
    "{gpu: A100 SXM 40GB, gpus: 8, usd_per_hour: 32.0, price_source: test, price_as_of: 2025-11}"
)
SCENARIO = """
name: steady
start: {start}
horizon_months: {months}
workload:
  job_classes:
    - {{name: none, arrivals_per_month: 0, work: {{reference_gpu: A100 SXM 40GB, gpu_hours: 1}}}}
options:
  - {{name: od, kind: on_demand, instance: {instance}}}
  - name: sp
    kind: savings_plan
    instance: {instance}
    term_years: {term}
    payment: {payment}
    commitment_instances: 1
    discount: {discount}
    rate_source: test
"""


def _steady(start: str, months: int, term: int, payment: str) -> dict[str, dict[str, float]]:
    text = SCENARIO.format(
        start=start,
        months=months,
        term=term,
        payment=payment,
        instance=INSTANCE,
        discount=DISCOUNT,
    )
    prepared = prepare(loads_scenario(text))
    hours = prepared.horizon_h
    one = JobRuns(  # one instance busy for the whole horizon and beyond
        run_h=np.array([hours + 1e5]),
        gpus=np.array([8]),
        units=np.array([1]),
        start_h=np.array([0.0]),
        end_h=np.array([hours + 1e5]),
        reason=np.array([""], dtype=object),
        reason_text={},
    )
    out = {}
    for plan in prepared.plans:
        led = registry.of(plan.option).ledger(plan, one, prepared.edges)
        out[plan.option.name] = {
            "hours": hours,
            "cash": float(led.cash_total().sum()),
            "accounting": float(led.accounting_total().sum()),
        }
    return out


@pytest.mark.parametrize("payment", ["No Upfront", "Partial Upfront", "All Upfront"])
@pytest.mark.parametrize("term", [1, 3])
@pytest.mark.parametrize("months", [1, 6, 11, 12, 13, 24, 35, 36, 37, 60])
@pytest.mark.parametrize("start", ["2027-01", "2028-02", "2023-03"])
def test_fully_covered_plan_costs_the_discounted_on_demand_price(
    start: str, months: int, term: int, payment: str
) -> None:
    r = _steady(start, months, term, payment)
    hours = r["od"]["hours"]
    assert r["od"]["cash"] == pytest.approx(hours * OD_USD_PER_HOUR, rel=1e-12)
    want = (1 - DISCOUNT) * r["od"]["cash"]
    assert r["sp"]["cash"] == pytest.approx(want, rel=1e-9)
    assert r["sp"]["accounting"] == pytest.approx(want, rel=1e-9)
