"""What reading a trace gives: the jobs as recorded, and a report of what was read and skipped."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.limits import MAX_GPUS_PER_JOB, MAX_JOB_HOURS, MAX_JOBS, MAX_TRACE_SPAN_DAYS

MAX_REPORTED_LINES = 5
UNFINISHED_WORDS = {
    "pending": "from their submit time, as long as their time limit",
    "running": "as long as they had run at the export, a lower bound",
}


@dataclass
class LoadReport:
    """What reading a trace found: jobs kept, rows skipped by reason, unreadable lines."""

    file: str
    rows: int = 0
    jobs: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    bad_lines: list[tuple[int, str]] = field(default_factory=list)  # first few (line, why)
    bad_count: int = 0
    held: int = 0  # jobs the file holds (a job's steps folded into it; unreadable lines apart)
    with_gpus: int = 0  # of them, jobs that asked for GPUs
    steps_folded: int = 0  # step lines (sacct) folded into their job
    from_steps: int = 0  # jobs known only by their steps, kept from them
    # Jobs kept although unfinished at the export (sacct: "pending", "running"): how many, and
    # their GPU-hours as replayed (a pending job's time limit, a running one's time so far).
    unfinished: Counter[str] = field(default_factory=Counter)
    unfinished_gpu_h: dict[str, float] = field(default_factory=dict)

    def kept_unfinished(self, state: str, jobs: int, gpu_h: float) -> None:
        self.unfinished[state] += jobs
        self.unfinished_gpu_h[state] = self.unfinished_gpu_h.get(state, 0.0) + gpu_h

    def bad(self, line: int, why: str) -> None:
        self.bad_count += 1
        if len(self.bad_lines) < MAX_REPORTED_LINES:
            self.bad_lines.append((line, why))

    def summary(self) -> str:
        """One sentence for people: what the file held, what was kept, and why the rest was not."""
        parts = [
            f"{self.file}: {_n(self.held, 'job')} in the file, {self.with_gpus:,} of them with"
            f" GPUs; {self.jobs:,} kept from {_n(self.rows, 'row')}"
        ]
        if self.steps_folded:
            parts.append(f"{_n(self.steps_folded, 'job step')} folded into their jobs")
        if self.from_steps:
            parts.append(f"{_n(self.from_steps, 'job')} known only by their steps, kept from them")
        for state, how in UNFINISHED_WORDS.items():
            if self.unfinished[state]:
                parts.append(
                    f"{_n(self.unfinished[state], f'{state} job')} kept as demand"
                    f" ({self.unfinished_gpu_h[state]:,.1f} GPU-hours: {how})"
                )
        if self.skipped:
            parts.append(
                "skipped " + ", ".join(f"{n:,} {why}" for why, n in sorted(self.skipped.items()))
            )
        if self.bad_count:
            shown = "; ".join(f"line {n}: {why}" for n, why in self.bad_lines)
            more = f" (first {len(self.bad_lines)}: {shown})"
            parts.append(f"{self.bad_count:,} unreadable line(s){more}")
        return "; ".join(parts)


@dataclass(frozen=True)
class TraceJobs:
    """Jobs as recorded: submit (seconds, UTC epoch or from the trace start), duration (s)."""

    job_id: list[str]
    submit_s: np.ndarray
    duration_s: np.ndarray
    gpus: np.ndarray
    gpu_type: list[str]
    status: list[str]
    cluster: list[str]
    # Seconds from submission to start, where the log says (NaN elsewhere; None: no log said).
    wait_s: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.job_id)

    def waits(self) -> np.ndarray:
        """Seconds each job waited to start (NaN where unknown)."""
        return np.full(len(self), np.nan) if self.wait_s is None else self.wait_s

    def gpu_hours(self) -> float:
        return float((self.duration_s * self.gpus).sum() / 3600.0)


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


class NotStarted(Exception):
    """A job's end record of a job that never started (counted, not unreadable)."""


def check_values(gpus: int, duration_s: float) -> None:
    """Raise ValueError (an unreadable line) for a GPU count or duration no job can have."""
    if not math.isfinite(duration_s):
        raise ValueError("duration is not a finite number")
    if duration_s < 0 or gpus < 0:
        raise ValueError("negative duration or GPU count")
    if gpus > MAX_GPUS_PER_JOB.value():
        raise ValueError(MAX_GPUS_PER_JOB.exceeded(f"{gpus:,} GPUs"))
    if duration_s > MAX_JOB_HOURS.value() * 3600:
        raise ValueError(MAX_JOB_HOURS.exceeded(f"a duration of {duration_s / 3600:,.0f} h"))


def replayable(report: LoadReport, gpus: int, duration: float, keep_empty: bool) -> bool:
    """Whether a job uses GPU time; jobs that do not are counted by reason (unless kept)."""
    if gpus > 0:
        report.with_gpus += 1
    if keep_empty:
        return True
    if gpus == 0:
        report.skipped["without GPUs"] += 1
        return False
    if duration <= 0:
        report.skipped["of zero duration"] += 1
        return False
    return True


@dataclass
class RowCollector:
    """Columns of the jobs kept so far, in file order; ``done`` sorts them by submit time.
    ``file`` and ``field_name`` name the trace in the message when a limit is exceeded."""

    file: str
    field_name: str
    job_id: list[str] = field(default_factory=list)
    submit: list[float] = field(default_factory=list)
    duration: list[float] = field(default_factory=list)
    gpus: list[int] = field(default_factory=list)
    gpu_type: list[str] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    cluster: list[str] = field(default_factory=list)
    wait: list[float] = field(default_factory=list)

    def add(
        self,
        job_id: str,
        submit: float,
        duration: float,
        gpus: int,
        gpu_type: str,
        status: str,
        cluster: str,
        wait: float = math.nan,
    ) -> None:
        self.reserve(1)
        self.job_id.append(job_id)
        self.submit.append(submit)
        self.duration.append(duration)
        self.gpus.append(gpus)
        self.gpu_type.append(gpu_type)
        self.status.append(status)
        self.cluster.append(cluster)
        self.wait.append(wait)

    def reserve(self, n: int) -> None:
        """Refuse to hold more than the job limit (before an array record is expanded)."""
        if len(self.job_id) + n > MAX_JOBS.value():
            found = f"the trace holds more than {len(self.job_id) + n - 1:,} jobs"
            raise ScenarioError(self.file, self.field_name, MAX_JOBS.exceeded(found))

    def done(self) -> TraceJobs:
        if self.submit:
            span_days = (max(self.submit) - min(self.submit)) / 86400.0
            if span_days > MAX_TRACE_SPAN_DAYS.value():
                found = f"the trace's submit times span {span_days:,.0f} days"
                raise ScenarioError(self.file, self.field_name, MAX_TRACE_SPAN_DAYS.exceeded(found))
        order = np.argsort(np.asarray(self.submit, dtype=np.float64), kind="stable")
        pick = order.tolist()
        return TraceJobs(
            [self.job_id[i] for i in pick],
            np.asarray(self.submit, dtype=np.float64)[order],
            np.asarray(self.duration, dtype=np.float64)[order],
            np.asarray(self.gpus, dtype=np.int64)[order],
            [self.gpu_type[i] for i in pick],
            [self.status[i] for i in pick],
            [self.cluster[i] for i in pick],
            np.asarray(self.wait, dtype=np.float64)[order] if self.wait else None,
        )
