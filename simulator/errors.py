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
