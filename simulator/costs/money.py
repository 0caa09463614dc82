"""The reporting currency: every figure is computed in USD (AWS and the hardware catalog quote USD,
and a scenario's ``*_usd`` fields are USD); the reports a person reads show money in the
scenario's ``currency`` at one dated exchange rate, converted once where it is shown and never
mixed with USD. summary.json, monthly.csv and jobs.csv stay in USD (their names say so) and
carry the rate."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field

from tco.pricing.records import FxRate
from tco.simulator.core.fields import BIG, Date, Strict


def _code(text: str) -> str:
    if not re.fullmatch(r"[A-Z]{3}", text):
        raise ValueError("must be an ISO 4217 code of three capital letters, e.g. USD, EUR, CNY")
    return text


CurrencyCode = Annotated[str, AfterValidator(_code)]


class ExchangeRate(Strict):
    """How many units of the reporting currency one USD buys, on which date, from where."""

    per_usd: Annotated[float, Field(gt=0, le=BIG)]
    as_of: Date
    source: str = Field(min_length=1)


@dataclass(frozen=True)
class Currency:
    """Money shown in ``code``: USD figures times ``per_usd``, as of ``as_of`` (``source``)."""

    code: str = "USD"
    per_usd: float = 1.0
    as_of: str = ""
    source: str = ""

    @property
    def is_usd(self) -> bool:
        return self.code == "USD"

    def of(self, usd: float) -> float:
        return usd * self.per_usd

    def text(self, usd: float) -> str:
        """A USD figure in this currency, whole units: "$20,000" and "−$20,000" in USD (a minus
        sign before the currency, as accountants write it); "EUR 20,000" and "−EUR 20,000"
        otherwise."""
        return self.label(self.of(usd))

    def label(self, value: float, _: object = None) -> str:
        """A figure already in this currency, as ``text`` writes it (a matplotlib tick
        formatter for axes drawn in this currency)."""
        return self._write(value, 0)

    def cents(self, usd: float) -> str:
        """With two decimals, for prices per unit: "$1.29", "EUR 1.11"."""
        return self._write(self.of(usd), 2)

    def _write(self, value: float, decimals: int) -> str:
        sign = "−" if value < 0 else ""
        unit = "$" if self.is_usd else f"{self.code} "
        return f"{sign}{unit}{abs(value):,.{decimals}f}"

    def quote_rates(self) -> dict[str, FxRate]:
        """The rate the price book converts prices AWS quotes in this currency at (AWS China
        quotes CNY): the same dated rate the reports show, so a CNY price shows as itself."""
        if self.is_usd:
            return {}
        return {self.code: FxRate(self.code, self.per_usd, self.as_of, self.source)}

    def rate(self) -> str:
        """The rate in words, with its date and source ('' in USD)."""
        if self.is_usd:
            return ""
        return f"{self.per_usd:g} {self.code} per USD as of {self.as_of} ({self.source})"

    def note(self) -> str:
        """What a report says once, near the top, about its money."""
        if self.is_usd:
            return "Money in USD."
        return (
            f"Money in {self.code}, converted from USD at {self.rate()}; prices are quoted and"
            " computed in USD."
        )

    def unit(self) -> str:
        """The unit an axis or a heading names: the code, with the rate's date when converted."""
        return self.code if self.is_usd else f"{self.code} at {self.per_usd:g}/USD, {self.as_of}"


USD = Currency()
