"""A quote: a number the result depends on, with its unit, source and date, as every plan,
ledger input and report lists it (``kinds.plan`` gathers an option's quotes)."""

from __future__ import annotations

from dataclasses import dataclass

from tco.pricing.records import Price
from tco.simulator.core import defaults

# The unit of a factor a rule applies to a quoted price (a later order, a refresh's order): the
# answer names the rule of any such quote that moves a price by more than 5 %.
PRICE_FACTOR_UNIT = "x quoted price"


@dataclass(frozen=True)
class Quote:
    """A number the result depends on, with its unit, source and date."""

    item: str
    value: float
    unit: str
    source: str
    as_of: str
    detail: str


def input_quote(item: str, value: float, unit: str, default_key: str) -> Quote:
    """A cost input: the documented default with its source, or the scenario's own value."""
    default, source = defaults.SOURCES[default_key]
    if value == default:
        return Quote(item, value, unit, "default", "see detail", source)
    return Quote(item, value, unit, "scenario", "undated", "set in the scenario file")


def price_quote(item: str, p: Price) -> Quote:
    """An hourly price from the price book or the scenario."""
    return Quote(item, p.usd_per_hour, "USD/h", p.source, p.as_of, p.detail)
