"""tco's normalised trace CSV, written by ``tco workload import``."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from tco.simulator.core.atomic import write_text
from tco.simulator.workload.traces.records import TraceJobs


def write_normalised(jobs: TraceJobs, path: Path) -> Path:
    """The tco normalised CSV: seconds from the first submit, the ITP column names, plus cluster."""
    t0 = float(jobs.submit_s.min()) if len(jobs) else 0.0
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        ["job_id", "submit_time_s", "duration_s", "num_gpus", "gpu_type", "status", "cluster"]
    )
    for i in range(len(jobs)):
        w.writerow(
            [
                jobs.job_id[i],
                f"{jobs.submit_s[i] - t0:.3f}".rstrip("0").rstrip("."),
                f"{jobs.duration_s[i]:.3f}".rstrip("0").rstrip("."),
                int(jobs.gpus[i]),
                jobs.gpu_type[i],
                jobs.status[i],
                jobs.cluster[i],
            ]
        )
    return write_text(path, buf.getvalue())
