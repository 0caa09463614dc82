"""Reading a file a user names on the command line (a scenario, a summary to compare): regular
files only, and within a size bound, so that ``/dev/zero`` or ``/dev/urandom`` is not read
without end and a named pipe (FIFO) does not block the command waiting for a writer.

The file is checked with ``stat`` before it is opened (opening a FIFO for reading blocks), opened
non-blocking, checked again on the open descriptor (it may have been swapped in between), and
read up to the bound plus one byte. Traces have their own reader with the same rules and their
own bound (``workload.traces.source``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tco.simulator.core.limits import MAX_INPUT_MB


class InputFileError(ValueError):
    """A named file that cannot be read as input; ``str()`` is ``"<path>: <reason>"``."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_input(path: Path, what: str) -> bytes:
    """The bytes of ``path``, a regular file of at most ``TCO_MAX_INPUT_MB`` (``what``: what the
    user should give instead, e.g. "a scenario file")."""
    cap = int(MAX_INPUT_MB.value() * (1 << 20))
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(path, f"{_kind(st.st_mode)}, not a file; give {what}")
        if st.st_size > cap:
            raise InputFileError(path, MAX_INPUT_MB.exceeded(f"{st.st_size / (1 << 20):,.0f} MiB"))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise InputFileError(path, f"{_kind(mode)}, not a file; give {what}")
            data = f.read(cap + 1)
    except FileNotFoundError:
        raise InputFileError(path, f"no such file; give {what}") from None
    except IsADirectoryError:
        raise InputFileError(path, f"a folder, not a file; give {what}") from None
    except OSError as exc:
        raise InputFileError(path, f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > cap:
        raise InputFileError(path, MAX_INPUT_MB.exceeded("the file grew past the limit"))
    return data
