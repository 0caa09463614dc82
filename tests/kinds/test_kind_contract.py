"""The contract every option kind passes (issue 54; as PuLP runs one suite over every solver):
each registered kind, the plug-in test's toy kind included, plans an option, plays it, prices
it, prices it again on the same runs to the cent, declares money fields that are its fields,
bills as FOCUS to the cent, says where its data goes, and says why it cannot do what it does not
declare. A kind added without an example here fails the first test: the contract is not
optional."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tco.reports import focus_export
from tco.simulator.core import uncertain_names
from tco.simulator.costs import ledger
from tco.simulator.engine.result import Result
from tco.simulator.engine.simulate import repriced
from tco.simulator.kinds import registered, registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.run import prepare, simulate
from tests.conftest import make_scenario
from tests.kinds.test_plugin_kind import FlatRentalKind

OWN = {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1}
OD = {"name": "od", "kind": "on_demand", "instance_types": ["g5.xlarge", "p4d.24xlarge"]}
# One option of each kind (the last of its list; the others are what it names), on
# make_scenario's work: 1-GPU jobs of 10 A40 GPU-hours.
EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "owned": [OWN],
    "on_demand": [OD],
    "savings_plan": [
        {
            "name": "sp",
            "kind": "savings_plan",
            "instance_types": ["g5.xlarge", "p4d.24xlarge"],
            "plan": "Compute",
            "term_years": 1,
            "commitment_usd_per_hour": 0.5,
        }
    ],
    "spot": [{"name": "spot", "kind": "spot", "instance_type": "g5.xlarge"}],
    "capacity_block": [
        {"name": "cb", "kind": "capacity_block", "instance_type": "p5.48xlarge"}
        | {"blocks": [{"month": 1, "instances": 1, "days": 14}]},
    ],
    "bare_metal": [
        {
            "name": "bm",
            "kind": "bare_metal",
            "instance": {
                "gpu": "A100 SXM 80GB",
                "gpus": 8,
                "usd_per_hour": 32.0,
                "price_source": "lab.yaml's bare metal (Epoch cloud-gpus CSV, 2025-03-17)",
                "price_as_of": "2025-03-17",
                "intra_node": "nvswitch_a100",
                "inter_node": "ib_hdr",
            },
        }
    ],
    "hybrid": [
        OWN,
        OD,
        {"name": "hy", "kind": "hybrid", "owned": "own", "burst": "od"}
        | {"burst_after_wait_hours": 24},
    ],
    "flat_rental": [
        {"name": "toy", "kind": "flat_rental", "gpu": "A100 SXM 40GB", "gpus": 8}
        | {"usd_per_month": 9000},
    ],
}


@pytest.fixture(scope="module", autouse=True)
def _toy() -> Iterator[None]:
    """The plug-in test's toy kind, registered for this module's tests."""
    with registered(FlatRentalKind):
        yield


def _kinds() -> list[str]:
    return [*registry.names(), "flat_rental"]  # the toy's name is known before it registers


def _played(kind: str) -> tuple[Result, Any]:
    options = EXAMPLES[kind]
    data = {"stored_tb": 1, "owned_usd_per_tb_month": 5, "owned_price_source": "the contract test"}
    sc = make_scenario(options=options, odds={"futures": 0}, data=data)
    prepared = prepare(sc)
    return simulate(prepared, advise=False), prepared


def test_every_registered_kind_has_an_example_here() -> None:
    assert set(registry.names()) <= set(EXAMPLES), "give the new kind an example above"


@pytest.mark.parametrize("kind", _kinds())
def test_plans_plays_and_prices_its_option(kind: str) -> None:
    r, _ = _played(kind)
    o = r.options[-1]
    assert o.kind == kind and o.description and o.quotes
    runs, n = o.runs, len(r.jobs)
    for column in (runs.run_h, runs.start_h, runs.end_h, runs.reason):
        assert len(column) == n
    started = runs.runnable & ~np.isnan(runs.start_h)
    assert started.any(), "it runs some of the work"
    assert (runs.start_h[started] >= r.jobs.arrival_h[started] - 1e-9).all()
    assert (runs.end_h[started] >= runs.start_h[started]).all()
    for name, monthly in o.ledger.cash.items():
        c = ledger.category(name)  # every category it writes is declared
        assert len(monthly) == r.scenario.horizon_months
        assert (monthly >= -1e-6).all() or c.credit, f"{name}: a cost below zero"
    assert o.total_cash_usd == pytest.approx(sum(float(v.sum()) for v in o.ledger.cash.values()))


@pytest.mark.parametrize("kind", _kinds())
def test_prices_again_on_the_same_runs_to_the_cent(kind: str) -> None:
    r, prepared = _played(kind)
    again = repriced(prepared, r)
    for a, b in zip(r.options, again.options, strict=True):
        assert round(a.total_cash_usd, 2) == round(b.total_cash_usd, 2), a.name


@pytest.mark.parametrize("kind", _kinds())
def test_its_money_fields_are_fields_of_its_options(kind: str) -> None:
    k = registry.get(kind)
    fields = set(k.model.model_fields)
    assert {f.split(".")[0] for f in k.money_fields} <= fields


@pytest.mark.parametrize("kind", _kinds())
def test_bills_as_focus_to_the_cent(kind: str) -> None:
    r, _ = _played(kind)
    o = r.options[-1]
    rows = [x for x in focus_export.rows(r) if x["x_TcoOption"] == o.name]
    billed = sum(x["BilledCost"] for x in rows)
    assert billed == pytest.approx(o.total_cash_usd, abs=0.005 * max(len(rows), 1))
    assert all(x["ProviderName"] for x in rows)


@pytest.mark.parametrize("kind", _kinds())
def test_says_where_its_data_goes(kind: str) -> None:
    """A kind says where its data lives; one in the cloud names the providers it rents from
    (a rented kind that named none would pay no egress for copying the data there)."""
    k = registry.get(kind)
    assert k.data_site in ("cloud", "premises"), f"{kind}: declare data_site"
    _, prepared = _played(kind)
    plan = prepared.plans[-1]
    # The toy's provider is no price book's, and a machine the scenario describes (custom) is
    # taken to be where the data is: neither names a provider.
    shapes = getattr(plan, "shapes", ())
    if k.data_site == "cloud" and any(s.name != "custom" for s in shapes):
        assert k.providers_of(plan), f"{kind}: rents from no provider"


@pytest.mark.parametrize("kind", _kinds())
def test_says_why_it_cannot_do_what_it_does_not_declare(kind: str) -> None:
    k = registry.get(kind)
    for cap in Can:
        if not k.can(cap):
            assert k.why_not(cap).strip(), f"{kind} cannot {cap.word}: say why"


@pytest.mark.parametrize("kind", _kinds())
def test_the_inputs_it_knows_to_be_uncertain_are_declared(kind: str) -> None:
    """Each input a kind gives the odds is declared by name (``core.uncertain_names``), so
    ``odds: {without: [name]}`` takes it: the list of tco's own uncertain inputs is open."""
    _, prepared = _played(kind)
    plan = prepared.plans[-1]
    given = registry.get(kind).uncertainties(plan, f"options[{len(prepared.plans) - 1}]")
    for i in given:
        assert uncertain_names.owner(i.name) is not None, f"{kind}: declare {i.name!r}"
    if given:
        sc = make_scenario(options=EXAMPLES[kind], odds={"without": [given[0].name]})
        assert not sc.odds.uses(given[0].name)


