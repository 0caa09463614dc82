"""Where the report's prices come from, in words a reader of the report understands.

The prices carry terse source tags and research notes ("snapshot", "catalog", "GUESS",
"CONFLICT ... verify"): right for summary.json and the spreadsheet, which keep them as they are,
but a presented report says what they mean.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pandas as pd

from tco.simulator.core.quote import Quote
from tco.simulator.engine.result import Result

# Source tags the pricing and catalog code write, and what they mean.
SOURCES = {
    "snapshot": "AWS prices bundled with tco (dated snapshot)",
    "bundled snapshot": "AWS prices bundled with tco (dated snapshot)",
    "clouds-snapshot": "other clouds' list prices bundled with tco (catalog copies, by commit)",
    "live": "AWS, fetched live",
    "cache": "AWS, fetched live earlier (cached)",
    "catalog": "hardware catalog bundled with tco",
    "default": "tco's default (see detail)",
    "scenario": "the scenario file",
    "measured": "published benchmark measurement",
}

DATES = {
    "undated": "no date given",
    "see detail": "in the detail",
}

# Research markers in catalog notes, as a reader should read them.
_MARKERS = [
    (re.compile(r"\bASSUMPTION\b:?\s*"), "Assumption: "),
    (re.compile(r"\bGUESS\b"), "estimate"),
    (re.compile(r"\bCONFLICT\b"), "sources disagree"),
    (re.compile(r"\bDERIVED\b"), "derived"),
    (re.compile(r"\bSTAND-IN\b"), "stand-in"),
    (re.compile(r"\s*-\s*verify against ([^.]*?) before use"), r" (to be checked against \1)"),
]


def plain_source(tag: str) -> str:
    return SOURCES.get(tag, tag)


def plain_date(as_of: str) -> str:
    return DATES.get(as_of, as_of)


def plain_detail(text: str) -> str:
    for pattern, words in _MARKERS:
        text = pattern.sub(words, text)
    return text


def dates(result: Result) -> pd.DataFrame:
    """One row per source of prices: its dates and how many figures it gave. A report holds
    prices of several dates (the AWS snapshot, the hardware catalog, the scenario's own); this
    says which is which."""
    by: dict[str, list[tuple[str, str]]] = {}  # source -> (date, option) of each figure
    for o in result.options:
        for q in o.quotes:
            by.setdefault(plain_source(q.source), []).append((plain_date(q.as_of), o.name))
    rows = [
        {
            "source": source,
            "as of": ", ".join(sorted({d for d, _ in figures})),
            "figures": len(figures),
            "used by": ", ".join(dict.fromkeys(name for _, name in figures)),
        }
        for source, figures in sorted(by.items())
    ]
    return pd.DataFrame(rows, columns=["source", "as of", "figures", "used by"])


MODES = {
    "snapshot": "the AWS prices bundled with tco only",
    "cache": "AWS prices fetched live earlier and cached on this machine",
    "live": "AWS prices fetched live for this run",
    "auto": "live AWS prices where the run could fetch them, else the AWS prices bundled with tco",
}


def mode(result: Result) -> str:
    """How the run chose its AWS prices, in a sentence."""
    p = result.price_provenance
    how = p.get("price_mode", "?")
    words = MODES.get(how.split(" ")[0], how)
    return (
        f"AWS prices: {words} (price mode {how}; the bundled prices are as of"
        f" {p.get('snapshot_as_of', '?')}). Prices written in the scenario file are used as given."
        " The table below gives each source's dates; every figure is in the prices table, with its"
        " source."
    )


def cloud_quotes(result: Result) -> Iterator[Quote]:
    """Every option's quoted cloud price (an instance-hour's)."""
    return (q for o in result.options for q in o.quotes if q.unit == "USD/h")


def cloud_sources(result: Result, words: Callable[[str], str], dated: str) -> list[str]:
    """Each source of cloud prices (in ``words``) with its date after ``dated`` (none for an
    undated one), sorted."""
    return sorted(
        {
            words(q.source) + ("" if q.as_of == "undated" else f"{dated}{q.as_of}")
            for q in cloud_quotes(result)
        }
    )


def price_sources(result: Result) -> list[str]:
    """Where the cloud prices came from and as of when."""
    sources = cloud_sources(result, plain_source, " as of ")
    if not sources:
        return []
    return [f"Cloud prices: {'; '.join(sources)}. Every price and its source is in summary.json."]
