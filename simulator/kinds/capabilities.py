"""What a kind can do beyond play and price, as named capabilities a kind declares and the
registry lists (``registry.capabilities``; ``tco catalog kinds``), each with why a kind cannot
where that is worth saying (as SkyPilot's clouds list their unsupported features with a reason).

A capability is one or more of the optional hooks of ``registry.Kind``: a kind declares it in
``Kind.can_do`` exactly when it implements its hooks (``tests/house/test_architecture.py`` checks
both ways), and the advice asks ``kind.can(...)`` before it calls one, so a kind that cannot is
never asked and never answers with a silent nothing. Every other hook a kind is asked is
required (abstract in ``registry.Kind``): what it rents from, runs on, buys, sells on which
basis, rests on, is unsure of and says about its run, each stated by every kind, if only as
"nothing", with its reason in the method's docstring.
"""

from __future__ import annotations

import enum


class Can(enum.Enum):
    """A capability: its name, the ``Kind`` hook that implements it, and what it means."""

    SEARCH = ("search", "search", "tco optimize turns its knobs")
    SIZE = ("size", "size size_words", "has a size the searches grow until it meets the level")
    COMPOSE = ("compose", "compose", "makes one option of a mix of two (owned + burst)")
    SELL = ("sell", "sale", "sells hardware back: at the horizon, at a refresh")
    FIT = ("fit", "fit_to_usage", "fits a knob to the usage it got (a commitment)")
    WHAT_IFS = ("what_ifs", "what_ifs", "has inputs the what-ifs change")
    UNIT_PRICES = ("unit_prices", "unit_prices", "exposes its prices as spreadsheet inputs")
    PROPOSE = ("propose", "propose", "proposes options from the catalog (candidates:)")
    EXISTING = ("existing_servers", "existing_servers", "runs servers the site already owns")
    FINISH = ("finish", "to_finish", "prices the work unfinished at the horizon job by job")
    PLACES = ("places", "job_places", "says where each job ran and what it cost there (jobs.csv)")
    TABLES = ("tables", "report_tables", "adds tables of its own to its section of the reports")

    def __init__(self, word: str, hooks: str, meaning: str) -> None:
        self.word = word
        self.hooks = tuple(hooks.split())  # the Kind methods that implement it, all of them
        self.meaning = meaning


NOT_DECLARED = "not declared by this kind"
