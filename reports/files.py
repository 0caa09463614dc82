"""Files of the report directory that are plain data: summary.json, monthly.csv, jobs.csv."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simulator import summary
from simulator.result import Result


def _atomic_csv(frame_text: str, path: Path) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(frame_text, encoding="utf-8")
    tmp.replace(path)


def write_data(result: Result, out_dir: str | Path) -> list[Path]:
    """Write summary.json, monthly.csv (long format) and jobs.csv (every job on every option)."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    written = [summary.write(result, d / "summary.json")]
    monthly = result.monthly_frame()
    _atomic_csv(
        monthly.to_csv(index=False, float_format="%.2f", lineterminator="\n"), d / "monthly.csv"
    )
    written.append(d / "monthly.csv")
    frames = []
    for o in result.options:
        f = result.jobs_frame(o.name)
        f.insert(0, "option", o.name)
        frames.append(f)

    jobs = pd.concat(frames, ignore_index=True)
    _atomic_csv(jobs.to_csv(index=False, float_format="%.6f", lineterminator="\n"), d / "jobs.csv")
    written.append(d / "jobs.csv")
    return written
