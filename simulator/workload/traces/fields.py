"""Small parsers for the fields of Slurm accounting lines: durations, timestamps, GPUs, arrays."""

from __future__ import annotations

import datetime as dt
import re

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
    count = untyped if untyped is not None else typed
    if count < 0:
        raise ValueError(f"negative GPU count in AllocTRES {alloc_tres!r}")
    return count, model


_ARRAY = re.compile(r"(\d+)_\[([\d,\-]+)\](.*)")


def _ranges(spec: str) -> list[tuple[int, int]]:
    out = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or not (hi or lo).isdigit():
            raise ValueError(f"array range {part!r} is not N or N-M")
        first, last = int(lo), int(hi or lo)
        if last < first:
            raise ValueError(f"array range {part!r} runs backwards")
        out.append((first, last))
    return out


def array_size(job_id: str) -> int:
    """How many jobs ``job_id`` stands for (1, or the tasks of a compressed array record),
    without expanding it."""
    m = _ARRAY.fullmatch(job_id)
    return sum(last - first + 1 for first, last in _ranges(m[2])) if m else 1


def expand_array(job_id: str) -> list[str]:
    """'123_[1-3,5]' -> ['123_1', '123_2', '123_3', '123_5']; other ids unchanged."""
    m = _ARRAY.fullmatch(job_id)
    if not m:
        return [job_id]
    base, spec, rest = m.groups()
    return [f"{base}_{i}{rest}" for first, last in _ranges(spec) for i in range(first, last + 1)]
