"""What the recommendation says, as records: each option's verdict against the service level,
the smallest owned cluster that would meet it, and the recommendation itself
(``advice.recommendation`` computes them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tco.simulator.scenario.service_level import Miss


@dataclass(frozen=True)
class Verdict:
    """Whether an option meets the level, and why not (each reason names measure and limit)."""

    option: str
    meets: bool
    reasons: tuple[Miss, ...]
    shortfall: float  # relative excess over the limits; 0 when met


@dataclass(frozen=True)
class Standing:
    """An option as the one rule judged it (``engine.verdicts``): over the futures when they
    were drawn (whether it met the level in enough job streams, its mean cash over the futures;
    ``streams``: the job streams it was played on, fewer when the race stopped it early, its
    mean then taken against the answer's on the streams they share), else on the base job
    stream alone."""

    meets: bool
    cash_usd: float
    share: float | None = None  # of job streams meeting the level
    streams: int = 1


@dataclass(frozen=True)
class Resize:
    """The smallest owned cluster that meets the level: ``servers`` bought at once, or (``knob``
    servers_added_per_tranche) added to every tranche of the scenario's plan."""

    option: str
    servers: int | None  # None: no size up to MAX_SERVERS_FACTOR x meets it
    cash_usd: float
    p95_wait_h: float
    knob: str = "servers"
    p95_delay_h: float = float("nan")


@dataclass(frozen=True)
class PortfolioPart:
    """One part of a mix: the option of the scenario it is, its kind, and its knobs set by the
    search (``role``: "base" takes the work first, "overflow" what waits too long)."""

    role: str
    option: str
    kind: str
    knobs: dict[str, Any]


@dataclass(frozen=True)
class MorePower:
    """What the portfolio search would buy with power to spare, where the site's power held its
    best mix at the most the site powers (``site:``): both on the base job stream, USD."""

    words: str  # the servers it would buy
    cash_usd: float  # its best with power to spare
    held_cash_usd: float  # the best the site's power holds
    # The kW its servers would draw beyond the site's power (0: what they lack is racks), what
    # building that power costs (USD, ``Site.build_cost``) with its source, and the months the
    # site says it takes (None: not said).
    more_kw: float = 0.0
    build_usd: float = 0.0
    build_source: str = ""
    build_months: int | None = None

    @property
    def net_usd(self) -> float:
        """What more power saves once built: positive, worth building."""
        return self.held_cash_usd - self.cash_usd - self.build_usd


@dataclass(frozen=True)
class Portfolio:
    """The cheapest mix of the scenario's options the search found (``advice.portfolio``).
    ``added``: simulated as an option of the result (under ``search: given`` it is only
    reported, with what it would have saved)."""

    option: str  # its name as an option of the result
    words: str
    parts: tuple[PortfolioPart, ...]
    wait_before_burst_h: float
    cash_usd: float
    npv_usd: float
    p95_delay_h: float
    meets: bool
    added: bool
    base_words: str = ""  # the base part alone in words (its servers), for a headline
    more_power: MorePower | None = None  # what more site power would save (None: it binds not)


@dataclass(frozen=True)
class OptionOdds:
    """One option over the futures of the odds (``sweep.odds``): USD over the horizon; shares
    with their standard errors over the futures' design (``sweep.design``)."""

    option: str
    probability_best: float  # share of futures where it is the best choice
    probability_best_se: float
    probability_meets_level: float  # share of job streams where it meets the level
    cash_p10_usd: float
    cash_p50_usd: float
    cash_p90_usd: float
    # Its cash minus the best choice's in each future; where it misses the level, with the
    # late work priced at the best choice's cost per delivered GPU-hour there (``sweep.odds``).
    regret_mean_usd: float
    regret_p90_usd: float
    probability_meets_level_se: float = 0.0
    cash_mean_usd: float = 0.0
    cash_mean_se_usd: float = 0.0
    streams: int = 0  # job streams it was played on (every one, for the answer and runner-up)


@dataclass(frozen=True)
class FrontierPoint:
    """What the rule picks at one confidence (a share of futures meeting the level): the
    cheapest candidate by mean cash over the futures among those played on every future that
    meet it at that confidence (None: none found)."""

    confidence: float
    option: str | None
    words: str
    cash_mean_usd: float | None
    probability_meets_level: float | None


@dataclass(frozen=True)
class Dropped:
    """A candidate the race stopped playing, and why (in words), after how many job streams."""

    candidate: str
    streams: int
    why: str


@dataclass(frozen=True)
class SearchAccount:
    """How the decision over futures was searched: plays used (candidate x job stream, and
    job-plays: jobs played in all), the budget, why it stopped, what was dropped and why."""

    candidates: int
    plays: int
    job_plays: int
    budget_job_plays: int
    stopped: str
    dropped: tuple[Dropped, ...] = ()
    ran_out: bool = False  # the budget stopped it: candidates were not decided
    unplayed: tuple[str, ...] = ()  # configurations its searches proposed after that


@dataclass(frozen=True)
class Odds:
    """How sure the recommendation is: ``chosen`` (the recommended option, or the closest) and
    the runner-up over ``futures`` futures (``streams`` job streams x ``money_draws`` money
    draws); how often each option played on every future is the best choice; the inputs drawn
    as (path, tco's own rather than the scenario's, where its range comes from); the frontier of
    cost against the chance of meeting the level; how the search spent its plays."""

    futures: int
    chosen: OptionOdds
    runner_up: OptionOdds | None
    best_shares: dict[str, float]
    inputs: tuple[tuple[str, bool, str], ...]
    replaced: str | None = None  # the base job stream's choice, when the futures chose another
    replaced_meets: float | None = None  # its share of the job streams meeting the level
    replaced_streams: int = 0  # the job streams it was played on
    replaced_cash_mean_usd: float | None = None  # its mean cash over the futures
    streams: int = 0
    money_draws: int = 0
    confidence: float = 0.9
    frontier: tuple[FrontierPoint, ...] = ()
    search: SearchAccount | None = None
    # Each candidate played on every future: its cash's P10, P50 and P90 (USD over the horizon),
    # e.g. a commitment's narrower than on demand's when rental prices take paths.
    spreads: dict[str, tuple[float, float, float]] = field(default_factory=dict)


@dataclass(frozen=True)
class Recommendation:
    option: str | None  # None: no option meets the level
    cash_usd: float | None
    npv_usd: float | None
    reason: str
    closest: str | None
    resizes: tuple[Resize, ...]
    portfolio: Portfolio | None = None  # the best mix the search found (None: none searched)
    evaluations: int = 0  # configurations the portfolio search played
    runner_up: str | None = None  # the cheapest option as listed that meets the level
    odds: Odds | None = None  # how sure (None: not computed, e.g. odds: {futures: 0})


@dataclass(frozen=True)
class BreakEvenVolume:
    """Owning and renting cost the same at ``scale`` x the scenario's work."""

    owned: str
    rented: str
    scale: float | None  # None: not equal anywhere in (0, MAX_SCALE]
    utilisation: float | None  # the owned cluster's busy / available GPU-hours there
    gpu_hours_per_month: float | None  # reference GPU-hours of work a month there
    note: str  # why there is no such volume (empty when there is)


@dataclass(frozen=True)
class WhatIf:
    """The answer when ``input`` is changed by ``change`` (a fraction of its value; months for
    lead time; "market": resale on the used-market curve): the recommendation and, regardless
    of the level, the cheapest option."""

    input: str
    change: float | str  # a number, or "market" for resale on the used-market curve
    recommended: str | None
    recommended_cash_usd: float | None
    flips: bool  # the recommendation differs from today's
    cheapest: str
    gap_usd: float  # the runner-up's cash minus the cheapest's


@dataclass(frozen=True)
class FlipPoint:
    """Changing ``input`` by ``change`` (same unit as the what-if) turns the recommendation to
    ``to``; by less it does not (to ``within`` of the what-if's change)."""

    input: str
    change: float
    to: str | None
    within: float = 1 / 16  # found to within this share of the what-if's change


@dataclass(frozen=True)
class Considered:
    """An option the search proposed from the catalog (``candidates:``): its name, it in words,
    a lower bound on its cash over the horizon (USD: what no play of it can cost less than),
    and why it was dropped before it was played ('' when it was played beside the options
    listed)."""

    option: str
    words: str
    bound_usd: float
    dropped: str = ""
