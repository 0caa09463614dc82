"""Recorded workloads: job traces (CSV) and Slurm accounting (``sacct --parsable2``, Open XDMoD).

Reading follows the rules in the Slurm notes (docs/TRACES.md): job steps (``123.batch``) are
skipped, not added; GPUs are the ``gres/gpu`` count of AllocTRES (the untyped entry when both
typed and untyped appear, never their sum; the GPU model from the typed name); jobs that never
started or have not ended are skipped and counted; ``CANCELLED by N`` is a cancelled job that ran;
compressed array records (``123_[1-3,5]``) become one job per index; ``Elapsed`` is
``[DD-[HH:]]MM:SS``; timestamps are UTC unless the user gives their offset. A line that cannot
be read is counted and reported with its number, never dropped silently and never fatal.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from tco.simulator.atomic import write_text
from tco.simulator.errors import ScenarioError

# Open XDMoD's headerless export order (docs/resource-manager-slurm.md); JobName is last so
# that a '|' inside a job name falls into it.
XDMOD_FIELDS = (
    "JobID JobIDRaw Cluster Partition QOS Account Group GID User UID Submit Eligible Start End"
    " Elapsed ExitCode State NNodes NCPUS ReqCPUS ReqMem ReqTRES AllocTRES Timelimit NodeList"
    " JobName"
).split()
ENDED_STATES = {
    "BOOT_FAIL",
    "CANCELLED",
    "COMPLETED",
    "DEADLINE",
    "FAILED",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "PREEMPTED",
    "TIMEOUT",
    "REVOKED",
}
NOT_ENDED_STATES = {"PENDING", "RUNNING", "REQUEUED", "RESIZING", "SUSPENDED"}
MAX_REPORTED_LINES = 5


@dataclass
class LoadReport:
    """What reading a trace found: jobs kept, rows skipped by reason, unreadable lines."""

    file: str
    rows: int = 0
    jobs: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    bad_lines: list[tuple[int, str]] = field(default_factory=list)  # first few (line, why)
    bad_count: int = 0

    def bad(self, line: int, why: str) -> None:
        self.bad_count += 1
        if len(self.bad_lines) < MAX_REPORTED_LINES:
            self.bad_lines.append((line, why))

    def summary(self) -> str:
        """One sentence for people."""
        parts = [f"{self.file}: {self.jobs:,} jobs from {self.rows:,} rows"]
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

    def __len__(self) -> int:
        return len(self.job_id)

    def gpu_hours(self) -> float:
        return float((self.duration_s * self.gpus).sum() / 3600.0)


# ------------------------------------------------------------------ small parsers


_ELAPSED = re.compile(r"^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)(?:\.\d+)?$")


def parse_elapsed(text: str) -> float:
    """Seconds in a Slurm duration ``[DD-[HH:]]MM:SS`` (e.g. '3-00:00:00', '14:00:49')."""
    m = _ELAPSED.match(text.strip())
    if not m:
        raise ValueError(f"Elapsed {text!r} is not [DD-[HH:]]MM:SS")
    days, hours, minutes, seconds = (int(g) if g else 0 for g in m.groups())
    return float(((days * 24 + hours) * 60 + minutes) * 60 + seconds)


def parse_time(text: str, utc_offset_hours: float) -> float:
    """Epoch seconds (UTC) of an ISO timestamp or of epoch seconds (SLURM_TIME_FORMAT=%s).

    A timestamp without an offset is taken as local time at ``utc_offset_hours``.
    """
    t = text.strip()
    if re.fullmatch(r"\d+(\.\d+)?", t):
        return float(t)
    stamp = dt.datetime.fromisoformat(t)
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.timezone(dt.timedelta(hours=utc_offset_hours)))
    return stamp.timestamp()


def gpus_from_tres(alloc_tres: str) -> tuple[int, str]:
    """(GPU count, GPU model or '') from an AllocTRES string.

    The untyped ``gres/gpu=N`` is the count when present; otherwise the typed entries
    (``gres/gpu:volta=2``) are summed. Typed and untyped are never added together.
    """
    untyped: int | None = None
    typed = 0
    model = ""
    for part in alloc_tres.split(","):
        name, _, value = part.strip().partition("=")
        if name == "gres/gpu":
            untyped = int(value)
        elif name.startswith("gres/gpu:"):
            typed += int(value)
            model = model or name.split(":", 1)[1]
    return (untyped if untyped is not None else typed), model


def expand_array(job_id: str) -> list[str]:
    """'123_[1-3,5]' -> ['123_1', '123_2', '123_3', '123_5']; other ids unchanged."""
    m = re.fullmatch(r"(\d+)_\[([\d,\-]+)\](.*)", job_id)
    if not m:
        return [job_id]
    base, spec, rest = m.groups()
    out = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        for i in range(int(lo), int(hi or lo) + 1):
            out.append(f"{base}_{i}{rest}")
    return out


def _open_text(path: Path) -> str:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", errors="replace")


# ------------------------------------------------------------------ readers


def _replayable(report: LoadReport, gpus: int, duration: float, keep_empty: bool) -> bool:
    """Whether a job uses GPU time; jobs that do not are counted by reason (unless kept)."""
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
class _Rows:
    job_id: list[str] = field(default_factory=list)
    submit: list[float] = field(default_factory=list)
    duration: list[float] = field(default_factory=list)
    gpus: list[int] = field(default_factory=list)
    gpu_type: list[str] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    cluster: list[str] = field(default_factory=list)

    def add(
        self,
        job_id: str,
        submit: float,
        duration: float,
        gpus: int,
        gpu_type: str,
        status: str,
        cluster: str,
    ) -> None:
        self.job_id.append(job_id)
        self.submit.append(submit)
        self.duration.append(duration)
        self.gpus.append(gpus)
        self.gpu_type.append(gpu_type)
        self.status.append(status)
        self.cluster.append(cluster)

    def done(self) -> TraceJobs:
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
        )


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
    text = _open_text(path)
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
            from tco.pricing.errors import closest

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
    rows = _Rows()
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
        if not _replayable(report, gpus, duration, keep_empty=False):
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


def read_sacct(
    path: Path,
    fmt: str = "sacct",
    utc_offset_hours: float = 0.0,
    field_name: str = "workload.trace",
    keep_empty: bool = False,
) -> tuple[TraceJobs, LoadReport]:
    """``sacct --parsable2`` (header optional: without one, Open XDMoD's 26-field order).

    ``keep_empty`` keeps allocations without GPUs or of zero duration (to inspect a log); a
    replay leaves them out, counted.
    """
    text = _open_text(path)
    lines = text.splitlines()
    report = LoadReport(str(path))
    fields = list(XDMOD_FIELDS)
    start = 0
    first = lines[0].split("|") if lines else []
    if fmt == "sacct" and first and first[0].strip().lower() in ("jobid", "jobidraw"):
        fields = [f.strip() for f in first]
        start = 1
    lower = {f.lower(): i for i, f in enumerate(fields)}
    missing = [
        name for name in ("JobID", "State", "AllocTRES", "Start") if name.lower() not in lower
    ]
    if "end" not in lower and "elapsed" not in lower:
        missing.append("End (or Elapsed)")
    if missing:
        raise ScenarioError(
            str(path),
            field_name,
            f"the sacct output lacks {', '.join(missing)} needed to replay it; it has "
            f"{', '.join(fields)}. To fix: export with sacct --parsable2 --format "
            "JobID,Cluster,Submit,Start,End,Elapsed,State,AllocTRES",
        )
    rows = _Rows()
    n_fields = len(fields)
    last_is_name = fields[-1].lower() == "jobname"

    def get(parts: list[str], name: str) -> str:
        i = lower.get(name)
        return parts[i].strip() if i is not None and i < len(parts) else ""

    for line_no, line in enumerate(lines[start:], start=start + 1):
        if not line.strip():
            continue
        parts = line.split("|", n_fields - 1) if last_is_name else line.split("|")
        if fmt == "sacct" and len(parts) == n_fields + 1 and parts[-1] == "":
            parts = parts[:-1]  # --parsable (trailing '|')
        report.rows += 1
        if len(parts) != n_fields:
            report.bad(line_no, f"{len(parts)} fields, expected {n_fields}")
            continue
        job_id = get(parts, "jobid")
        if "." in job_id:
            report.skipped["job steps"] += 1
            continue
        state = get(parts, "state").upper().split(" ", 1)[0]  # 'CANCELLED by 102216'
        start_text, end_text = get(parts, "start"), get(parts, "end")
        if state in NOT_ENDED_STATES or start_text in ("", "Unknown", "None"):
            report.skipped["not started or not ended (pending, running...)"] += 1
            continue
        if state not in ENDED_STATES:
            report.bad(line_no, f"unknown state {get(parts, 'state')!r}")
            continue
        try:
            started = parse_time(start_text, utc_offset_hours)
            elapsed = get(parts, "elapsed")
            if elapsed:
                duration = parse_elapsed(elapsed)
            else:
                if end_text in ("", "Unknown"):
                    raise ValueError("End is Unknown")
                duration = parse_time(end_text, utc_offset_hours) - started
            submit_text = get(parts, "submit")
            submit = (
                parse_time(submit_text, utc_offset_hours)
                if submit_text not in ("", "Unknown")
                else started
            )
            gpus, model = gpus_from_tres(get(parts, "alloctres"))
        except ValueError as exc:
            report.bad(line_no, str(exc))
            continue
        if not _replayable(report, gpus, duration, keep_empty):
            continue
        for one in expand_array(job_id):
            rows.add(one, submit, duration, gpus, model, state, get(parts, "cluster"))
    jobs = rows.done()
    report.jobs = len(jobs)
    return jobs, report


def read(
    path: Path,
    fmt: str,
    columns: CsvColumns = DEFAULT_COLUMNS,
    timestamps: bool = False,
    utc_offset_hours: float = 0.0,
    field_name: str = "workload.trace",
) -> tuple[TraceJobs, LoadReport]:
    """Read a trace in ``fmt`` (csv, sacct, xdmod)."""
    if not path.exists():
        raise ScenarioError(str(path), f"{field_name}.file", "no such file")
    if fmt == "csv":
        return read_csv(path, columns, timestamps, utc_offset_hours, field_name)
    return read_sacct(path, fmt, utc_offset_hours, field_name)


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


@dataclass(frozen=True)
class TraceStats:
    """What a trace holds: jobs, span, GPU-hours, sizes, durations (hours), arrivals per day."""

    jobs: int
    span_days: float
    gpu_hours: float
    jobs_by_gpus: dict[int, int]
    gpu_hours_by_gpus: dict[int, float]
    duration_p50_h: float
    duration_p90_h: float
    duration_p99_h: float
    duration_max_h: float
    arrivals_per_day_mean: float
    arrivals_per_day_max: int
    arrivals_per_day: list[int]


def stats(jobs: TraceJobs) -> TraceStats:
    """Jobs, span, GPU-hours, GPUs per job, duration percentiles and arrivals per day."""
    if len(jobs) == 0:
        return TraceStats(0, 0.0, 0.0, {}, {}, 0.0, 0.0, 0.0, 0.0, 0.0, 0, [])
    t = jobs.submit_s - jobs.submit_s.min()
    per_day = np.bincount(np.floor(t / 86400.0).astype(np.int64))
    sizes, counts = np.unique(jobs.gpus, return_counts=True)
    gpu_h = jobs.duration_s * jobs.gpus / 3600.0
    p = np.percentile(jobs.duration_s / 3600.0, [50, 90, 99])
    return TraceStats(
        jobs=len(jobs),
        span_days=float(t.max() / 86400.0),
        gpu_hours=float(gpu_h.sum()),
        jobs_by_gpus={int(k): int(v) for k, v in zip(sizes, counts, strict=True)},
        gpu_hours_by_gpus={int(k): float(gpu_h[jobs.gpus == k].sum()) for k in sizes},
        duration_p50_h=float(p[0]),
        duration_p90_h=float(p[1]),
        duration_p99_h=float(p[2]),
        duration_max_h=float(jobs.duration_s.max() / 3600.0),
        arrivals_per_day_mean=float(per_day.mean()),
        arrivals_per_day_max=int(per_day.max()),
        arrivals_per_day=per_day.tolist(),
    )
