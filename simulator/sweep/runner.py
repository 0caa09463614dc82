"""Where plays run: in this process, on local worker processes, or on Dask, behind one seam.

A runner holds a payload (what every task needs: the prepared model, the frozen prices, the
design) and runs a module-level ``batch(payload, task)`` on each task of a round, giving back
(position, result) pairs as they finish. A sweep is one round of tasks; a race (``advice.race``)
many, on the same runner: a local pool or a Dask cluster is started once. The same tasks give
the same results whatever runs them, so the same seed gives the same bytes on one process, two or
a Dask cluster.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

ENGINES = ("local", "dask")
MOST_WORKERS = 8  # local processes when none are asked for: a laptop's or a server's cores
# Plays run in this process until they have taken this much CPU; the rest on local workers.
# Forked workers cost about 0.3 s of CPU (the lab's odds: 5.14 s on two against 4.86 s on one,
# farm-bench's medians of 4) and pay back in wall time only on plays longer than that.
SECOND_WORKER_CPU_S = 3.0


def most_workers() -> int:
    return min(MOST_WORKERS, os.cpu_count() or 1)


class Runner(Protocol):
    def map(
        self, tasks: Sequence[Any], meanwhile: Callable[[], None] | None = None
    ) -> Iterator[tuple[int, Any]]:
        """(position, result) of every task as it finishes; ``meanwhile`` runs once in this
        process while (or, where nothing runs beside it, before) the tasks run."""
        ...


class SerialRunner:
    """Every task in this process, in order."""

    def __init__(self, payload: Any, batch: Callable[[Any, Any], Any]) -> None:
        self.payload, self.batch = payload, batch

    def map(
        self, tasks: Sequence[Any], meanwhile: Callable[[], None] | None = None
    ) -> Iterator[tuple[int, Any]]:
        if meanwhile is not None:
            meanwhile()
        for i, t in enumerate(tasks):
            yield i, self.batch(self.payload, t)


class GrowingRunner:
    """This process until its rounds have taken ``SECOND_WORKER_CPU_S`` of CPU, then
    ``workers`` local processes for every round after: a small race never pays for a pool, a
    large one loses at most those seconds of wall time. Which runs a round moves no result."""

    def __init__(self, payload: Any, batch: Callable[[Any, Any], Any], workers: int, label: str):
        self.payload, self.batch, self.workers, self.label = payload, batch, workers, label
        self.serial = SerialRunner(payload, batch)
        self.spent = 0.0
        self.pool: Any = None  # sweep.local.ProcessRunner, once opened

    def map(
        self, tasks: Sequence[Any], meanwhile: Callable[[], None] | None = None
    ) -> Iterator[tuple[int, Any]]:
        if self.pool is None and self.spent >= SECOND_WORKER_CPU_S and self.workers > 1:
            from tco.simulator.sweep.local import ProcessRunner

            self.pool = ProcessRunner(self.payload, self.workers, self.batch, self.label)
        if self.pool is not None:
            yield from self.pool.map(tasks, meanwhile)
            return
        if meanwhile is not None:
            meanwhile()  # not a play: its CPU is not counted towards the pool
        started = time.process_time()
        for done in self.serial.map(tasks):
            self.spent += time.process_time() - started
            yield done
            started = time.process_time()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


@contextlib.contextmanager
def open_runner(
    payload: Any,
    batch: Callable[[Any, Any], Any],
    workers: int | None = 1,
    engine: str = "local",
    scheduler: str | None = None,
    label: str = "sweep",
) -> Iterator[Runner]:
    """A runner for ``batch`` over ``payload``: serial with one local worker, local processes
    with more, growing from this process to the CPUs with None (``GrowingRunner``), Dask with
    ``engine="dask"`` (its own local cluster, or ``scheduler``; None: the CPUs' count); closed
    on leaving (``label`` names the run in its one-line errors)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; valid: {', '.join(ENGINES)}")
    if engine == "dask":
        from tco.simulator.sweep.dask import DaskRunner

        dask = DaskRunner(payload, workers or most_workers(), scheduler, batch, label)
        try:
            yield dask
        finally:
            dask.close()
    elif workers is None:
        growing = GrowingRunner(payload, batch, most_workers(), label)
        try:
            yield growing
        finally:
            growing.close()
    elif workers > 1:
        from tco.simulator.sweep.local import ProcessRunner

        local = ProcessRunner(payload, workers, batch, label)
        try:
            yield local
        finally:
            local.close()
    else:
        yield SerialRunner(payload, batch)
