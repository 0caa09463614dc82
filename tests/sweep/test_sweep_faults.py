"""A sweep whose workers are lost ends in a retry or in one line and a non-zero exit, in bounded
time; workers end with their parent; a sweep folder that did not finish says so (issue 22).
0.7.0 printed a BrokenProcessPool traceback, left its workers running when killed, and sat idle
after a Dask worker was killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tco.cli import main
from tco.pricing.book import PriceBook
from tco.reports import manifest
from tco.simulator.core.errors import RunFailed
from tco.simulator.run import Prepared, prepare
from tco.simulator.scenario.model import loads_scenario
from tco.simulator.sweep import local as sweep_local
from tco.simulator.sweep import run as sweep_run
from tco.simulator.sweep.design import design
from tco.simulator.sweep.plays import Bench
from tco.simulator.sweep.replication import replicate_streams
from tco.simulator.sweep.run import batches, run_sweep
from tests.conftest import ROOT

LAB_TEXT = (ROOT / "scenarios" / "lab.yaml").read_text()
SHORT = LAB_TEXT.replace("horizon_months: 36", "horizon_months: 2")


def _prepared() -> tuple[Prepared, PriceBook]:
    book = PriceBook("snapshot")
    return prepare(loads_scenario(SHORT, "lab.yaml"), book), book


# Batches run in the workers, by name (module-level functions reach spawned workers too); the
# flag file is named by an environment variable, which workers inherit.
FLAG = "TCO_TEST_SWEEP_FLAG"


def dies_once(bench: Bench, streams: list[int]) -> object:
    flag = Path(os.environ[FLAG])
    try:
        flag.touch(exist_ok=False)  # the first batch to get here: its worker is killed
    except FileExistsError:
        return replicate_streams(bench, streams)
    os._exit(9)


def always_dies(*_: object) -> None:
    os._exit(9)


def _sweep(prepared: Prepared, book: PriceBook, batch: object, n: int = 8) -> list[object]:
    bench = Bench(prepared.with_seed(7), book.frozen(), design(prepared.with_seed(7), n))
    tasks = batches(bench.design.k, 2, "local")
    runner = sweep_local.ProcessRunner(bench, 2, batch)  # type: ignore[arg-type]
    try:
        chunks = [c for _, c in runner.map(tasks)]
    finally:
        runner.close()
    return sorted((r for c in chunks for r in c), key=lambda r: r.index)


def test_a_killed_worker_is_retried_and_the_result_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FLAG, str(tmp_path / "died"))
    prepared, book = _prepared()
    serial = run_sweep(prepared, book, 8, seed=7, workers=1)
    assert _sweep(prepared, book, dies_once) == serial  # 0.7.0: BrokenProcessPool traceback
    assert (tmp_path / "died").exists()


def test_workers_that_keep_dying_end_in_one_line_and_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    prepared, book = _prepared()
    with pytest.raises(RunFailed, match="worker process died"):
        _sweep(prepared, book, always_dies)
    monkeypatch.setattr(sweep_run, "sweep_batch", always_dies)
    f = tmp_path / "lab.yaml"
    f.write_text(SHORT)
    out = tmp_path / "sweep"
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", str(f), "-n", "8", "-w", "2", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("tco: error: sweep: a worker process died"), err
    assert manifest.verify(out, "sweep") == [
        f"{out / 'manifest.json'}: missing or unreadable: the sweep was not completed"
    ]


def test_a_finished_sweep_folder_is_whole(tmp_path: Path) -> None:
    f = tmp_path / "lab.yaml"
    f.write_text(SHORT)
    main(["sweep", str(f), "-n", "4", "--out", str(tmp_path / "s"), "--quiet"])
    assert manifest.verify(tmp_path / "s", "sweep") == []


WORKERS_SCRIPT = """
import os, sys, time
from tco.pricing.book import PriceBook
from tco.simulator.sweep import local as sweep_local
from tco.simulator.run import prepare
from tco.simulator.scenario.model import loads_scenario

def slow(*args):
    # One write of one short line: a pipe keeps it whole (print's pieces from two workers
    # could interleave into "workerworker 123").
    os.write(1, f"worker {os.getpid()}\\n".encode())
    time.sleep(600)

if __name__ == "__main__":
    book = PriceBook("snapshot")
    prepared = prepare(loads_scenario(open(sys.argv[1]).read(), "lab.yaml"), book)
    for _ in sweep_local.ProcessRunner(prepared, 2, slow).map([[0], [1], [2]]):
        pass
