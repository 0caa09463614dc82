"""The Dask engine: tasks on ``dask.distributed``, on a ``LocalCluster`` of worker processes or on
a running cluster at a scheduler address, one client kept for every round of work it is given.
The payload (the prepared model, the prices, the design) is scattered to every worker once;
only compact records come back.

Faults, and what is done about them (a lost worker must end in a retry or one line, in bounded
time, never in a run that waits for ever):
- Dask reruns a task whose worker died on another worker (up to its ``allowed-failures``).
- A task that still fails for a reason outside the work itself (the worker killed again, the
  scattered payload lost with the workers that held it) is run again with the payload scattered
  anew, ``RETRIES`` times; then the run stops with one line (``RunFailed``).
- With no worker connected for ``TCO_DASK_NO_WORKER_SECONDS`` (60 s by default) the run stops
  with one line: nothing would ever run its tasks.
- A local cluster's dashboard binds a free port the system picks (``DASHBOARD``): a taken port
  8787 (a Jupyter or Dask user's laptop) is no reason to fail.
An error of the work itself (an invalid draw) is raised as it is, not retried.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tco.simulator.core.errors import LimitExceeded, RunFailed, ScenarioError
from tco.simulator.core.limits import env_number

RETRIES = 2  # rounds of resubmission after infrastructure failures
POLL_SECONDS = 2.0
_RUNS = itertools.count()
# Where a LocalCluster's dashboard listens: port 0, a free one the system picks. ``None`` still
# started its HTTP server on 8787 in distributed 2026.8 and, the port taken, failed the cluster
# ("Port 8787 is already in use") wherever that warning is an error (the suite's own setting).
DASHBOARD = ":0"


def _no_worker_seconds() -> float:
    seconds = env_number("TCO_DASK_NO_WORKER_SECONDS", 60.0, "seconds to wait for a worker")
    return max(1.0, seconds)


def _lost() -> tuple[type[BaseException], ...]:
    """What distributed raises when a worker or the scheduler goes away under a call: a closed
    comm ("Stream is closed"), a key whose only holder died (KeyError), a nanny that died as it
    started (RuntimeError), an OSError or a timeout. Never the work's own errors: those come
    back as a task's exception."""
    from distributed.comm.core import CommClosedError

    return (CommClosedError, KeyError, RuntimeError, OSError, TimeoutError)


def _said(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or "no message"


def _run(batch: Callable[[Any, Any], Any], payload: Any, task: Any) -> Any:
    return batch(payload, task)


class DaskRunner:
    """A Dask client (and its local cluster when no ``scheduler`` address is given) running
    ``batch`` on tasks, with ``payload`` scattered once (again after a loss)."""

    def __init__(
        self,
        payload: Any,
        workers: int,
        scheduler: str | None,
        batch: Callable[[Any, Any], Any],
        label: str = "sweep",
    ) -> None:
        from distributed import Client, LocalCluster

        self.payload, self.batch, self.label = payload, batch, label
        self.cluster = None
        try:
            if scheduler is None:
                self.cluster = LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=DASHBOARD,
                    silence_logs=logging.ERROR,
                )
            self.client = Client(self.cluster if self.cluster is not None else scheduler)
        except _lost() as exc:  # a worker killed as it started ("Nanny failed to start")
            if self.cluster is not None:
                self.cluster.close()
            where = "a local Dask cluster" if scheduler is None else f"the scheduler {scheduler}"
            raise RunFailed(
                f"{label}: {where} did not start ({type(exc).__name__}: {_said(exc)}); run"
                " again, or with --engine local"
            ) from None
        self.shared: Any = None
        self.run = next(_RUNS)
        self.rounds = 0

    def _no_worker(self, left: int) -> RunFailed:
        return RunFailed(
            f"{self.label}: no Dask worker has been connected for {_no_worker_seconds():.0f} s;"
            f" {left} tasks were not done (start workers for the scheduler, or set"
            " TCO_DASK_NO_WORKER_SECONDS)"
        )

    def map(
        self, tasks: Sequence[Any], meanwhile: Callable[[], None] | None = None
    ) -> Iterator[tuple[int, Any]]:
        """(position, result) of every task, as they come back (``meanwhile`` first: nothing
        of this process runs beside a Dask cluster's workers)."""
        if meanwhile is not None:
            meanwhile()
        left = dict(enumerate(tasks))
        for attempt in range(RETRIES + 1):
            yield from self._round(left, attempt)
            if not left:
                return
            self.shared = None  # lost with the workers that held it: scattered anew
        raise RunFailed(
            f"{self.label}: Dask workers were lost {RETRIES + 1} times; {len(left)} of"
            f" {len(tasks)} tasks were not done (check the workers' memory and logs)"
        )

    def _round(self, left: dict[int, Any], attempt: int) -> Iterator[tuple[int, Any]]:
        """Submit the tasks in ``left``; yield each that comes back (removing it from ``left``)
        until none is pending; those that failed stay in ``left``."""
        from concurrent.futures import CancelledError

        from distributed import client as dask_client
        from distributed import wait

        # Raised by wait() when futures were cancelled (their data lost with the workers); the
        # name is newer than the oldest distributed this project allows, so it falls back.
        cancelled = (getattr(dask_client, "FuturesCancelledError", CancelledError), CancelledError)
        client = self.client
        try:
            client.wait_for_workers(1, timeout=_no_worker_seconds())
        except TimeoutError:
            raise self._no_worker(len(left)) from None
        self.rounds += 1
        try:
            if self.shared is None:
                self.shared = client.scatter(self.payload, broadcast=True, hash=False)
            pending = {}
            for i, t in left.items():
                key = f"tco-{self.label.replace(' ', '-')}-{self.run}-{self.rounds}-{attempt}-{i}"
                pending[client.submit(_run, self.batch, self.shared, t, pure=False, key=key)] = i
        except _lost():  # a worker lost as the payload went out ("Stream is closed", KeyError)
            return  # this round did nothing: the tasks stay in ``left``, the payload goes anew
        alone_since: float | None = None
        while pending:
            try:
                done = wait(list(pending), timeout=POLL_SECONDS, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                done = set()
            except cancelled:
                done = {f for f in pending if f.done()}
            for f in done:
                i = pending.pop(f)
                if f.status == "finished":
                    try:
                        result = f.result()
                    except _lost():  # its worker lost as the result was fetched: run again
                        continue
                    del left[i]
                    yield i, result
                elif f.status == "error" and isinstance(
                    f.exception(), ScenarioError | LimitExceeded
                ):
                    f.result()  # the work's own error: raised, not retried
            if done:
                alone_since = None
                continue
            try:
                workers = client.scheduler_info().get("workers")
            except _lost():
                workers = None
            if workers:
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > _no_worker_seconds():
                raise self._no_worker(len(left))

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
