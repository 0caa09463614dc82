"""Atomic file writes: write beside the target, then rename, so a crash or a full disk never
leaves half a file behind. Each write has a temporary file of its own (two runs writing into one
folder at once do not collide)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it replaces ``path``, else it goes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: Path, text: str) -> Path:
    """Write UTF-8 text to ``path`` atomically."""
    with replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path
