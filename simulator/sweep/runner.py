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
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

ENGINES = ("local", "dask")


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


@contextlib.contextmanager
def open_runner(
    payload: Any,
    batch: Callable[[Any, Any], Any],
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    label: str = "sweep",
) -> Iterator[Runner]:
    """A runner for ``batch`` over ``payload``: serial with one local worker, local processes
    with more, Dask with ``engine="dask"`` (its own local cluster, or ``scheduler``); closed on
    leaving (``label`` names the run in its one-line errors)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; valid: {', '.join(ENGINES)}")
    if engine == "dask":
        from tco.simulator.sweep.dask import DaskRunner

        dask = DaskRunner(payload, workers, scheduler, batch, label)
        try:
            yield dask
        finally:
            dask.close()
    elif workers > 1:
        from tco.simulator.sweep.local import ProcessRunner

        local = ProcessRunner(payload, workers, batch, label)
        try:
            yield local
        finally:
            local.close()
    else:
        yield SerialRunner(payload, batch)
