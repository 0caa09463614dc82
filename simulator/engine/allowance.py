"""A run's plays, bounded and said before it starts.

A play costs about in proportion to the jobs it plays (the benchmarks' unit: some 100,000 jobs a
second on one core, ``RATE``), so a run's work is counted in job-plays: jobs x options for the
options as listed, then what the advice plays (the search, the odds, the what-ifs). Before any
play the run's most is worked out from what each stage declares (``advice.ahead``) and a run
past ``MAX_RUN_JOB_PLAYS`` is refused with its figure; every play is then charged here
(``engine.simulate.play_option``), so a stage whose plays no declaration bounds (an owned
option's size search) stops at the same limit with one line, never runs on for an hour.

The default, 30 million job-plays, is about 5 minutes of one core: 6x the shipped lab's whole
run with 20x its jobs (94,178 jobs on 8 options, 38 s of CPU measured).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.limits import Limit

MAX_RUN_JOB_PLAYS = Limit(
    "TCO_MAX_RUN_JOB_PLAYS", 30_000_000, "job-plays a run may spend (about 5 minutes of CPU)"
)
RATE = 100_000  # job-plays a second on one core (the benchmarks' unit, measured)


@dataclass
class Allowance:
    """The job-plays a run has left, and what it has spent."""

    ceiling: float
    file: str
    spent: int = 0


_NOW: ContextVar[Allowance | None] = ContextVar("tco_allowance", default=None)


def minutes(job_plays: float) -> str:
    """``job_plays`` as CPU time at ``RATE``, in words."""
    s = job_plays / RATE
    return f"{s:,.0f} s" if s < 120 else f"{s / 60:,.0f} minutes"


@contextlib.contextmanager
def allowing(file: str) -> Iterator[Allowance]:
    """Plays inside this block are charged to one allowance of ``MAX_RUN_JOB_PLAYS``."""
    a = Allowance(MAX_RUN_JOB_PLAYS.value(), file)
    token = _NOW.set(a)
    try:
        yield a
    finally:
        _NOW.reset(token)


def charge(jobs: int) -> None:
    """One play of ``jobs`` jobs; past the allowance, a one-line ScenarioError with the figure
    (no allowance set: a notebook's single play, nothing to bound)."""
    a = _NOW.get()
    if a is None:
        return
    a.spent += jobs
    if a.spent > a.ceiling:
        raise ScenarioError(
            a.file,
            "",
            MAX_RUN_JOB_PLAYS.exceeded(
                f"this run has played {a.spent:,} job-plays (about {minutes(a.spent)} of CPU)"
            ),
        )


def refuse_beyond(file: str, most: int, parts: str) -> None:
    """Refuse a run whose most job-plays, ``most`` (``parts``: of what, in words), is past the
    limit: before it starts, with the figure."""
    if most > MAX_RUN_JOB_PLAYS.value():
        raise ScenarioError(
            file,
            "",
            MAX_RUN_JOB_PLAYS.exceeded(
                f"this run may play up to {most:,} job-plays ({parts}; about {minutes(most)} of"
                " CPU)"
            )
            + "; or give fewer jobs (a shorter horizon, a sample of the trace) or options",
        )
