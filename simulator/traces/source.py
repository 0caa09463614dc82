"""Reading a trace file's text (plain or gzip)."""

from __future__ import annotations

import gzip
from pathlib import Path


def open_text(path: Path) -> str:
    """The file's text; ``.gz`` files are decompressed; undecodable bytes are replaced."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", errors="replace")
