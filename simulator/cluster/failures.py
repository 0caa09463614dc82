"""Hardware failures and repairs of an owned cluster.

GPUs fail as a Poisson process while in service, at ``gpu_failures_per_1000_gpu_days`` (default
Meta's Llama 3 cluster: 0.303 GPU-attributed interruptions per 1,000 GPU-days, 16,384 H100,
54 days; shared/data/hardware/reliability.csv, row "GPU-attributed interruptions").

Repair as operators run it: the failed GPU's server is drained (``drain_hours``: the other jobs
on it reach their next checkpoint) and the part swapped from the spare pool (``swap_hours``,
the server down whole meanwhile); the failed part goes back to the vendor and returns to the
pool ``repair_days`` later (the RMA). Only when every spare is away does a failed GPU wait for a
part, so the RMA bounds how long the pool is short, not how long a server is stranded. The pool
(``spare_gpus``, default ``auto``) is sized so that 95 % of failures find a spare: by Palm's
theorem the parts away at once are Poisson with mean rate x GPUs x RMA time, which
``tests/cluster/test_failures.py`` checks. A machine of one GPU keeps no spare (its failed card
strands no other). With no spares each GPU is an alternating renewal process, so the share of
GPU-time in service is MTBF / (MTBF + MTTR), MTTR the RMA plus the swap (also checked).

Whole servers fail too, at ``node_failures_per_1000_node_days`` (default 0: the public rates mix
causes, see ``defaults``), each down ``node_repair_days`` with every GPU in it
(:func:`node_outages`). So does a rack at ``rack_failures_per_1000_rack_days`` (default 0; its
top-of-rack switch, its power), taking its ``servers_per_rack`` servers down together for
``rack_repair_days`` (:func:`server_outages` merges both per server, and the swaps).

Jobs placed on servers are stopped by the failure under them and queued again
(``cluster.requeue``). On a pool, a running job is interrupted at its GPUs x the rate; it loses
the work since its last checkpoint, spends the restart overhead and resumes on a GPU the pool
lends it (``cluster.interruptions``), so its hold grows; that it does not queue again, and that
its interruptions are drawn apart from the pool's outages, are simplifications of that mode.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.simulator.cluster.interruptions import Checkpointing, check_interruptions, run_job
from tco.simulator.core import defaults
from tco.simulator.core.fields import NonNeg, Pos, Strict
from tco.simulator.core.limits import MAX_EVENTS


class RepairTime(Strict):
    """A repair time drawn anew for each failure, instead of one figure: ``exponential`` or
    ``lognormal`` (``sigma`` of its log) with mean ``mean_days``, or ``uniform`` between
    ``low_days`` and ``high_days`` (a reseller's 2-4 week replacement lead time:
    ``{distribution: uniform, low_days: 14, high_days: 28}``). The share of time a GPU is in
    service depends on the mean only (MTBF / (MTBF + MTTR)); the spread moves the waits."""

    distribution: Literal["exponential", "lognormal", "uniform"]
    mean_days: Pos | None = None
    sigma: Annotated[float, Field(gt=0, le=5)] = 1.0
    low_days: NonNeg | None = None
    high_days: Pos | None = None

    @model_validator(mode="after")
    def _its_figures(self) -> RepairTime:
        if self.distribution == "uniform":
            if self.low_days is None or self.high_days is None or self.mean_days is not None:
                raise ValueError(
                    "a uniform repair time takes low_days and high_days (no mean_days)"
                )
            if self.low_days > self.high_days:
                raise ValueError(
                    f"low_days {self.low_days:g} is above high_days {self.high_days:g}"
                )
        elif self.mean_days is None or self.low_days is not None or self.high_days is not None:
            raise ValueError(
                f"a {self.distribution} repair time takes mean_days (no low_days, high_days)"
            )
        return self

    @property
    def mean_h(self) -> float:
        if self.distribution == "uniform":
            assert self.low_days is not None and self.high_days is not None
            return (self.low_days + self.high_days) / 2 * 24.0
        assert self.mean_days is not None
        return self.mean_days * 24.0

    def draw_h(self, rng: np.random.Generator) -> float:
        if self.distribution == "exponential":
            return float(rng.exponential(self.mean_h))
        if self.distribution == "lognormal":  # its mean is exp(mu + sigma^2 / 2)
            mu = math.log(self.mean_h) - self.sigma**2 / 2
            return float(rng.lognormal(mu, self.sigma))
        assert self.low_days is not None and self.high_days is not None
        return float(rng.uniform(self.low_days, self.high_days)) * 24.0


Repair = Pos | RepairTime  # days, or a distribution of them


def mean_repair_h(value: float | RepairTime) -> float:
    """The mean hours of a repair time (a number of days, or a distribution)."""
    return value.mean_h if isinstance(value, RepairTime) else float(value) * 24.0


def repairs(value: float | RepairTime, rng: np.random.Generator) -> Callable[[], float]:
    """One repair's hours per call: the same figure each time for a number (no random draw,
    so a run with fixed repairs keeps its random numbers), a draw for a distribution."""
    if isinstance(value, RepairTime):
        return lambda: value.draw_h(rng)
    h = float(value) * 24.0
    return lambda: h


# Failures per 1,000 unit-days: at most 1,000, one a day for every GPU, server or rack. Measured
# rates are under 10 (Llama 3: 0.47 per 1,000 GPU-days, 3.79 per 1,000 node-days; Meta RSC-1:
# 6.50 per 1,000 node-days; shared data/hardware/reliability.csv).
Rate = Annotated[float, Field(ge=0, le=1000)]
RATE_FIELD = "failures.gpu_failures_per_1000_gpu_days"


MAINTENANCE = {
    "vendor": "the support contract replaces a failed part: no spare GPUs bought, a failed GPU"
    " out for the contract's response time",
    "self": "the owner keeps spare GPUs (sized by Palm's theorem) and sends failed parts back"
    " (the RMA)",
    "none": "no spares and no contract: a failed GPU is out for the RMA",
}


class Failures(Strict):
    """How often GPUs fail, how long repairs take, who replaces parts, and the jobs'
    checkpoints.

    ``maintenance``: ``vendor`` (a support contract replaces failed parts: no spare pool, a
    failed GPU out for ``response_days`` and the swap), ``self`` (spares by Palm's theorem, failed
    parts back to the vendor for ``repair_days``), ``none`` (no spares, no contract: out for
    ``repair_days``); ``auto``: ``vendor`` where the option pays a support contract
    (``support_pct_per_year`` > 0), else ``self``."""

    gpu_failures_per_1000_gpu_days: Rate = defaults.GPU_FAILURES_PER_1000_GPU_DAYS
    maintenance: Literal["auto", "vendor", "self", "none"] = "auto"
    response_days: Repair = defaults.VENDOR_RESPONSE_DAYS
    repair_days: Repair = defaults.REPAIR_DAYS
    spare_gpus: Annotated[int, Field(ge=0, le=100_000)] | Literal["auto"] = "auto"
    drain_hours: Annotated[float, Field(ge=0, le=720)] = defaults.DRAIN_HOURS
    swap_hours: Annotated[float, Field(ge=0, le=720)] = defaults.SWAP_HOURS
    node_failures_per_1000_node_days: Rate = 0.0
    node_repair_days: Repair = defaults.NODE_REPAIR_DAYS
    # Racks: consecutive servers (in the order they arrive), failing together.
    servers_per_rack: Annotated[int, Field(ge=1, le=10_000)] | None = None
    rack_failures_per_1000_rack_days: Rate = 0.0
    rack_repair_days: Repair = defaults.NODE_REPAIR_DAYS  # as a server's: no public figure
    checkpoint_interval_hours: Pos = defaults.CHECKPOINT_INTERVAL_HOURS
    restart_overhead_minutes: NonNeg = defaults.RESTART_OVERHEAD_MINUTES

    @model_validator(mode="after")
    def _racks_have_a_size(self) -> Failures:
        if self.rack_failures_per_1000_rack_days > 0 and self.servers_per_rack is None:
            raise ValueError(
                "rack_failures_per_1000_rack_days needs servers_per_rack (servers behind one"
                " top-of-rack switch, e.g. 2 to 4 servers of 10 kW in an air-cooled rack)"
            )
        return self

    @model_validator(mode="after")
    def _spares_are_the_owners(self) -> Failures:
        if self.spare_gpus not in ("auto", 0) and self.maintenance in ("vendor", "none"):
            raise ValueError(
                f"spare_gpus: {self.spare_gpus} goes with maintenance: self (under"
                f" {self.maintenance!r} no spares are kept)"
            )
        return self

    def who(self, support_pct_per_year: float) -> str:
        """``vendor``, ``self`` or ``none``: ``auto`` resolved by the option's support share."""
        if self.maintenance != "auto":
            return self.maintenance
        return "vendor" if support_pct_per_year > 0 else "self"

    def maintained(self, support_pct_per_year: float) -> Failures:
        """These failures as the maintenance runs them: under a contract, no spares and the
        response time as the repair; with none, no spares and the RMA."""
        who = self.who(support_pct_per_year)
        if who == "vendor":
            return self.model_copy(
                update={"maintenance": who, "spare_gpus": 0, "repair_days": self.response_days}
            )
        return self.model_copy(
            update={"maintenance": who, **({"spare_gpus": 0} if who == "none" else {})}
        )

    @property
    def rate_per_gpu_h(self) -> float:
        return self.gpu_failures_per_1000_gpu_days / 1000.0 / 24.0

    def expected_events(self, gpus: int, servers: int, horizon_h: float) -> float:
        """At least the mean number of failures and repairs of ``gpus`` GPUs on ``servers``
        servers in service for ``horizon_h`` hours (an upper bound: none is out for repair)."""
        racks = math.ceil(servers / self.servers_per_rack) if self.servers_per_rack else 0
        per_day = (
            self.gpu_failures_per_1000_gpu_days * gpus
            + self.node_failures_per_1000_node_days * servers
            + self.rack_failures_per_1000_rack_days * racks
        ) / 1000.0
        return 2.0 * per_day * horizon_h / 24.0  # each failure and its repair

    def spares(self, gpus: int, gpus_per_server: int) -> int:
        """The spare pool of a cluster of ``gpus`` GPUs: the scenario's, or (``auto``) the
        smallest that 95 % of failures find a part in (Palm: parts away ~ Poisson(rate x GPUs x
        mean RMA)); none for machines of one GPU."""
        if self.spare_gpus != "auto":
            return self.spare_gpus
        if gpus_per_server <= 1 or self.rate_per_gpu_h <= 0 or gpus <= 0:
            return 0
        mean = self.rate_per_gpu_h * gpus * mean_repair_h(self.repair_days)
        # P(N = n) in logs, from far below the mean (exp(-mean) underflows past 745); at most a
        # spare per GPU (past that, every failure finds one however many more there are).
        n = max(0, int(mean - 12 * math.sqrt(mean) - 12))
        below = 0.0  # P(N < n), negligible at the start
        while 1.0 - below > defaults.SPARE_STOCKOUT and n < gpus:
            below += math.exp(n * math.log(mean) - mean - math.lgamma(n + 1)) if mean > 0 else 1
            n += 1
        return min(n, gpus)

    def checkpoints(self) -> Checkpointing:
        """How a job hit by a failure resumes: from its last checkpoint, after the restart."""
        return Checkpointing(
            interval_h=self.checkpoint_interval_hours,
            write_h=0.0,
            restart_h=self.restart_overhead_minutes / 60.0,
            wait_h=0.0,
            fallback_after=None,
        )


