"""Errors a user can fix. Each renders as one line naming the file, the field and what is valid."""

from __future__ import annotations


class ScenarioError(Exception):
    """A scenario (or trace) file is wrong. ``str()`` is the one line shown to the user."""

    def __init__(self, file: str, field: str, message: str) -> None:
        self.file = file
        self.field = field
        self.message = message
        where = f"{file}: {field}: " if field else f"{file}: "
        super().__init__(where + message)

    def __reduce__(self) -> tuple[type[ScenarioError], tuple[str, str, str]]:
        # Raised in a sweep's worker process, it is pickled back to the parent whole.
        return (type(self), (self.file, self.field, self.message))


class RunFailed(Exception):
    """A run that could not finish for a reason outside its input (a sweep's worker processes
    lost more often than retried): one line, exit code 1."""


class LimitExceeded(Exception):
    """An option asks for more work than a limit allows (``core.limits``), found while it is
    played (where the file is not known): ``field`` inside the option and the message. The
    engine raises it again as a ScenarioError naming the file and the option."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")

    def __reduce__(self) -> tuple[type[LimitExceeded], tuple[str, str]]:
        return (type(self), (self.field, self.message))
