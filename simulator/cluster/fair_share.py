"""Fair share among teams on an owned cluster: Slurm's classic fair-share factor.

Each team has a normalised share S (its shares over all teams') and a decayed usage U: the
GPU-hours its jobs took, each halving every ``half_life_h`` (Slurm's PriorityDecayHalfLife,
7 days by default), over every team's, so U is the team's part of recent use. Its factor is
F = 2^(-U/S) (the Slurm "classic" formula, ``priority_multifactor``: 1 with no use, 0.5 at
exactly its share, towards 0 beyond it). Before each scheduling pass the queue is ordered by F,
the highest first, then by arrival; a job is charged its whole hold (GPUs x hours) when it
starts, where Slurm charges it as it runs (a simplification: a long job counts against its
team at once rather than over its run), and a running job is never stopped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


class FairShare:
    """Each team's decayed usage and its factor; the queue's order by it."""

    def __init__(self, team: Sequence[int], shares: Sequence[float], half_life_h: float) -> None:
        total = float(sum(shares))
        self.team = list(team)  # per job, its team's index
        self.shares = [s / total for s in shares]
        self.half_life_h = half_life_h
        self.usage = [0.0] * len(shares)
        self.at = 0.0

    def decay_to(self, now: float) -> None:
        if now > self.at:
            k = 2.0 ** (-(now - self.at) / self.half_life_h)
            self.usage = [u * k for u in self.usage]
            self.at = now

    def charge(self, job: int, gpu_h: float, now: float) -> None:
        """``job`` starts now, taking ``gpu_h`` GPU-hours: its team's usage grows by them."""
        self.decay_to(now)
        self.usage[self.team[job]] += gpu_h

    def factors(self, now: float) -> list[float]:
        """Each team's fair-share factor now, 2^(-U/S)."""
        self.decay_to(now)
        total = sum(self.usage)
        return [
            2.0 ** (-(u / total if total > 0 else 0.0) / s) if s > 0 else 0.0
            for u, s in zip(self.usage, self.shares, strict=True)
        ]

    def ordered(self, queue: deque[int], now: float) -> deque[int] | None:
        """The queue by factor (highest first), then arrival; None when that is its order."""
        if len(queue) < 2:
            return None
        f, team = self.factors(now), self.team
        order = sorted(queue, key=lambda j: (-f[team[j]], j))
        if all(a == b for a, b in zip(order, queue, strict=True)):
            return None
        return deque(order)