@dataclass(frozen=True)
class Outages:
    """GPUs out of service: capacity changes (time h, -1 or +1) and GPU-hours lost by the
    horizon."""

    changes: list[tuple[float, int]]
    down_gpu_h: float
    failures: int
    gpus: list[int] = field(default_factory=list)  # per change: which GPU (numbered by slot)
    swaps: list[tuple[float, int, float]] = field(default_factory=list)  # (from h, server, to h)
    waited: int = 0  # failures that found no spare and waited for a part

    def on_servers(self, gpus_per_server: int) -> list[tuple[float, int, int]]:
        """The changes as (time h, server, +/-1), GPUs numbered server by server in the order
        the slots brought them."""
        return [
            (t, g // gpus_per_server, u) for (t, u), g in zip(self.changes, self.gpus, strict=True)
        ]


def outages(
    slots: list[tuple[float, int]],
    f: Failures,
    horizon_h: float,
    rng: np.random.Generator,
    gpus_per_server: int = 1,
) -> Outages:
    """Failures and repairs of GPUs entering service as (time h, GPUs) ``slots``, GPUs numbered
    server by server: a failed GPU is out until its swap ends (the drain and the swap with a
    spare at hand, else the swap after the first part back from the RMA); its server is down
    whole for the swap itself (``swaps``, servers of more than one GPU)."""
    rate = f.rate_per_gpu_h
    if rate <= 0:
        return Outages([], 0.0, 0)
    repair_h = repairs(f.repair_days, rng)
    drain, swap = f.drain_hours, f.swap_hours
    # (time, 0 = failure of GPU s / 1 = a part back from the RMA / 2 = GPU s back, s)
    events: list[tuple[float, int, int]] = []
    n = 0
    for t0, gpus in slots:
        for _ in range(gpus):
            events.append((t0 + rng.exponential(1.0 / rate), 0, n))
            n += 1
    heapq.heapify(events)
    spares = f.spares(n, gpus_per_server)
    waiting: list[int] = []
    changes: list[tuple[float, int]] = []
    which: list[int] = []
    swaps: list[tuple[float, int, float]] = []
    down_since: dict[int, float] = {}
    down_h, failures, waited = 0.0, 0, 0

    def swapped(at: float, s: int) -> None:
        heapq.heappush(events, (at + swap, 2, s))
        if gpus_per_server > 1 and swap > 0:
            swaps.append((at, s // gpus_per_server, at + swap))

    while events and events[0][0] < horizon_h:
        t, what, s = heapq.heappop(events)
        if what == 0:
            failures += 1
            down_since[s] = t
            changes.append((t, -1))
            which.append(s)
            heapq.heappush(events, (t + repair_h(), 1, -1))  # the failed part, to the vendor
            if spares > 0:
                spares -= 1
                swapped(t + drain, s)
            else:
                waited += 1
                waiting.append(s)
        elif what == 1:
            if waiting:
                swapped(t, waiting.pop(0))  # drained while it waited
            else:
                spares += 1
        else:
            down_h += t - down_since.pop(s)
            changes.append((t, +1))
            which.append(s)
            heapq.heappush(events, (t + rng.exponential(1.0 / rate), 0, s))
    down_h += sum(horizon_h - t for t in down_since.values())
    return Outages(changes, down_h, failures, which, sorted(swaps), waited)


def node_outages(
    servers: list[tuple[float, int]], f: Failures, horizon_h: float, rng: np.random.Generator
) -> list[tuple[float, int, float]]:
    """Whole-server failures: (down h, server, back h), servers numbered in the order the
    ``servers`` (time h, servers) slots bring them; each server fails as a Poisson process while
    up and is down ``node_repair_days``."""
    rate = f.node_failures_per_1000_node_days / 1000.0 / 24.0
    if rate <= 0:
        return []  # no draws: runs without node failures keep their random numbers
    repair_h = repairs(f.node_repair_days, rng)
    out, s = [], 0
    for t0, n in servers:
        for _ in range(n):
            t = t0 + rng.exponential(1.0 / rate)
            while t < horizon_h:
                r = repair_h()
                out.append((t, s, t + r))
                t += r + rng.exponential(1.0 / rate)
            s += 1
    return sorted(out)


def server_outages(
    servers: list[tuple[float, int]],
    f: Failures | None,
    horizon_h: float,
    rng: np.random.Generator,
) -> tuple[list[tuple[float, int, float]], int, int]:
    """Every server's spells down whole, (down h, server, back h): its own failures and its
    rack's, merged per server so that no two overlap; and how many node and rack failures
    (none without ``f``)."""
    if f is None:
        return [], 0, 0
    nodes = node_outages(servers, f, horizon_h, rng)
    rate = f.rack_failures_per_1000_rack_days / 1000.0 / 24.0
    if rate <= 0 or f.servers_per_rack is None:
        return nodes, len(nodes), 0
    arrive = [t0 for t0, n in servers for _ in range(n)]
    k, repair_h = f.servers_per_rack, repairs(f.rack_repair_days, rng)
    spells, racks = list(nodes), 0
    for first in range(0, len(arrive), k):  # a rack fails while up, from its first server
        t = arrive[first] + rng.exponential(1.0 / rate)
        while t < horizon_h:
            racks += 1
            r = repair_h()
            spells += [
                (t, s, t + r) for s in range(first, min(first + k, len(arrive))) if arrive[s] <= t
            ]
            t += r + rng.exponential(1.0 / rate)
    return merged(spells), len(nodes), racks


def merged(spells: list[tuple[float, int, float]]) -> list[tuple[float, int, float]]:
    """Overlapping spells of one server as one (the scheduler takes a server down once)."""
    out: list[tuple[float, int, float]] = []
    for a, s, b in sorted(spells, key=lambda x: (x[1], x[0])):
        if out and out[-1][1] == s and a <= out[-1][2]:
            out[-1] = (out[-1][0], s, max(out[-1][2], b))
        else:
            out.append((a, s, b))
    return sorted(out)


@dataclass(frozen=True)
class FailedRuns:
    """Per job: hours it holds its GPUs (restarts and lost work included), interruptions, and
    GPU-hours of work lost."""

    hold_h: np.ndarray
    interruptions: np.ndarray
    lost_gpu_h: np.ndarray


def failed_runs(
    gpus: np.ndarray, run_h: np.ndarray, f: Failures, rng: np.random.Generator
) -> FailedRuns:
    """Each job's run stretched by the failures of its GPUs (``cluster.interruptions``)."""
    c = f.checkpoints()
    hold = np.asarray(run_h, dtype=np.float64).copy()
    hits = np.zeros(len(run_h), np.int64)
    lost = np.zeros(len(run_h))
    rate = f.rate_per_gpu_h
    check_interruptions(run_h, gpus * rate, c, RATE_FIELD)
    cap = MAX_EVENTS.value()
    for j, (k, r) in enumerate(zip(gpus.tolist(), run_h.tolist(), strict=True)):
        tries = run_job(0.0, r, k * rate, c, rng, cap)
        if len(tries) > 1:
            hold[j] = tries[-1].end_h
            hits[j] = len(tries) - 1
            lost[j] = sum(a.lost_h for a in tries) * k
    return FailedRuns(hold, hits, lost)
