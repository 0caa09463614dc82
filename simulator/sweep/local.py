"""The local engine: tasks on worker processes of this machine, one pool kept for every round
of work it is given (a sweep is one round; a race many).

Faults, and what is done about them:
- A worker that dies (killed, out of memory) breaks the pool. The tasks it had not sent back
  are run again on a new pool, once; if that pool breaks too, the run stops with one line
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
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tco.simulator.core.errors import RunFailed

RETRIES = 1  # new pools after a broken one
PARENT_POLL_SECONDS = 1.0

Batch = Callable[[Any, Any], Any]  # (payload, task) -> result, run in a worker
_WORKER: tuple[Batch, Any] | None = None


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


def _init(batch: Batch, payload: Any, parent: int) -> None:
    global _WORKER
    _WORKER = (batch, payload)
    _end_with_parent(parent)


def _worker_task(task: Any) -> Any:
    assert _WORKER is not None
    batch, payload = _WORKER
    return batch(payload, task)


class ProcessRunner:
    """Worker processes holding ``payload`` (sent once per process, not per task), running
    ``batch`` (a module-level function: it reaches spawned workers by name) on each task.

    Workers are forked when this process has a single thread (they start without importing
    anything again: about a second saved on two cores), and spawned otherwise, since forking a
    process whose other threads may hold locks (a progress bar's, a logger's) can deadlock."""

    def __init__(self, payload: Any, workers: int, batch: Batch, label: str = "sweep") -> None:
        self.payload, self.workers, self.batch, self.label = payload, workers, batch, label
        self.pool: cf.ProcessPoolExecutor | None = None
        self.broken = 0

    def _pool(self) -> cf.ProcessPoolExecutor:
        if self.pool is None:
            method = "fork" if threading.active_count() == 1 and os.name == "posix" else "spawn"
            self.pool = cf.ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context(method),
                initializer=_init,
                initargs=(self.batch, self.payload, os.getpid()),
            )
        return self.pool

    def map(
        self, tasks: Sequence[Any], meanwhile: Callable[[], None] | None = None
    ) -> Iterator[tuple[int, Any]]:
        """(position, result) of every task, as they come back; ``meanwhile`` runs in this
        process once every task is out."""
        left = dict(enumerate(tasks))
        while True:
            try:
                yield from self._round(left, meanwhile)
                return
            except cf.process.BrokenProcessPool:
                meanwhile = None  # it ran (or raised) in the round that broke
                self.broken += 1
                if self.broken > RETRIES:
                    raise RunFailed(
                        f"{self.label}: a worker process died (killed, or out of memory) in"
                        f" {RETRIES + 1}"
                        f" pools running; {len(left)} of {len(tasks)} tasks were not done"
                        " (try fewer --workers, or more memory)"
                    ) from None

    def _round(
        self, left: dict[int, Any], meanwhile: Callable[[], None] | None
    ) -> Iterator[tuple[int, Any]]:
        pool = self._pool()
        try:
            futures = {pool.submit(_worker_task, t): i for i, t in left.items()}
            if meanwhile is not None:  # every task is out: this process may work meanwhile
                meanwhile()
            for f in cf.as_completed(futures):
                result = f.result()
                i = futures[f]
                del left[i]
                yield i, result
        except cf.process.BrokenProcessPool:
            # Its processes are gone: wait for its threads, so the next pool can still be forked.
            pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
            raise
        except BaseException:  # interrupted or abandoned: do not wait for the tasks running
            pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
            raise

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True)  # all done: its threads end before another is forked
            self.pool = None
