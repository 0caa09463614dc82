"""The building blocks of scenario sections: a strict pydantic base and number types with ranges.

Every section forbids unknown keys (a typo is an error, not a silently ignored setting) and is
immutable. :class:`OptionModel` is the base of each option kind's section (``simulator.kinds``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

NonNeg = Annotated[float, Field(ge=0)]
Pos = Annotated[float, Field(gt=0)]
Fraction = Annotated[float, Field(ge=0, lt=1)]


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
