"""Atomic file writes: write beside the target, then rename, so a crash or a full disk never
leaves half a file behind. Each write has a temporary file of its own (two runs writing into one
folder at once do not collide).

The temporary file is created with mode 0666 less the user's umask, as ``open`` would create the
target itself (0644 under umask 022): a report put on a shared drive or a web server can be read
by others. (``tempfile.mkstemp`` makes 0600 files, which the rename would carry to the target.)

An error while writing names the target, not the temporary file, and always names a file (a full
disk's ``ENOSPC`` carries none of its own).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

# A temporary name adds ".<name>.<8 hex>.tmp"; the name part is cut so that the whole stays within
# the usual 255-byte limit of a file name.
_NAME_CHARS = 200


def _create_beside(path: Path) -> Path:
    """A new empty file next to ``path``, created with the umask's mode (O_EXCL: never reused)."""
    for _ in range(64):
        tmp = path.parent / f".{path.name[:_NAME_CHARS]}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp
    raise FileExistsError(f"no free temporary name beside {path}")


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it replaces ``path``, else it goes.

    An ``OSError`` raised while the temporary file is written or renamed is raised again naming
    ``path`` (with the same errno and message)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp = _create_beside(path)
    except OSError as exc:
        raise _naming(exc, path) from exc
    try:
        try:
            yield tmp
            tmp.replace(path)
        except OSError as exc:
            raise _naming(exc, path) from exc
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _naming(exc: OSError, path: Path) -> OSError:
    """The same error about ``path`` (a folder's own error keeps its own name)."""
    if exc.filename is not None and Path(exc.filename) in (path.parent, *path.parents):
        return exc
    return OSError(exc.errno, exc.strerror or str(exc), str(path))


def write_text(path: Path, text: str) -> Path:
    """Write UTF-8 text to ``path`` atomically."""
    with replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def check_writable(folder: Path) -> None:
    """Raise the ``OSError`` that writing into ``folder`` would raise, before any work is done:
    the folder is created if need be, and a probe file is created and removed."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        probe = _create_beside(folder / ".tco-write-check")
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(folder)) from exc
    probe.unlink()
