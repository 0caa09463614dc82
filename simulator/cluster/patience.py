"""How long each queued job will wait: one chain of timeouts for every job's limit.

A job that arrives with a patience of ``p`` hours gives up at ``arrival + p`` if it has not
started (a hybrid bursts it to the cloud). One timeout per job would be a third of a hybrid's
events, and nearly all of them would find their job long started. Instead the limits sit in a
heap and a single timeout waits for the earliest limit of a job still waiting; when it fires,
every job whose limit has come gives up, in the order of their limits (then by job), and the
chain moves on to the next job still waiting. A job that started is dropped from the heap
when it reaches the top.

The timeout fires at the limit itself, to the bit (``now + delay`` is made to equal it), so a
job gives up at the same instant as with a timeout of its own.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from math import inf, nextafter

import simpy


def delay_to(now: float, t: float) -> float:
    """The delay ``d`` for which SimPy's ``now + d`` is exactly ``t`` (``t >= now``)."""
    d = t - now
    while now + d < t:
        d = nextafter(d, inf)
    while now + d > t and d > 0:
        d = nextafter(d, -inf)
    return d


class Patience:
    """The waiting limits of the jobs in a queue (``limits[job]``: hours from arrival)."""

    def __init__(
        self,
        env: simpy.Environment,
        limits: list[float],
        waiting: Callable[[int], bool],
        give_up: Callable[[list[int]], None],
    ) -> None:
        self.env = env
        self.limits = limits
        self.waiting = waiting  # whether a job still waits (not started, not gone)
        self.give_up = give_up  # the jobs whose limit came, while they wait
        self.heap: list[tuple[float, int]] = []
        self.due_at = inf  # when the one live timeout fires
        self.token = 0  # the live timeout's (an earlier limit makes the previous one void)

    def arrived(self, first: int, last: int) -> None:
        """Jobs ``first`` to ``last - 1`` joined the queue now (after the pass is asked for:
        a job whose patience is 0 leaves only if that pass could not start it)."""
        now, limits, heap = self.env.now, self.limits, self.heap
        for job in range(first, last):
            heapq.heappush(heap, (now + limits[job], job))
        self._next()

    def _next(self) -> None:
        heap = self.heap
        while heap and not self.waiting(heap[0][1]):
            heapq.heappop(heap)
        if heap and heap[0][0] < self.due_at:
            self.due_at = t = heap[0][0]
            self.token += 1
            ev = self.env.timeout(delay_to(self.env.now, t), value=self.token)
            ev.callbacks.append(self._fire)

    def _fire(self, ev: simpy.Event) -> None:
        if ev.value != self.token:
            return  # an earlier limit came after this timeout was set: that one is live
        self.due_at = inf
        now, heap, gone = self.env.now, self.heap, []
        while heap and heap[0][0] <= now:
            job = heapq.heappop(heap)[1]
            if self.waiting(job):
                gone.append(job)
        if gone:
            self.give_up(gone)
        self._next()
