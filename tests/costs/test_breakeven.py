"""Break-even volume against a closed form: with electricity at $0 an owned cluster's cost does
not depend on how busy it is, and on-demand cost is proportional to the work, so they cost the
same at scale k* = owned total / on-demand total."""

from __future__ import annotations

import pytest

from tco.simulator.run import run
from tco.simulator.scenario.model import loads_scenario

SCENARIO = """
name: volume
start: 2027-01
horizon_months: 12
seed: 4
workload:
  job_classes:
    - {name: jobs, arrivals_per_month: 60, gpus: 1,
       work: {reference_gpu: A40, gpu_hours: 8, distribution: fixed}}
options:
  - name: own
    kind: owned
    server: 8x A40 NVLink server
    servers: 1
    power: {usd_per_kwh: 0}
  - name: od
    kind: on_demand
    instance: {gpu: A40, gpus: 1, usd_per_hour: 2.5, price_source: test, price_as_of: 2025-11}
"""


def test_owning_and_renting_cost_the_same_at_the_closed_form_volume() -> None:
    r = run(loads_scenario(SCENARIO))
    (v,) = r.break_even_volumes
    own, od = r.option("own"), r.option("od")
    want = own.total_cash_usd / od.total_cash_usd
    assert v.owned == "own" and v.rented == "od"
    assert v.scale == pytest.approx(want, rel=1e-6)
    busy, paid = own.ledger.gpu_hours_busy.sum(), own.ledger.gpu_hours_paid.sum()
    assert v.utilisation == pytest.approx(busy * want / paid, rel=1e-6)
    assert v.gpu_hours_per_month == pytest.approx(own.work.demanded * want / 12, rel=1e-6)


def test_no_crossing_says_which_side_wins() -> None:
    cheap = SCENARIO.replace("usd_per_hour: 2.5", "usd_per_hour: 0.0001")
    (v,) = run(loads_scenario(cheap)).break_even_volumes
    assert v.scale is None and "renting costs less up to 50x" in v.note