"""


@pytest.mark.skipif(os.name != "posix", reason="signals and process groups are POSIX")
def test_workers_end_with_their_parent(tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")  # installed with distributed
    f = tmp_path / "lab.yaml"
    f.write_text(SHORT)
    script = tmp_path / "sweep.py"
    script.write_text(textwrap.dedent(WORKERS_SCRIPT))
    parent = subprocess.Popen(
        [sys.executable, str(script), str(f)], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    try:
        pids = [int(parent.stdout.readline().split()[1]) for _ in range(2)]  # both are working
        workers = [psutil.Process(p) for p in pids]
    finally:
        parent.send_signal(signal.SIGKILL)  # 0.7.0: the workers kept running
        parent.wait()
        parent.stdout.close()
    _, alive = psutil.wait_procs(workers, timeout=30)
    for p in alive:
        p.kill()
    assert not alive, [p.pid for p in alive]


def test_a_dask_sweep_with_no_worker_stops_in_bounded_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from distributed import LocalCluster

    from tco.simulator.sweep.dask import DASHBOARD

    monkeypatch.setenv("TCO_DASK_NO_WORKER_SECONDS", "1")
    prepared, book = _prepared()
    # 0.7.0 waited for ever (the suite's timeout is the guard that this returns at all).
    with (
        LocalCluster(n_workers=0, processes=False, dashboard_address=DASHBOARD) as cluster,
        pytest.raises(RunFailed, match="no Dask worker"),
    ):
        run_sweep(prepared, book, 4, engine="dask", scheduler=cluster.scheduler_address)


def plays_die_once(bench: Bench, task: object) -> object:
    """The odds' plays (``advice.decision``), the first one's worker killed."""
    from tco.simulator.sweep.plays import play_task

    flag = Path(os.environ[FLAG])
    try:
        flag.touch(exist_ok=False)
    except FileExistsError:
        return play_task(bench, task)  # type: ignore[arg-type]
    os._exit(9)


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_a_worker_lost_during_the_odds_is_retried_and_the_answer_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    """0.12.0: `tco simulate --engine dask` with a worker killed hung for over ten minutes and
    wrote another summary than the local engine's. The odds go through the sweeps' runner: a
    lost worker's plays are played again, and the answer is the one played on this process."""
    from tco.reports.summary import to_summary
    from tco.simulator.advice import decision
    from tco.simulator.run import OddsRun, simulate

    prepared, book = _prepared()
    serial = to_summary(simulate(prepared, book=book, odds=OddsRun(futures=8)))
    monkeypatch.setenv(FLAG, str(tmp_path / "died"))
    monkeypatch.setattr(decision, "play_task", plays_die_once)
    odds = OddsRun(futures=8, workers=2, engine=engine)
    lost = to_summary(simulate(prepared, book=book, odds=odds))
    assert (tmp_path / "died").exists()
    assert lost["recommendation"] == serial["recommendation"]
    assert lost["options"] == serial["options"]


def test_a_dask_worker_lost_as_the_payload_goes_out_is_retried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 51: a worker killed while the payload was scattered ended in a "Stream is closed"
    traceback. The round that lost it is played again with the payload sent anew."""
    import distributed
    from distributed.comm.core import CommClosedError

    real = distributed.Client.scatter
    calls: list[int] = []

    def lost_once(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise CommClosedError("in <TCP (closed) ConnectionPool.scatter>: Stream is closed")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "scatter", lost_once)
    prepared, book = _prepared()
    serial = run_sweep(prepared, book, 8, seed=7, workers=1)
    assert run_sweep(prepared, book, 8, seed=7, workers=2, engine="dask") == serial
    assert len(calls) == 2


def test_a_dask_cluster_whose_worker_dies_as_it_starts_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 51: "Nanny failed to start" was a traceback."""
    import distributed

    def nanny_died(*_: object, **__: object) -> None:
        raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(distributed, "LocalCluster", nanny_died)
    f = tmp_path / "lab.yaml"
    f.write_text(SHORT)
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "sweep",
                str(f),
                "-n",
                "4",
                "-w",
                "2",
                "--engine",
                "dask",
                "--out",
                str(tmp_path / "s"),
                "--quiet",
            ]
        )
    err = capsys.readouterr().err
    assert exit_info.value.code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "a local Dask cluster did not start (RuntimeError: Nanny failed to start.)" in err
