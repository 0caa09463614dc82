"""Savings Plans as sold: the rate of the plan type, term and payment option (offline, the
reserved-instance stand-in, labelled), and a plan over a fleet of instance types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tco.simulator.core.errors import ScenarioError
from tco.simulator.kinds.rented.savings_plan import fleet_hours
from tco.simulator.run import run
from tests.conftest import make_scenario


def _sp(**over: Any) -> dict[str, Any]:
    return {
        "name": "sp",
        "kind": "savings_plan",
        "instance_type": "p4d.24xlarge",
        "commitment_instances": 0.5,
        **over,
    }


@pytest.mark.parametrize(
    ("plan", "term", "payment", "rate"),
    [
        # gpu_reserved_rates_vantage_2025-11-30.csv, p4d.24xlarge us-east-1 (effective $/h)
        ("EC2Instance", 1, "No Upfront", 13.921094),  # standard RI
        ("EC2Instance", 3, "All Upfront", 8.159056),
        ("Compute", 1, "No Upfront", 16.705312),  # convertible RI
        ("Compute", 3, "Partial Upfront", 13.887741),
    ],
)
def test_offline_rate_is_the_labelled_reserved_stand_in(
    plan: str, term: int, payment: str, rate: float
) -> None:
    o = run(make_scenario(options=[_sp(plan=plan, term_years=term, payment=payment)])).options[0]
    (q,) = [q for q in o.quotes if "Savings Plan rate" in q.item]
    assert q.value == rate
    assert (
        "STAND-IN" in q.detail
        and ("standard" if plan == "EC2Instance" else "convertible") in q.detail
    )
    assert q.as_of == "2025-11-30"


def test_no_stand_in_gives_a_clear_error() -> None:
    # p5.48xlarge has no 1-year standard RI (shared/data/aws README section 4).
    with pytest.raises(ScenarioError, match=r"options\[0\]\.rate_usd_per_hour.*standard reserved"):
        run(make_scenario(options=[_sp(instance_type="p5.48xlarge", plan="EC2Instance")]))


def test_fleet_commitment_goes_to_the_highest_discount_first() -> None:
    # Two shapes each hour: A 2 instances at od 10 / rate 5 (50 % off), B 1 at od 10 / rate 8.
    inst = np.array([[2.0, 2.0], [1.0, 1.0]])
    commit = np.array([6.0, 14.0])
    covered_od, used, overflow = fleet_hours(inst, commit, (5.0, 8.0), (10.0, 10.0))
    # Hour 0: $6 covers 1.2 A -> od covered 12, overflow 0.8 A x 10 + B 10 = 18.
    # Hour 1: $14 covers both A ($10), then 0.5 B ($4): od covered 25, overflow 5.
    assert covered_od.tolist() == pytest.approx([12.0, 25.0])
    assert used.tolist() == pytest.approx([6.0, 14.0])
    assert overflow.tolist() == pytest.approx([18.0, 5.0])
    # An EC2 Instance plan that does not cover shape B bills it at on-demand.
    _, used, overflow = fleet_hours(inst, commit, (5.0, None), (10.0, 10.0))
    assert used.tolist() == pytest.approx([6.0, 10.0])
    assert overflow.tolist() == pytest.approx([18.0, 10.0])


def test_fleet_plan_runs_and_ec2_instance_plan_covers_one_family(tmp_path: Path) -> None:
    fleet = ["g5.xlarge", "g5.12xlarge", "p4d.24xlarge"]
    compute = _sp(name="c", instance_type=None, instance_types=fleet, discount=0.3, rate_source="t")
    ec2 = {**compute, "name": "e", "plan": "EC2Instance"}
    od = {"name": "od", "kind": "on_demand", "instance_types": fleet}
    c, e, o = run(make_scenario(options=[compute, ec2, od])).options
    c_rates = [q for q in c.quotes if "Savings Plan rate" in q.item]
    e_rates = [q for q in e.quotes if "Savings Plan rate" in q.item]
    assert len(c_rates) == 3 and len(e_rates) == 2  # p4d is another family
    assert c.total_cash_usd < o.total_cash_usd + 0.5 * 0.7 * 1.006 * 12 * 730


def test_rate_for_a_fleet_is_refused() -> None:
    bad = _sp(
        instance_type=None, instance_types=["g5.xlarge"], rate_usd_per_hour=1.0, rate_source="t"
    )
    with pytest.raises(ScenarioError, match="for a fleet give discount"):
        run(make_scenario(options=[bad]))


def test_a_commitment_at_another_provider_plays_on_the_quote_given() -> None:
    """A reserved contract outside AWS (no per-SKU commitment rate of another provider is
    public: ceilings only) is a savings_plan at that provider's shapes with the buyer's quote:
    paid whether used or not, written to FOCUS as a commitment bought from that provider."""
    from tco.reports.focus_export import rows

    option = {
        "name": "nebius-1yr",
        "kind": "savings_plan",
        "gpus": {"model": "H100 SXM", "providers": ["nebius"]},
        "term_years": 1,
        "commitment_instances": 1,
        "discount": 0.35,
        "rate_source": "a quote (test)",
    }
    result = run(make_scenario(options=[option], horizon_months=12))
    o = result.option("nebius-1yr")
    rate = next(q for q in o.quotes if "Savings Plan rate" in q.item)
    assert rate.value == pytest.approx(2.95 * 0.65)  # Nebius's 1-GPU H100 list price, 35 % off
    hours = 8760  # one term of AWS's 8,760 h, the horizon a calendar year
    assert o.ledger.cash["sp_commitment"].sum() == pytest.approx(rate.value * hours)
    bought = [r for r in rows(result) if r["x_TcoCategory"] == "sp_commitment"]
    assert bought and {r["ProviderName"] for r in bought} == {"Nebius"}
    assert {r["ChargeCategory"] for r in bought} == {"Purchase"}
