"""Jobs that can be interrupted: a renewal process with periodic checkpoints.

A job needs ``work`` hours of computing. It writes a checkpoint every ``interval`` hours of work
(taking ``write`` hours; none after the last piece), so an interruption loses the work since the
last checkpoint. Interruptions arrive as a Poisson process at ``rate`` per hour while the job
holds its instances (restarts and checkpoint writes included). After an interruption the job
waits ``wait`` hours for capacity, spends ``restart`` hours reloading, and resumes from its last
checkpoint. After ``fallback_after`` interruptions (None: never) the rest runs where nothing
interrupts it (on-demand), restart included.

Capacity: each launch (the first and every one after an interruption) finds no instance with
probability ``short_p``, and then waits an exponential time of mean ``short_wait_h`` for one; if
that wait would pass ``fallback_wait_h`` (None: never), the job waits that long and runs the rest
where nothing interrupts it. With ``short_p`` 0 nothing is drawn for capacity, so failures and
requeues (which share this model) keep their random streams.

This is the model behind Young's (1974) and Daly's (2006) optimum checkpoint intervals; with no
restart and no wait each piece of ``interval + write`` hours takes (e^{rate x (interval+write)} - 1)
/ rate hours on average, which ``tests/kinds/test_spot.py`` checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tco.simulator.core.errors import LimitExceeded
from tco.simulator.core.limits import MAX_EVENTS

# e^700 is near the largest double: a larger exponent means "more than any limit" anyway.
_MAX_EXPONENT = 700.0


@dataclass(frozen=True)
class Attempt:
    """One stretch of holding instances: start and end (h), whether it ran uninterruptible
    (the fallback), and the work hours lost when it ended in an interruption."""

    start_h: float
    end_h: float
    fallback: bool
    lost_h: float


@dataclass(frozen=True)
class Checkpointing:
    interval_h: float
    write_h: float
    restart_h: float
    wait_h: float
    fallback_after: int | None
    short_p: float = 0.0  # chance a launch finds no capacity
    short_wait_h: float = 0.0  # mean wait for capacity then (exponential)
    fallback_wait_h: float | None = None  # a longer wait runs the rest uninterrupted instead


def hours_needed(work_h: float, c: Checkpointing) -> float:
    """Wall-clock hours to do ``work_h`` uninterrupted, checkpoint writes included."""
    writes = max(0, math.ceil(round(work_h / c.interval_h, 9)) - 1)
    return work_h + writes * c.write_h


def segment(
    held_h: float, restart_h: float, work_left_h: float, c: Checkpointing
) -> tuple[float, float]:
    """An attempt stopped after ``held_h`` hours (``restart_h`` of them reloading first): the
    work it saved at checkpoints, and the held hours that saved nothing (all of them, or the
    part after the last checkpoint)."""
    ran = max(0.0, held_h - restart_h)  # time past the reload
    pieces = min(int(ran // (c.interval_h + c.write_h)), math.ceil(work_left_h / c.interval_h))
    saved = min(work_left_h, pieces * c.interval_h)
    lost = held_h if pieces == 0 else ran - pieces * (c.interval_h + c.write_h)
    return saved, lost


def expected_interruptions(
    work_h: np.ndarray, rate_h: np.ndarray, c: Checkpointing, write_h: np.ndarray | None = None
) -> float:
    """At least the mean number of interruptions of jobs of ``work_h`` hours interrupted at
    ``rate_h`` per hour (arrays): each piece of work between checkpoints is tried, reload
    included, until one attempt gets through, e^{rate (restart + interval + write)} - 1 failed
    attempts on average (an upper bound: the first attempt has no reload, the last piece is
    shorter); at most ``fallback_after`` per job. ``write_h``: each job's checkpoint write
    (default ``c.write_h`` for all)."""
    pieces = np.ceil(np.asarray(work_h, np.float64) / c.interval_h)
    write = c.write_h if write_h is None else np.asarray(write_h, np.float64)
    x = np.minimum(
        np.asarray(rate_h, np.float64) * (c.restart_h + c.interval_h + write), _MAX_EXPONENT
    )
    per_job = pieces * np.expm1(x)
    if c.fallback_after is not None:
        per_job = np.minimum(per_job, c.fallback_after)
    return float(per_job.sum())


def check_interruptions(
    work_h: np.ndarray,
    rate_h: np.ndarray,
    c: Checkpointing,
    field: str,
    write_h: np.ndarray | None = None,
) -> None:
    """Refuse jobs whose interruptions alone would exceed ``TCO_MAX_EVENTS`` (``field``: the
    option's rate that makes them so many)."""
    expected = expected_interruptions(work_h, rate_h, c, write_h)
    if expected > MAX_EVENTS.value():
        found = f"about {expected:,.3g} interruptions are expected at this rate"
        if expected >= 1e300:
            found = "jobs would be interrupted without end (never reaching a checkpoint)"
        raise LimitExceeded(field, MAX_EVENTS.exceeded(found))


def run_job(
    start_h: float,
    work_h: float,
    rate_h: float,
    c: Checkpointing,
    rng: np.random.Generator,
    max_attempts: float = math.inf,
) -> list[Attempt]:
    """The attempts of one job started at ``start_h`` until it finishes (a job that needs more
    than ``max_attempts`` raises LimitExceeded: the callers check the mean first, this is the
    guard that the loop ends)."""
    out: list[Attempt] = []
    done = 0.0  # checkpointed work
    t = start_h
    restart = 0.0  # no reload before the first attempt
    while True:
        need = restart + hours_needed(work_h - done, c)
        waited, gave_up = capacity_wait(c, rng)
        t += waited
        if gave_up or (c.fallback_after is not None and len(out) >= c.fallback_after):
            out.append(Attempt(t, t + need, True, 0.0))
            return out
        x = rng.exponential(1.0 / rate_h) if rate_h > 0 else math.inf
        if x >= need:
            out.append(Attempt(t, t + need, False, 0.0))
            return out
        if len(out) >= max_attempts:
            found = f"a job was interrupted more than {max_attempts:,.0f} times"
            raise LimitExceeded("", MAX_EVENTS.exceeded(found))
        saved, lost = segment(x, restart, work_h - done, c)
        done += saved
        out.append(Attempt(t, t + x, False, lost))
        t += x + c.wait_h
        restart = c.restart_h


def capacity_wait(c: Checkpointing, rng: np.random.Generator) -> tuple[float, bool]:
    """Hours one launch waits for capacity, and whether it gave up waiting (the rest then runs
    uninterrupted, after ``fallback_wait_h``)."""
    if c.short_p <= 0.0 or rng.random() >= c.short_p:
        return 0.0, False
    wait = float(rng.exponential(c.short_wait_h)) if c.short_wait_h > 0 else 0.0
    if c.fallback_wait_h is not None and wait > c.fallback_wait_h:
        return c.fallback_wait_h, True
    return wait, False


@dataclass(frozen=True)
class Attempts:
    """Every attempt of many jobs (the rows of ``run_jobs``), ordered by job then attempt:
    the job's position in the input, start and end (h), whether it ran uninterruptible, and the
    work hours it lost."""

    job: np.ndarray
    start_h: np.ndarray
    end_h: np.ndarray
    fallback: np.ndarray
    lost_h: np.ndarray


def run_jobs(
    start_h: np.ndarray,
    work_h: np.ndarray,
    rate_h: np.ndarray,
    write_h: np.ndarray,
    short_p: np.ndarray,
    short_wait_h: np.ndarray,
    c: Checkpointing,
    rng: np.random.Generator,
    max_attempts: float = math.inf,
) -> Attempts:
    """``run_job`` for jobs that do not interact (each holds its own instances), as arrays:
    the model of :func:`run_job` with each job's checkpoint write, rate and capacity
    (``short_p``, ``short_wait_h``) its own, and ``c``'s interval, restart, wait and fallbacks.

    All jobs still running take their next attempt together, so the work is a few array steps
    per round of attempts, not a Python loop per attempt. Random numbers are drawn per round
    (capacity, when any job can find none, then the time to the next interruption of every
    job), so the draws differ from ``run_job``'s; for one job without capacity shortage they
    are the same, attempt for attempt (``tests/kinds/test_spot.py``)."""
    n = len(start_h)
    active = np.arange(n)
    t = np.asarray(start_h, np.float64).copy()
    done, restart = np.zeros(n), np.zeros(n)
    tries = np.zeros(n, np.int64)
    rows: list[tuple[np.ndarray, ...]] = []
    step = c.interval_h + np.asarray(write_h, np.float64)
    while active.size:
        left = work_h[active] - done[active]
        writes = np.maximum(0.0, np.ceil(np.round(left / c.interval_h, 9)) - 1)
        need = restart[active] + left + writes * write_h[active]
        gave_up = np.zeros(active.size, bool)
        if (short_p[active] > 0).any():
            short = rng.random(active.size) < short_p[active]
            mean = short_wait_h[active]
            wait = np.where(short & (mean > 0), rng.exponential(np.where(mean > 0, mean, 1.0)), 0.0)
            if c.fallback_wait_h is not None:
                gave_up = short & (wait > c.fallback_wait_h)
                wait = np.where(gave_up, c.fallback_wait_h, wait)
            t[active] += wait
        rate = rate_h[active]
        safe = np.where(rate > 0, rate, 1.0)
        x = np.where(rate > 0, rng.exponential(1.0 / safe), math.inf)
        fell_back = gave_up
        if c.fallback_after is not None:
            fell_back = fell_back | (tries[active] >= c.fallback_after)
        ends = fell_back | (x >= need)
        now = t[active]
        done_rows = (active[ends], now[ends], now[ends] + need[ends], fell_back[ends])
        rows.append((*done_rows, np.zeros(int(ends.sum()))))  # an attempt that ends loses none
        cut = active[~ends]
        if cut.size:
            if tries[cut].max() >= max_attempts:
                found = f"a job was interrupted more than {max_attempts:,.0f} times"
                raise LimitExceeded("", MAX_EVENTS.exceeded(found))
            held, r = x[~ends], restart[cut]
            ran = np.maximum(0.0, held - r)
            pieces = np.minimum(ran // step[cut], np.ceil(left[~ends] / c.interval_h))
            done[cut] += np.minimum(left[~ends], pieces * c.interval_h)
            lost = np.where(pieces == 0, held, ran - pieces * step[cut])
            rows.append((cut, t[cut], t[cut] + held, np.zeros(cut.size, bool), lost))
            t[cut] += held + c.wait_h
            restart[cut] = c.restart_h
            tries[cut] += 1
        active = cut
    return _attempts(rows)


def _attempts(rows: list[tuple[np.ndarray, ...]]) -> Attempts:
    """The rounds' rows in one table, by job then attempt (a stable sort: rounds are in order)."""
    if not rows:
        empty = np.zeros(0)
        return Attempts(np.zeros(0, np.int64), empty, empty, np.zeros(0, bool), empty)
    job, start, end, fallback, lost = (np.concatenate(c) for c in zip(*rows, strict=True))
    order = np.argsort(job, kind="stable")
    return Attempts(job[order], start[order], end[order], fallback[order], lost[order])
