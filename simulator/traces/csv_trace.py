"""CSV traces with a header: the ITP format, tco's normalised CSV, or any columns mapped by name."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from tco.pricing.errors import closest
from tco.simulator.errors import ScenarioError
from tco.simulator.traces.fields import parse_time
from tco.simulator.traces.records import LoadReport, RowCollector, TraceJobs, replayable
from tco.simulator.traces.source import open_text


class CsvColumns(BaseModel):
    """Header names of a CSV trace (defaults: the ITP / tco normalised format). Also the
    ``workload.trace.columns`` section of a scenario, hence strict."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    submit: str = "submit_time_s"
    duration: str = "duration_s"
    gpus: str = "num_gpus"
    job_id: str | None = "job_id"
    gpu_type: str | None = "gpu_type"
    status: str | None = "status"
    cluster: str | None = "cluster"


DEFAULT_COLUMNS = CsvColumns()


def read_csv(
    path: Path,
    columns: CsvColumns = DEFAULT_COLUMNS,
    timestamps: bool = False,
    utc_offset_hours: float = 0.0,
    field_name: str = "workload.trace",
) -> tuple[TraceJobs, LoadReport]:
    """A CSV trace with a header. Submit is seconds (or a timestamp), duration seconds."""
    text = open_text(path)
    reader = csv.reader(io.StringIO(text))
    report = LoadReport(str(path))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise ScenarioError(str(path), field_name, "the trace file is empty") from None
    index = {h: i for i, h in enumerate(header)}
    need = {"submit": columns.submit, "duration": columns.duration, "gpus": columns.gpus}
    for what, name in need.items():
        if name not in index:
            raise ScenarioError(
                str(path),
                f"{field_name}.columns.{what}",
                f"no column {name!r} in the header{closest(name, header)}; columns: "
                + ", ".join(header),
            )
    optional = {
        k: index.get(v) if v else None
        for k, v in (
            ("job_id", columns.job_id),
            ("gpu_type", columns.gpu_type),
            ("status", columns.status),
            ("cluster", columns.cluster),
        )
    }
    rows = RowCollector()
    for line_no, row in enumerate(reader, start=2):
        if not row or all(not c.strip() for c in row):
            continue
        report.rows += 1
        try:
            if len(row) != len(header):
                raise ValueError(f"{len(row)} fields, the header has {len(header)}")
            submit_text = row[index[columns.submit]]
            submit = parse_time(submit_text, utc_offset_hours) if timestamps else float(submit_text)
            duration = float(row[index[columns.duration]])
            gpus = int(float(row[index[columns.gpus]]))
            if not np.isfinite(submit) or not np.isfinite(duration):
                raise ValueError("not a finite number")
            if duration < 0 or gpus < 0:
                raise ValueError("negative duration or GPU count")
        except (ValueError, IndexError) as exc:
            report.bad(line_no, str(exc))
            continue
        if not replayable(report, gpus, duration, keep_empty=False):
            continue

        def opt(key: str, row: list[str] = row) -> str:
            i = optional[key]
            return row[i].strip() if i is not None else ""

        job_id = opt("job_id") or f"line{line_no}"
        cluster = opt("cluster") or (job_id.split("-", 1)[0] if re.match(r"^c\d+-", job_id) else "")
        rows.add(job_id, submit, duration, gpus, opt("gpu_type"), opt("status"), cluster)
    jobs = rows.done()
    report.jobs = len(jobs)
    return jobs, report
