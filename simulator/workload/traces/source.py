"""Reading a trace file's text (plain or gzip), within the size limit.

Only regular files are read (not folders, devices or pipes such as /dev/zero), and the text is
capped at ``limits.MAX_TRACE_MB`` before anything is parsed: a small gzip of newlines can expand
a thousandfold, so decompression stops at the cap instead of filling memory.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.limits import MAX_TRACE_MB

CHUNK_BYTES = 1 << 20  # decompress 1 MiB at a time so the cap is checked as text grows


def open_text(path: Path, field: str = "workload.trace.file") -> str:
    """The file's text; ``.gz`` files are decompressed; undecodable bytes are replaced."""
    if not path.is_file():
        what = "a folder" if path.is_dir() else "not a regular file"
        raise ScenarioError(str(path), field, f"{what}; give the path of a trace file")
    cap = int(MAX_TRACE_MB.value() * (1 << 20))
    try:
        if path.suffix == ".gz":
            raw = _gunzip(path, cap)
        else:
            if path.stat().st_size > cap:
                raise _too_big(path, field, path.stat().st_size)
            raw = path.read_bytes()
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        why = "it ends early (truncated)" if isinstance(exc, EOFError) else str(exc)
        raise ScenarioError(str(path), field, f"cannot decompress the .gz file: {why}") from None
    except _TooBig as exc:
        raise _too_big(path, field, exc.size) from None
    return raw.decode("utf-8", errors="replace")


class _TooBig(Exception):
    def __init__(self, size: int) -> None:
        self.size = size


def _gunzip(path: Path, cap: int) -> bytes:
    parts, size = [], 0
    with gzip.open(path, "rb") as f:
        while chunk := f.read(CHUNK_BYTES):
            size += len(chunk)
            if size > cap:
                raise _TooBig(size)
            parts.append(chunk)
    return b"".join(parts)


def _too_big(path: Path, field: str, size: int) -> ScenarioError:
    found = f"the trace text is more than {size / (1 << 20):,.0f} MiB"
    return ScenarioError(str(path), field, MAX_TRACE_MB.exceeded(found))
