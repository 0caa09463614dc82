"""A scenario ready to simulate (:class:`Prepared`) and the random streams of its options.

Random streams: jobs come from the scenario seed (``workload.arrivals``); an option's play gets
:func:`option_rng`, keyed by the option's name and a purpose, so adding or reordering options
never changes another option's random numbers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np

from tco.simulator.kinds.plan import Plan
from tco.simulator.scenario.model import Scenario
from tco.simulator.workload import merge as workload
from tco.simulator.workload.jobs import FairTerms, Jobs
from tco.simulator.workload.replayed import ReadTrace


def _key(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


def option_rng(seed: int, option: str, purpose: str) -> np.random.Generator:
    """An independent random stream for one option and one purpose (e.g. "play"): a child of
    the seed's SeedSequence whose spawn key is derived from the names, not from positions."""
    return np.random.default_rng(
        np.random.SeedSequence(seed, spawn_key=(_key(option), _key(purpose)))
    )


@dataclass(frozen=True, kw_only=True)
class Prepared:
    """A scenario ready to simulate: plans with their prices, the job stream, provenance.

    Picklable and free of I/O handles, so it can be sent to worker processes.
    """

    scenario: Scenario
    file: str
    sha256: str
    version: str
    months: tuple[str, ...]
    edges: np.ndarray  # month boundaries, hours from the start
    plans: tuple[Plan, ...]
    trace: ReadTrace | None
    jobs: Jobs
    price_provenance: dict[str, str]
    price_warnings: tuple[str, ...]

    @property
    def horizon_h(self) -> float:
        return float(self.edges[-1])

    def with_seed(self, seed: int) -> Prepared:
        """The same model with the job stream drawn from another seed (the trace is not read
        again)."""
        if seed == self.scenario.seed:
            return self
        sc = self.scenario.model_copy(update={"seed": seed})
        return replace(self, scenario=sc, jobs=draw_jobs(sc, self.trace))


def draw_jobs(scenario: Scenario, trace: ReadTrace | None) -> Jobs:
    """The job stream of a scenario (``trace``: its trace, already read), with each class's
    rank in an owned queue where the teams share it by priority (``sharing:``)."""
    jobs = workload.generate(
        scenario.workload,
        scenario.seed,
        scenario.start,
        scenario.horizon_months,
        trace,
        scenario.speed,
    )
    sharing = scenario.sharing
    ranks = sharing.ranks(scenario.workload.class_teams)
    if ranks:
        return replace(jobs, class_priority=ranks)
    if sharing.policy == "fair_share":
        teams, _ = jobs.team_of_jobs()
        shares = tuple(sharing.shares[t] for t in teams)
        return replace(jobs, fair_terms=FairTerms(shares, sharing.half_life_days * 24.0))
    return jobs
