"""The local engine of a sweep: batches of replications on worker processes of this machine.

Faults, and what is done about them:
- A worker that dies (killed, out of memory) breaks the pool. The batches it had not sent back
  are run again on a new pool, once; if that pool breaks too, the sweep stops with one line
  (``RunFailed``), never a traceback.
- Workers end with their parent: each watches the process that started it and exits when it is
  gone (Linux also asks the kernel to kill it then: ``PR_SET_PDEATHSIG``), so a killed ``tco
  sweep`` leaves no process behind computing for nobody.
"""

from __future__ import annotations

import concurrent.futures as cf
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import RunFailed
from tco.simulator.engine.prepared import Prepared
from tco.simulator.sweep.replication import Replication, replicate_batch

RETRIES = 1  # new pools after a broken one
PARENT_POLL_SECONDS = 1.0

Batch = Callable[[Prepared, PriceBook, int, list[int]], list[Replication]]
_WORKER: tuple[Batch, Prepared, PriceBook, int] | None = None


def _end_with_parent(parent: int) -> None:
    """Exit when the process ``parent`` is gone (this process then has another parent)."""
    if sys.platform.startswith("linux"):
        try:  # the kernel's own notice; the thread below covers every other system
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="tco-parent-watch", daemon=True).start()


def _init(batch: Batch, base: Prepared, book: PriceBook, seed: int, parent: int) -> None:
    global _WORKER
    _WORKER = (batch, base, book, seed)
    _end_with_parent(parent)


def _worker_batch(indices: list[int]) -> list[Replication]:
    assert _WORKER is not None
    batch, base, book, seed = _WORKER
    return batch(base, book, seed, indices)


def run_on_processes(
    base: Prepared,
    book: PriceBook,
    seed: int,
    tasks: list[list[int]],
    workers: int,
    batch: Batch = replicate_batch,
) -> Iterator[list[Replication]]:
    """Local worker processes; the prepared model is sent once per process, not per task.
    ``batch`` runs one task's replications in a worker (a module-level function: it is sent to
    spawned workers by name).

    Workers are forked when this process has a single thread (they start without importing
    anything again: about a second saved on two cores), and spawned otherwise, since forking a
    process whose other threads may hold locks (a progress bar's, a logger's) can deadlock."""
    left = {t[0]: t for t in tasks}
    for attempt in range(RETRIES + 1):
        try:
            yield from _pool(base, book, seed, left, workers, batch)
            return
        except cf.process.BrokenProcessPool:
            if attempt == RETRIES:
                raise RunFailed(
                    f"sweep: a worker process died (killed, or out of memory) in {RETRIES + 1}"
                    f" pools running; {len(left)} of {len(tasks)} batches of replications were"
                    " not done (try fewer --workers, or more memory)"
                ) from None


def _pool(
    base: Prepared,
    book: PriceBook,
    seed: int,
    left: dict[int, list[int]],
    workers: int,
    batch: Batch,
) -> Iterator[list[Replication]]:
    """The batches in ``left`` on one pool; each is removed from ``left`` as it comes back."""
    method = "fork" if threading.active_count() == 1 and os.name == "posix" else "spawn"
    pool = cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context(method),
        initializer=_init,
        initargs=(batch, base, book, seed, os.getpid()),
    )
    try:
        futures = {pool.submit(_worker_batch, t): first for first, t in left.items()}
        yield []  # every batch is out: the caller may work in this process meanwhile
        for f in cf.as_completed(futures):
            chunk = f.result()
            del left[futures[f]]
            yield chunk
    except cf.process.BrokenProcessPool:
        # Its processes are gone: wait for its threads, so the next pool can still be forked.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    except BaseException:  # interrupted or abandoned: do not wait for the batches running
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)  # all done: its threads end before another pool is forked
