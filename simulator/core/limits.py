"""Limits that keep a small input from asking for unbounded work (a one-line sacct array of 10^8
tasks, a gzip bomb, a trace spanning 10^10 years). Each can be raised by an environment variable,
which the error message names.

Defaults, and why: 5,000,000 jobs is 5x the largest benchmark (1M jobs: 5 s, 380 MiB for an owned
option), about 2 GB for a run; 512 MiB of trace text holds some 2.5 million sacct lines (about
200 bytes each); a trace spanning up to 100 years, jobs of up to 5 years (43,800 h) and up to
100,000 GPUs (more than any cluster in the bundled traces and reliability data) cover real
workloads with a wide margin; 64 MiB for a scenario or a summary.json to compare (the shipped
scenarios are under 10 KiB, summaries under 1 MiB: no per-job data); 5 million failures,
repairs and spot interruptions expected on one option (an upper bound, counted before any is
drawn). Llama 3's 16,384 GPUs at their measured 0.47 interruptions per 1,000 GPU-days give about
14,000 over five years; 100,000 GPUs at 10 per 1,000 GPU-days, 3.7 million. Measured here: the
lab's owned option on 920 GPUs failing once a GPU-day, 2 million expected (1 million drawn), took
40 s of CPU and 310 MiB. A rate typed a thousandfold too high stops with a message instead of
running until the machine runs out of memory.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from tco.simulator.core.errors import ScenarioError


def env_number(
    name: str, default: float, what: str, whole: bool = False, most: float = math.inf
) -> float:
    """``$name`` as a number above 0 (``whole``: a whole number) and at most ``most``, else
    ``default`` when it is unset or blank. Anything else is a one-line error naming the
    variable and what would do: a limit typed wrong ("inf", "64MB", "-1") silently ignored
    leaves the user believing it holds."""
    text = os.environ.get(name, "")
    if not text.strip():
        return default
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and 0 < v <= most) or (whole and v != int(v)):
        kind = "a whole number" if whole else "a finite number"
        bound = f" up to {most:,.0f}" if math.isfinite(most) else ""
        raise ScenarioError(
            "environment",
            name,
            f"{text!r} is not {kind} above 0{bound} ({what}); give e.g."
            f" {int(default) if default == int(default) else default} (the default), or unset it",
        )
    return v


@dataclass(frozen=True)
class Limit:
    """A bound with its default and the environment variable that overrides it."""

    env: str
    default: float
    what: str

    def value(self) -> float:
        return env_number(self.env, self.default, self.what)

    def exceeded(self, found: str) -> str:
        """The message: what was found, the limit, and how to raise it."""
        return f"{found}; the limit is {self.value():,.0f} {self.what} (set {self.env} to raise it)"


MAX_JOBS = Limit("TCO_MAX_JOBS", 5_000_000, "jobs")
MAX_TRACE_MB = Limit("TCO_MAX_TRACE_MB", 512, "MiB of trace text")
MAX_TRACE_SPAN_DAYS = Limit("TCO_MAX_TRACE_SPAN_DAYS", 36_525, "days of trace span")
MAX_JOB_HOURS = Limit("TCO_MAX_JOB_HOURS", 43_800, "hours per job")
MAX_GPUS_PER_JOB = Limit("TCO_MAX_GPUS_PER_JOB", 100_000, "GPUs per job")
MAX_EVENTS = Limit(
    "TCO_MAX_EVENTS", 5_000_000, "failures, repairs and interruptions expected per option"
)
MAX_INPUT_MB = Limit("TCO_MAX_INPUT_MB", 64, "MiB per scenario or summary file")
# Every option's runs are held at once (a JobRuns: 13 arrays a job, mostly of 8 bytes, some 100
# bytes a job run; kinds/runs.py): 200 options of 2.4 million jobs grew to 8.2 GB. 20 million
# is 4x the job limit on one option, some 2 GB of runs; lab's 12 options of 5,000 jobs are 60,000.
MAX_OPTION_JOBS = Limit("TCO_MAX_OPTION_JOBS", 20_000_000, "jobs x options")
