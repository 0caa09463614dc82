"""Teams sharing the options (issue 57, items 1 and 3): each team's bill on every option adds up
to the option's cost to the cent, month by month; a team's own level; its errors in one line."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.simulate import prepare
from tco.simulator.engine.teams import bill
from tco.simulator.run import simulate
from tests.conftest import make_scenario


def _class(name: str, team: str, per_month: float, gpus: int, hours: float) -> dict[str, Any]:
    return {
        "name": name,
        "team": team,
        "arrivals_per_month": per_month,
        "gpus": gpus,
        "work": {"reference_gpu": "A40", "gpu_hours": hours, "distribution": "exponential"},
    }


GROUPS = {
    "job_classes": [
        _class("vision-ddp", "vision", 40, 4, 200),
        _class("nlp-finetune", "nlp", 60, 1, 12),
        _class("speech", "speech", 20, 2, 30),
    ]
}
OWN = {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 2}
OD = {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"}


def _run(**over: Any) -> Any:
    over = {"workload": GROUPS, "options": [OWN, OD], "odds": {"futures": 0}, **over}
    return simulate(prepare(make_scenario(**over)))


@pytest.mark.parametrize("idle", ["by_use", "by_share", "central"])
def test_each_team_s_bill_adds_up_to_the_option_s_cost_to_the_cent(idle: str) -> None:
    shares = {"vision": 0.5, "nlp": 0.3, "speech": 0.2}
    r = _run(chargeback={"idle": idle, "shares": shares})
    for o in r.options:
        b = bill(r, o)
        assert b is not None and b.parties == ("vision", "nlp", "speech", "central")
        total = o.ledger.accounting_total()
        assert int(b.cents.sum()) == round(float(np.cumsum(total)[-1]) * 100)
        month = np.round(np.cumsum(total) * 100)
        assert b.cents.sum(axis=0).tolist() == np.diff(month, prepend=0.0).astype(int).tolist()
        # Each team's GPU-hours are its jobs' (gpus x hours held): all of them the option's busy.
        assert float(b.used_gpu_h.sum()) == pytest.approx(float(o.ledger.gpu_hours_busy.sum()))
        if idle == "by_use":  # nothing idle is charged apart: costs follow GPU-hours
            assert b.usd("central") == 0.0


def test_the_idle_cluster_is_charged_by_the_rule() -> None:
    shares = {"vision": 0.5, "nlp": 0.3, "speech": 0.2}
    use, share, central = (
        bill(r, r.option("own"))
        for r in (
            _run(chargeback={"idle": "by_use"}),
            _run(chargeback={"idle": "by_share", "shares": shares}),
            _run(chargeback={"idle": "central"}),
        )
    )
    assert use is not None and share is not None and central is not None
    # The owned servers sit partly idle: a central budget carries that part, and by share the
    # small team pays for capacity it did not use.
    assert central.usd("central") > 0
    assert share.usd("speech") > use.usd("speech")
    for b in (use, share, central):
        assert sum(b.usd(p) for p in b.parties) == pytest.approx(
            sum(use.usd(p) for p in use.parties), abs=0.005
        )


def test_a_team_s_own_level_names_the_team_that_misses_it() -> None:
    r = _run(service_level={"p95_delay_hours": 10_000, "p95_delay_hours_by_team": {"vision": 1}})
    own = r.verdicts["own"]
    assert not own.meets
    assert any(m.startswith("team vision: p95 delay") for m in own.reasons)
    assert r.verdicts["od"].meets  # on demand: no one waits
    assert set(r.option("own").metrics.team_p95_delay_h) == {"vision", "nlp", "speech"}


@pytest.mark.parametrize(
    ("over", "message"),
    [
        (
            {"chargeback": {"shares": {"vision": 0.5, "nlp": 0.5}}},
            "chargeback.shares: no share for speech",
        ),
        ({"chargeback": {"shares": {"vision": 0.5, "nlp": 0.3, "ops": 0.2}}}, "no team ops"),
        ({"service_level": {"p95_delay_hours_by_team": {"ops": 5}}}, "no team 'ops'"),
        ({"chargeback": {"idle": "by_share"}}, "by_share needs shares"),
        ({"sharing": {"policy": "priority"}}, "policy: priority needs order"),
        ({"sharing": {"order": ["vision"]}}, "say policy: priority"),
        (
            {"sharing": {"policy": "priority", "order": ["ops"]}},
            r"sharing.order\[0\]: no team 'ops'",
        ),
        ({"sharing": {"policy": "fair_share"}}, "fair_share needs shares"),
        ({"sharing": {"shares": {"vision": 1}}}, "say policy: fair_share"),
        (
            {"sharing": {"policy": "fair_share", "shares": {"vision": 1, "nlp": 1}}},
            "sharing.shares: no share for speech",
        ),
        (
            {"sharing": {"policy": "fair_share", "shares": {"vision": 1, "ops": 1}}},
            "sharing.shares.ops: no team 'ops'",
        ),
    ],
)
def test_a_bad_team_input_is_one_line_naming_the_field(over: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as e:
        make_scenario(workload=GROUPS, options=[OWN, OD], **over)
    assert "\n" not in str(e.value)


def test_without_teams_there_is_no_bill() -> None:
    r = simulate(prepare(make_scenario(odds={"futures": 0})))
    assert all(bill(r, o) is None for o in r.options)


def test_a_team_served_first_waits_less_on_the_owned_servers() -> None:
    fifo = _run(options=[OWN])
    first = _run(options=[OWN], sharing={"policy": "priority", "order": ["speech"]})
    a, b = (r.option("own").metrics.team_p95_delay_h for r in (fifo, first))
    assert b["speech"] < a["speech"]
    assert b["vision"] >= a["vision"]  # served after it, never before


def test_fair_share_needs_every_class_to_have_a_team() -> None:
    classes = [*GROUPS["job_classes"], {**GROUPS["job_classes"][1], "name": "other", "team": None}]
    fair = {"policy": "fair_share", "shares": {"vision": 1, "nlp": 1, "speech": 1}}
    with pytest.raises(ScenarioError, match="fair_share weighs teams") as e:
        make_scenario(workload={"job_classes": classes}, options=[OWN], sharing=fair)
    assert "\n" not in str(e.value)
