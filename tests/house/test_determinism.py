"""Same scenario and seed -> identical summary.json, byte for byte; another seed -> another run."""

from __future__ import annotations

from tco.reports import summary
from tco.simulator.run import run_file
from tests.conftest import ROOT


def test_same_seed_same_bytes() -> None:
    a = summary.dumps(run_file(ROOT / "scenarios" / "lab.yaml"))
    b = summary.dumps(run_file(ROOT / "scenarios" / "lab.yaml"))
    assert a == b


def test_other_seed_other_result() -> None:
    """Another seed draws another job stream (arrival times, not only their count), which moves
    every option's total; and that seed, run again, gives the same bytes."""
    lab = ROOT / "scenarios" / "lab.yaml"
    a = run_file(lab)
    b = run_file(lab, seed=a.scenario.seed + 1)
    n = min(len(a.jobs), len(b.jobs))
    assert (a.jobs.arrival_h[:n] != b.jobs.arrival_h[:n]).mean() > 0.99
    for x, y in zip(a.options, b.options, strict=True):
        assert x.total_cash_usd != y.total_cash_usd, x.name
    assert summary.dumps(b) == summary.dumps(run_file(lab, seed=a.scenario.seed + 1))


def test_every_option_sees_the_same_jobs() -> None:
    r = run_file(ROOT / "scenarios" / "lab.yaml")
    for o in r.options:
        assert o.work.demanded == r.options[0].work.demanded
        assert len(r.jobs_frame(o.name)) == len(r.jobs)
