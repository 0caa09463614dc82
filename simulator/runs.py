"""How the job stream ran on one option: per job, when it started and ended, or why it could not.

A kind's ``play`` returns :class:`JobRuns`; ledgers rebuild usage from its intervals and the
metrics read waits and work from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.simulator.jobs import Jobs
from tco.simulator.speed import Hardware

REASON_MEMORY = "memory"
REASON_SIZE = "size"


@dataclass(frozen=True, kw_only=True)
class JobRuns:
    """Per job: run time, GPUs used, units held (GPUs or instances), compute start and end (NaN
    if never started), and why a job could not run (empty string when it could)."""

    run_h: np.ndarray
    gpus: np.ndarray
    units: np.ndarray
    start_h: np.ndarray
    end_h: np.ndarray
    reason: np.ndarray  # object array of str
    reason_text: dict[str, str]

    @property
    def runnable(self) -> np.ndarray:
        return np.asarray(self.reason == "")

    def __repr__(self) -> str:
        started = int((~np.isnan(self.start_h)).sum())
        return f"JobRuns({len(self.run_h):,} jobs, {started:,} started)"


def feasibility(
    jobs: Jobs, hw: Hardware, max_gpus: int, max_label: str
) -> tuple[np.ndarray, dict[str, str]]:
    """Why each job cannot run on ``hw`` ('' when it can): too many GPUs, or too little memory."""
    reason = np.full(len(jobs), "", dtype=object)
    reason[jobs.gpus > max_gpus] = REASON_SIZE
    reason[jobs.memory_gb > hw.gpu_memory_gb] = REASON_MEMORY
    text = {
        REASON_MEMORY: f"needs more than the {hw.gpu_memory_gb:g} GB of one {hw.gpu}",
        REASON_SIZE: f"needs more GPUs than the {max_gpus} {max_label}",
    }
    return reason, text
