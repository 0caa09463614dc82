"""The building blocks of scenario sections: a strict pydantic base and number types with ranges.

Every section forbids unknown keys (a typo is an error, not a silently ignored setting) and is
immutable. :class:`OptionModel` is the base of each option kind's section (``simulator.kinds``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from typing import TYPE_CHECKING, Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

# Every number has a range that can be simulated: 1e9 bounds sums of money, hours and counts far
# from float overflow (1e308) while no real price, size or rate comes near it.
BIG = 1e9
NonNeg = Annotated[float, Field(ge=0, le=BIG)]
Pos = Annotated[float, Field(gt=0, le=BIG)]
Fraction = Annotated[float, Field(ge=0, lt=1)]
Growth = Annotated[float, Field(gt=-1, le=1)]  # per month, compounding: at most doubling
GpuCount = Annotated[int, Field(ge=1, le=100_000)]  # per job or server pool (limits.py)
Count = Annotated[int, Field(ge=1, le=1_000_000)]


def _month(text: str) -> str:
    m = re.fullmatch(r"(\d{4})-(\d{2})", text)
    if not m or not 1 <= int(m[2]) <= 12 or not 2000 <= int(m[1]) <= 2100:
        raise ValueError("must be a month YYYY-MM from 2000-01 to 2100-12")
    return text


def _date(text: str) -> str:
    with contextlib.suppress(ValueError):
        if re.fullmatch(r"\d{4}-\d{2}", text):
            return _month(text)
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            dt.date.fromisoformat(text)
            return text
    raise ValueError("must be a date YYYY-MM-DD or a month YYYY-MM")


def _name(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be blank")
    bad = next((c for c in text if ord(c) < 0x20 or ord(c) == 0x7F), None)
    if bad is not None:
        raise ValueError(
            f"must be one line of text: it holds the control character {bad!r}"
            " (a line break or a tab); write the name on one line"
        )
    return text


# A name shown in tables, file names, spreadsheet cells and one-line errors: one line of text,
# at most 200 characters.
Name = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_name)]
Month = Annotated[str, AfterValidator(_month)]
Date = Annotated[str, AfterValidator(_date)]


class Strict(BaseModel):
    """Base for every scenario section: unknown keys are errors, models are immutable, numbers
    are finite, and a value of the wrong type is an error, not converted (``true`` is not 1,
    ``"12"`` is not 12)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, strict=True)


class OptionModel(Strict):
    """Base of an option's scenario section. Each kind's model declares ``kind`` as
    ``Literal["<its name>"]`` and ``name``, in the order its section lists them (the order
    reports and summary.json show)."""

    if TYPE_CHECKING:  # declared by each kind, so that each keeps its own field order

        @property
        def kind(self) -> str: ...

        @property
        def name(self) -> str: ...
