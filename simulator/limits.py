"""Limits that keep a small input from asking for unbounded work (a one-line sacct array of 10^8
tasks, a gzip bomb, a trace spanning 10^10 years). Each can be raised by an environment variable,
which the error message names.

Defaults, and why: 5,000,000 jobs is 5x the largest benchmark (1M jobs: 5 s, 380 MiB for an owned
option), about 2 GB for a run; 512 MiB of trace text holds some 2.5 million sacct lines (about
200 bytes each); a trace spanning up to 100 years, jobs of up to 5 years (43,800 h) and up to
100,000 GPUs (more than any cluster in the bundled traces and reliability data) cover real
workloads with a wide margin.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """A bound with its default and the environment variable that overrides it."""

    env: str
    default: float
    what: str

    def value(self) -> float:
        text = os.environ.get(self.env)
        if text is None:
            return self.default
        try:
            v = float(text)
        except ValueError:
            return self.default
        return v if v > 0 else self.default

    def exceeded(self, found: str) -> str:
        """The message: what was found, the limit, and how to raise it."""
        return f"{found}; the limit is {self.value():,.0f} {self.what} (set {self.env} to raise it)"


MAX_JOBS = Limit("TCO_MAX_JOBS", 5_000_000, "jobs")
MAX_TRACE_MB = Limit("TCO_MAX_TRACE_MB", 512, "MiB of trace text")
MAX_TRACE_SPAN_DAYS = Limit("TCO_MAX_TRACE_SPAN_DAYS", 36_525, "days of trace span")
MAX_JOB_HOURS = Limit("TCO_MAX_JOB_HOURS", 43_800, "hours per job")
MAX_GPUS_PER_JOB = Limit("TCO_MAX_GPUS_PER_JOB", 100_000, "GPUs per job")
