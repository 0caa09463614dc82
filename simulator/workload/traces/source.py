"""Reading a trace file's text (plain or gzip), within the size limit and bounded memory.

Only regular files are read (not folders, devices or pipes such as /dev/zero), and the text is
capped at ``limits.MAX_TRACE_MB``: a small gzip of newlines can expand a thousandfold, so
decompression stops at the cap instead of filling memory. The readers take the text line by
line (:func:`lines`): a 0.5 MB gzip within the cap, split whole into one string per line, once
reached 4.5 GB; a line is at most ``MAX_LINE_BYTES`` (one long line once ended in a MemoryError).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.limits import MAX_TRACE_MB

MAX_LINE_BYTES = 1 << 20  # an accounting record is a few hundred bytes; a MiB is not a record


def lines(path: Path, field: str = "workload.trace.file", keepends: bool = False) -> Iterator[str]:
    """The file's lines, read one at a time (``.gz`` decompressed as read; undecodable bytes
    replaced; ``keepends``: with their line ends, for the csv module). The text is capped at
    ``MAX_TRACE_MB`` as it is read, and each line at ``MAX_LINE_BYTES``."""
    if not path.is_file():
        what = "a folder" if path.is_dir() else "not a regular file"
        raise ScenarioError(str(path), field, f"{what}; give the path of a trace file")
    cap = int(MAX_TRACE_MB.value() * (1 << 20))
    if path.suffix != ".gz" and path.stat().st_size > cap:
        raise _too_big(path, field, path.stat().st_size)
    size = 0
    try:
        with gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb") as f:
            while raw := f.readline(MAX_LINE_BYTES + 1):
                size += len(raw)
                if size > cap:
                    raise _too_big(path, field, size)
                if len(raw) > MAX_LINE_BYTES:
                    raise ScenarioError(
                        str(path),
                        field,
                        f"a line of more than {MAX_LINE_BYTES:,} bytes (after {size:,} bytes):"
                        " not a job record; give a trace of one job per line",
                    )
                text = raw.decode("utf-8", errors="replace")
                yield text if keepends else text.rstrip("\r\n")
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        why = "it ends early (truncated)" if isinstance(exc, EOFError) else str(exc)
        raise ScenarioError(str(path), field, f"cannot decompress the .gz file: {why}") from None


def _too_big(path: Path, field: str, size: int) -> ScenarioError:
    found = f"the trace text is more than {size / (1 << 20):,.0f} MiB"
    return ScenarioError(str(path), field, MAX_TRACE_MB.exceeded(found))