@pytest.mark.parametrize("kind", _kinds())
def test_answers_what_every_kind_is_asked(kind: str) -> None:
    """The hooks every kind must implement (abstract in ``Kind``), answered for its example:
    the GPUs it runs (the plan's among them), the providers it rents from, the servers it buys
    (a kind that buys hardware says how many) and on what basis it sells them, whether it keeps
    the site's servers, and its caveats and remarks as sentences."""
    k = registry.get(kind)
    r, prepared = _played(kind)
    plan, spec, o = prepared.plans[-1], r.scenario.options[-1], r.options[-1]
    options = tuple(r.scenario.options)
    assert plan.hardware.gpu in k.gpus_of(plan)
    assert all(isinstance(p, str) and p for p in k.providers_of(plan))
    servers = k.servers_of(plan)
    assert (servers is not None and sum(servers) > 0) == k.buys_hardware, servers
    assert k.resale_basis(spec, options) in (
        (None,) if not k.buys_hardware else (None, "market", "book")
    )
    assert isinstance(k.keeps_existing(spec, {x.name: x for x in options}), bool)
    for said in (k.caveats(spec, options, o.quotes), k.remarks(o.name, o.metrics)):
        assert all(isinstance(s, str) and s.endswith(".") for s in said), said


def test_an_owned_option_runs_its_successor_s_gpu_too() -> None:
    """Before 0.24.0 an owned option declared only the GPU it buys first: the refresh's GPU got
    no speed drawn in the odds, and ``speed.<its GPU>`` in ``uncertain:`` was refused as run by
    no option."""
    refresh = {"month": 12, "server": "HGX A100 8x80GB"}
    own = OWN | {"refresh": refresh}
    speed = {
        "path": "speed.A100 SXM 80GB",
        "distribution": {"kind": "uniform", "low": 0.9, "high": 1.1},
    }
    prepared = prepare(make_scenario(horizon_months=24, options=[own], uncertain=[speed]))
    plan = prepared.plans[0]
    assert registry.of(plan.option).gpus_of(plan) == {"A40", "A100 SXM 80GB"}


def test_a_hybrid_declares_what_its_parts_run_rent_and_rest_on() -> None:
    """A hybrid bursting to spot runs both parts' GPUs, rents from the spot option's provider,
    and an answer recommending it rests on spot's prices of one moment (said in spot's words)."""
    spot = {"name": "spot", "kind": "spot", "instance_type": "p4d.24xlarge"}
    hy = {"name": "hy", "kind": "hybrid", "owned": "own", "burst": "spot"}
    sc = make_scenario(options=[OWN, spot, hy | {"burst_after_wait_hours": 24}])
    prepared = prepare(sc)
    plan = prepared.plans[-1]
    kind = registry.of(plan.option)
    assert kind.gpus_of(plan) == {"A40", "A100 SXM 40GB"}
    assert kind.providers_of(plan) == {"aws"}
    said = kind.caveats(sc.options[-1], tuple(sc.options), plan.quotes)
    assert any(s.startswith("spot rests on spot prices of one moment") for s in said), said
