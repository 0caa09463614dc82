"""The Dask engine of a sweep: batches of replications as tasks on ``dask.distributed``, on a
``LocalCluster`` of worker processes, or on a running cluster at a scheduler address. The
prepared model is scattered to every worker once; only compact replication records come back.

Faults, and what is done about them (a lost worker must end in a retry or one line, in bounded
time, never in a sweep that waits for ever):
- Dask reruns a task whose worker died on another worker (up to its ``allowed-failures``).
- A task that still fails for a reason outside the replication (the worker killed again, the
  scattered model lost with the workers that held it) is run again with the model scattered
  anew, ``RETRIES`` times; then the sweep stops with one line (``RunFailed``).
- With no worker connected for ``TCO_DASK_NO_WORKER_SECONDS`` (60 s by default) the sweep stops
  with one line: nothing would ever run its tasks.
An error of a replication itself (an invalid draw) is raised as it is, not retried.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from typing import Any

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import LimitExceeded, RunFailed, ScenarioError
from tco.simulator.engine.prepared import Prepared
from tco.simulator.sweep.replication import Replication, replicate_batch

RETRIES = 2  # rounds of resubmission after infrastructure failures
POLL_SECONDS = 2.0


def _no_worker_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("TCO_DASK_NO_WORKER_SECONDS", "60")))
    except ValueError:
        return 60.0


def run_on_dask(
    base: Prepared,
    book: PriceBook,
    seed: int,
    tasks: list[list[int]],
    workers: int,
    scheduler: str | None,
) -> Iterator[list[Replication]]:
    from distributed import Client, LocalCluster

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
    client = Client(cluster if cluster is not None else scheduler)
    try:
        left = {t[0]: t for t in tasks}
        for attempt in range(RETRIES + 1):
            yield from _round(client, base, book, seed, left, attempt)
            if not left:
                return
        raise RunFailed(
            f"sweep: Dask workers were lost {RETRIES + 1} times; {len(left)} of {len(tasks)}"
            " batches of replications were not done (check the workers' memory and logs)"
        )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _round(
    client: Any,
    base: Prepared,
    book: PriceBook,
    seed: int,
    left: dict[int, list[int]],
    attempt: int,
) -> Iterator[list[Replication]]:
    """Submit the batches in ``left`` with the model scattered anew; yield each that comes back
    (removing it from ``left``) until none is pending; those that failed stay in ``left``."""
    from concurrent.futures import CancelledError

    from distributed import client as dask_client
    from distributed import wait

    # Raised by wait() when futures were cancelled (their data lost with the workers); the name
    # is newer than the oldest distributed this project allows, so it falls back.
    cancelled = (getattr(dask_client, "FuturesCancelledError", CancelledError), CancelledError)

    try:
        client.wait_for_workers(1, timeout=_no_worker_seconds())
    except TimeoutError:
        raise RunFailed(
            f"sweep: no Dask worker has been connected for {_no_worker_seconds():.0f} s;"
            f" {len(left)} batches of replications were not done (start workers for the"
            " scheduler, or set TCO_DASK_NO_WORKER_SECONDS)"
        ) from None
    shared = client.scatter((base, book), broadcast=True, hash=False)
    pending = {}
    for first, t in left.items():
        key = f"tco-sweep-{attempt}-{first}"
        pending[client.submit(_batch, shared, seed, t, pure=False, key=key)] = first
    alone_since: float | None = None
    while pending:
        try:
            done = wait(list(pending), timeout=POLL_SECONDS, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            done = set()
        except cancelled:
            done = {f for f in pending if f.done()}
        for f in done:
            first = pending.pop(f)
            if f.status == "finished":
                chunk = f.result()
                del left[first]
                yield chunk
            elif f.status == "error" and isinstance(f.exception(), ScenarioError | LimitExceeded):
                f.result()  # the replication's own error: raised, not retried
        if done:
            alone_since = None
            continue
        if client.scheduler_info().get("workers"):
            alone_since = None
        elif alone_since is None:
            alone_since = time.monotonic()
        elif time.monotonic() - alone_since > _no_worker_seconds():
            raise RunFailed(
                f"sweep: no Dask worker has been connected for {_no_worker_seconds():.0f} s;"
                f" {len(left)} batches of replications were not done (start workers for the"
                " scheduler, or set TCO_DASK_NO_WORKER_SECONDS)"
            )


def _batch(shared: tuple[Prepared, PriceBook], seed: int, indices: list[int]) -> list[Replication]:
    return replicate_batch(shared[0], shared[1], seed, indices)
