"""Teams sharing an option (issue 57): each team's bill, month by month, to the cent
(``costs.chargeback``), from the GPU-hours its jobs held on the option and, where the option
says what each job cost where it ran (``OptionResult.places``: a fleet's instance types differ
in price), what those hours were worth."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.simulator.core.calendar import month_edges_h
from tco.simulator.costs.chargeback import CENTRAL, IdleRule, allocate
from tco.simulator.engine.result import OptionResult, Result


@dataclass(frozen=True)
class Bill:
    """An option's cost by team: ``parties`` the teams then the central budget, ``cents`` by
    party and month (whole cents: each month adds up to the option's), the GPU-hours each team
    held by month, and the rule idle capacity was charged by. The cost is the accounting view
    (servers as they depreciate)."""

    parties: tuple[str, ...]
    cents: np.ndarray
    used_gpu_h: np.ndarray
    idle: IdleRule

    def usd(self, party: str) -> float:
        """A party's total, USD."""
        return int(self.cents[self.parties.index(party)].sum()) / 100.0

    def monthly_usd(self, party: str) -> np.ndarray:
        return np.asarray(self.cents[self.parties.index(party)] / 100.0)


def bill(result: Result, o: OptionResult) -> Bill | None:
    """``o``'s cost shared among the scenario's teams (None: no team is named)."""
    teams, team = result.jobs.team_of_jobs()
    if not teams:
        return None
    sc = result.scenario
    edges = month_edges_h(sc.start, sc.horizon_months)
    runs = o.runs
    n = len(teams)
    group = np.where(team < 0, n, team)  # jobs of no team: a group of their own, left out
    used = runs.held_monthly(group, n + 1, runs.gpus.astype(np.float64), edges)[:n]
    worth = None
    places = o.places
    if places is not None:  # what each job cost where it ran, over the hours it ran
        span = np.where(np.isnan(runs.start_h), 0.0, runs.end_h - runs.start_h)
        rate = np.divide(places.usd, span, out=np.zeros(len(span)), where=span > 0)
        worth = runs.held_monthly(group, n + 1, rate, edges)[:n]
    spec = sc.chargeback
    shares = np.array([spec.shares[t] for t in teams]) if spec.shares else None
    total = o.ledger.accounting_total()
    cents = allocate(total, used, o.ledger.gpu_hours_paid, spec.idle, shares, worth)
    return Bill((*teams, CENTRAL), cents, used, spec.idle)
