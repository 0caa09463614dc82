"""Files of the report directory that are plain data: summary.json, monthly.csv, jobs.csv."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tco.simulator import summary
from tco.simulator.atomic import write_text
from tco.simulator.result import Result


def write_data(
    result: Result, out_dir: str | Path, json: bool = True, csv: bool = True
) -> list[Path]:
    """Write summary.json, monthly.csv (long format) and jobs.csv (every job on every option)."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    written = []
    if json:
        written.append(summary.write(result, d / "summary.json"))
    if csv:
        monthly = result.monthly_frame()
        written.append(
            write_text(
                d / "monthly.csv",
                monthly.to_csv(index=False, float_format="%.2f", lineterminator="\n"),
            )
        )
        frames = []
        for o in result.options:
            f = result.jobs_frame(o.name)
            f.insert(0, "option", o.name)
            frames.append(f)
        jobs = pd.concat(frames, ignore_index=True)
        written.append(
            write_text(
                d / "jobs.csv", jobs.to_csv(index=False, float_format="%.6f", lineterminator="\n")
            )
        )
    return written
