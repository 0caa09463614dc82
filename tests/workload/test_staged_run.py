"""The staged run: prepare once (prices, trace, jobs), simulate many times; what a sweep needs."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

from tco.reports import summary
from tco.simulator.run import prepare, run, simulate
from tco.simulator.scenario.model import load_scenario
from tco.simulator.workload import replayed as replay

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "scenarios" / "lab.yaml"
ITP = ROOT / "scenarios" / "itp-cluster.yaml"


def test_simulating_a_prepared_model_is_running_the_scenario() -> None:
    sc = load_scenario(LAB)
    assert summary.dumps(simulate(prepare(sc, file=str(LAB)))) == summary.dumps(
        run(sc, file=str(LAB))
    )


def test_a_prepared_model_survives_pickling_for_worker_processes() -> None:
    sc = load_scenario(LAB)
    prepared = prepare(sc, file=str(LAB))
    copy = pickle.loads(pickle.dumps(prepared))
    assert summary.dumps(simulate(copy)) == summary.dumps(simulate(prepared))


def test_other_seeds_redraw_jobs_without_reading_the_trace_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reads = []
    real = replay.read  # type: ignore[attr-defined]  # the seam the module looks up

    def counting(*args: Any, **kwargs: Any) -> Any:
        reads.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(replay, "read", counting)
    # (search: none: this is about the trace and the seeds, not the answer)
    sc = load_scenario(ITP).model_copy(update={"horizon_months": 2, "search": "none"})
    prepared = prepare(sc, file=str(ITP))
    first = simulate(prepared, seed=1)
    second = simulate(prepared, seed=2)
    assert len(reads) == 1
    # The trace grows 3 % a month by random duplication: another seed, another job stream.
    assert (
        len(first.jobs) != len(second.jobs) or (first.jobs.arrival_h != second.jobs.arrival_h).any()
    )
    again = simulate(prepared, seed=1)
    assert summary.dumps(again) == summary.dumps(first)
