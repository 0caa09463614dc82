"""CSV traces with a header: the ITP format, tco's normalised CSV, or any columns mapped by name."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from tco.pricing.errors import closest
from tco.simulator.core.errors import ScenarioError
from tco.simulator.workload.traces.fields import parse_time
from tco.simulator.workload.traces.records import (
    LoadReport,
    RowCollector,
    TraceJobs,
    check_values,
    replayable,
)
from tco.simulator.workload.traces.source import lines


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


def _header(reader: Iterator[list[str]], path: Path, field_name: str) -> list[str]:
    try:
        return [h.strip() for h in next(reader)]
    except StopIteration:
        raise ScenarioError(str(path), field_name, "the trace file is empty") from None
    except csv.Error as exc:
        raise ScenarioError(str(path), field_name, f"the first line is not CSV: {exc}") from None


def _check_columns(header: list[str], columns: CsvColumns, path: Path, field_name: str) -> None:
    # The header is shown only if it looks like one: never echo the contents of a wrong file.
    readable = len(header) <= 50 and all(re.fullmatch(r"[\w .()/-]{1,64}", h) for h in header)
    for what, name in (
        ("submit", columns.submit),
        ("duration", columns.duration),
        ("gpus", columns.gpus),
    ):
        if name not in header:
            has = (
                f"{closest(name, header)}; columns: {', '.join(header)}"
                if readable
                else "; the first line is not a CSV header (is this a CSV trace?)"
            )
            raise ScenarioError(
                str(path), f"{field_name}.columns.{what}", f"no column {name!r} in the header{has}"
            )


def _rows(reader: Iterator[list[str]], report: LoadReport) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of each non-blank data row; a row the csv module cannot split
    (e.g. a field over its size limit) is an unreadable line."""
    line_no = 1
    while True:
        line_no += 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            report.rows += 1
            report.bad(line_no, str(exc))
            continue
        if row and any(c.strip() for c in row):
            yield line_no, row


def read_csv(
    path: Path,
    columns: CsvColumns = DEFAULT_COLUMNS,
    timestamps: bool = False,
    utc_offset_hours: float = 0.0,
    field_name: str = "workload.trace",
    max_rows: int | None = None,
) -> tuple[TraceJobs, LoadReport]:
    """A CSV trace with a header. Submit is seconds (or a timestamp), duration seconds.
    ``max_rows``: read only that many data rows (to check a file quickly)."""
    reader = csv.reader(lines(path, f"{field_name}.file", keepends=True))
    report = LoadReport(str(path))
    header = _header(reader, path, field_name)
    _check_columns(header, columns, path, field_name)
    index = {h: i for i, h in enumerate(header)}
    optional = {
        k: index.get(v) if v else None
        for k, v in (
            ("job_id", columns.job_id),
            ("gpu_type", columns.gpu_type),
            ("status", columns.status),
            ("cluster", columns.cluster),
        )
    }
    rows = RowCollector(str(path), field_name)
    for line_no, row in _rows(reader, report):
        if max_rows is not None and report.rows >= max_rows:
            break
        report.rows += 1
        try:
            if len(row) != len(header):
                raise ValueError(f"{len(row)} fields, the header has {len(header)}")
            submit_text = row[index[columns.submit]]
            submit = parse_time(submit_text, utc_offset_hours) if timestamps else float(submit_text)
            duration = float(row[index[columns.duration]])
            gpus = int(float(row[index[columns.gpus]]))
            if not np.isfinite(submit):
                raise ValueError("submit time is not a finite number")
            check_values(gpus, duration)
        except (ValueError, IndexError, OverflowError) as exc:
            report.bad(line_no, str(exc))
            continue
        report.held += 1
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
