"""Same scenario and seed -> identical summary.json, byte for byte; another seed -> another run."""

from __future__ import annotations

from tco.simulator import summary
from tco.simulator.run import run_file
from tests.conftest import ROOT


def test_same_seed_same_bytes() -> None:
    a = summary.dumps(run_file(ROOT / "scenarios" / "lab.yaml"))
    b = summary.dumps(run_file(ROOT / "scenarios" / "lab.yaml"))
    assert a == b


def test_other_seed_other_result() -> None:
    a = run_file(ROOT / "scenarios" / "lab.yaml")
    b = run_file(ROOT / "scenarios" / "lab.yaml", seed=a.scenario.seed + 1)
    assert len(a.jobs) != len(b.jobs) or a.options[0].total_cash_usd != b.options[0].total_cash_usd


def test_every_option_sees_the_same_jobs() -> None:
    r = run_file(ROOT / "scenarios" / "lab.yaml")
    for o in r.options:
        assert o.work.demanded == r.options[0].work.demanded
        assert len(r.jobs_frame(o.name)) == len(r.jobs)
