"""A folder of files that belong together (a report, a sweep, an optimiser run) is complete when
its ``manifest.json`` is there and every file it lists matches its SHA-256.

The manifest is removed before the work starts (:func:`begin`, which also checks the folder can
be written, so a run that could not save its files fails before it simulates) and written last
(:func:`finish`): a run stopped half-way leaves a folder without one, never a mix of old and new
files that looks complete. :func:`verify` lists what makes a folder incomplete or mixed.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tco.reports.formats import MANIFEST
from tco.simulator.core.atomic import check_writable, write_text


def begin(folder: Path) -> None:
    """Make sure ``folder`` can be written and mark it incomplete (its old manifest removed)."""
    check_writable(folder)
    (folder / MANIFEST).unlink(missing_ok=True)


# Set while a folder is written when Ctrl-C (SIGINT) or SIGTERM arrives: a KeyboardInterrupt
# raised inside a finaliser (a figure's, an image's ``__del__``) is printed as "Exception
# ignored" and lost, and the run went on to write a manifest over a folder it never finished.
_INTERRUPTED: list[int] = []


def _interrupted(signum: int, _frame: object) -> None:
    _INTERRUPTED.append(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def _held_signals() -> Iterator[None]:
    """Ctrl-C and SIGTERM recorded as well as raised while a folder is written (main thread
    only: Python delivers signals there)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _INTERRUPTED.clear()
    old = {s: signal.signal(s, _interrupted) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    if _INTERRUPTED:  # raised and swallowed on the way (a finaliser's): stopped all the same
        raise KeyboardInterrupt


@contextlib.contextmanager
def writing(folder: Path) -> Iterator[None]:
    """Write a folder's files and then its manifest (:func:`finish`) inside this block: the
    folder is begun and locked (an exclusive ``flock`` on the folder itself, which leaves no
    file behind), so two runs writing one folder take turns and each manifest certifies the
    files of its own run (unlocked, one run's manifest certified a mix of two seeds' files).
    Where ``fcntl`` is missing (Windows) there is no lock; the manifest still tells a mixed
    folder (:func:`verify`)."""
    begin(folder)
    with _held_signals():
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        fd = os.open(folder, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            (folder / MANIFEST).unlink(missing_ok=True)  # the run before us may have written one
            yield
        finally:
            os.close(fd)  # releases the lock


def subfolder(folder: Path, name: str) -> Path:
    """``folder/name`` as a folder of this folder's own: a symbolic link planted there would
    send the files elsewhere, so it is refused (OSError naming it)."""
    p = folder / name
    if p.is_symlink():
        raise OSError(
            errno.EEXIST,
            "a symbolic link; tco writes only inside the folder it was given: remove it",
            str(p),
        )
    p.mkdir(parents=True, exist_ok=True)
    return p


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def finish(folder: Path, schema: str, about: dict[str, Any], files: list[Path]) -> Path:
    """Write the manifest of ``files`` (paths inside ``folder``) with what they are ``about``;
    never after an interrupt while they were written (``_held_signals``)."""
    if _INTERRUPTED:
        raise KeyboardInterrupt
    doc = {
        "schema": schema,
        **about,
        "files": {p.relative_to(folder).as_posix(): _sha256(p) for p in sorted(files)},
    }
    return write_text(folder / MANIFEST, json.dumps(doc, indent=1, sort_keys=True) + "\n")


def verify(folder: str | Path, what: str = "report") -> list[str]:
    """Problems that make ``folder`` incomplete or mixed (an empty list: it is whole)."""
    d = Path(folder)
    try:
        doc = json.loads((d / MANIFEST).read_text(encoding="utf-8"))
        files = dict(doc["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return [f"{d / MANIFEST}: missing or unreadable: the {what} was not completed"]
    problems = []
    for name, digest in files.items():
        p = d / name
        if not p.is_file():
            problems.append(f"{p}: listed in the manifest but missing")
        elif _sha256(p) != digest:
            problems.append(f"{p}: not the file this {what} wrote (another run changed it)")
    return problems
