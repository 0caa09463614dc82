"""Chargeback: an option's cost shared among the teams whose jobs ran on it, month by month, to
the cent (issue 57, item 3); and the scenario's ``chargeback:`` section.

Each month's cost (the accounting view: what is expensed that month, so servers are charged as
they depreciate, not in the month they are paid for) is split by what each team's jobs used that
month: their GPU-hours, or where GPU-hours differ in price (a fleet of instance types) their
jobs' own cost. Capacity no job used (an owned cluster's idle GPU-hours) is charged by a
stated rule: ``by_use`` (in proportion to what each team used, the whole cost by use),
``by_share`` (by each team's stated share: what a team's guaranteed quota costs whether it
uses it or not) or ``central`` (to a central budget). A month nobody used is charged by the
shares when they are given, else to the central budget. Amounts are whole cents, and each
month's cents add up to the month's total exactly (largest remainder: each party floors its
share, and the cents left go to the largest fractions, ties to the first party).
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import Field, model_validator

from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Name, Strict
from tco.simulator.workload.spec import valid_teams

IdleRule = Literal["by_use", "by_share", "central"]
CENTRAL = "central"  # the budget idle capacity (or an unused month) is charged to


class ChargebackSpec(Strict):
    """The scenario's ``chargeback:`` section: how idle capacity is charged, and each team's
    share (required by ``by_share``; they add up to 1)."""

    idle: IdleRule = "by_use"
    shares: dict[Name, Annotated[float, Field(ge=0, le=1)]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _shares_add_up(self) -> ChargebackSpec:
        if self.idle == "by_share" and not self.shares:
            raise ValueError("idle: by_share needs shares: {team: share, ...} adding up to 1")
        if self.shares and abs(sum(self.shares.values()) - 1.0) > 1e-9:
            total = sum(self.shares.values())
            raise ValueError(f"shares add up to {total:g}: they must add up to 1")
        return self


def check_shares(spec: ChargebackSpec, teams: tuple[str, ...], file: str) -> None:
    """Shares, when given, are the workload's teams, every one of them."""
    if not spec.shares:
        return
    named, wanted = set(spec.shares), set(teams)
    if named != wanted:
        odd = sorted(named - wanted) or sorted(wanted - named)
        raise ScenarioError(
            file,
            "chargeback.shares",
            f"{'no team' if named - wanted else 'no share for'} {', '.join(odd)}; the teams"
            f" named on job classes, runs and the trace: {valid_teams(teams)}",
        )


def running_cents(usd: np.ndarray) -> np.ndarray:
    """Each month's USD in whole cents such that they add up to the rounded total: each the
    difference of the rounded running sums (rounding each alone drifts a cent a month)."""
    cents = np.round(np.cumsum(np.asarray(usd, dtype=np.float64)) * 100.0)
    return np.asarray(np.diff(cents, prepend=0.0), dtype=np.int64)


def split_cents(cents: int, weights: np.ndarray) -> np.ndarray:
    """``cents`` split by ``weights`` (non-negative, not all zero): each floors its share, the
    cents left go to the largest remainders (ties to the first)."""
    w = np.asarray(weights, dtype=np.float64)
    exact = cents * w / w.sum()
    out: np.ndarray = np.floor(exact).astype(np.int64)
    left = cents - int(out.sum())
    order = np.argsort(-(exact - out), kind="stable")
    out[order[:left]] += 1
    return out


def allocate(
    total_usd: np.ndarray,
    used_gpu_h: np.ndarray,
    paid_gpu_h: np.ndarray,
    idle: IdleRule,
    shares: np.ndarray | None,
    worth: np.ndarray | None = None,
) -> np.ndarray:
    """Cents by party (the teams in ``used_gpu_h``'s rows, then the central budget) and month.
    ``total_usd``: the option's cost by month; ``used_gpu_h``: GPU-hours each team's jobs held
    by month (teams x months); ``paid_gpu_h``: the GPU-hours the option had or billed by month
    (their excess over the teams' use is idle); ``shares``: each team's stated share (None:
    none stated); ``worth``: what each team's use is worth by month where GPU-hours differ in
    price (a fleet's instance types; None: a GPU-hour is a GPU-hour), which splits the part of
    the month that was used."""
    teams, months = used_gpu_h.shape
    worth = used_gpu_h if worth is None else worth
    out = np.zeros((teams + 1, months), dtype=np.int64)
    month_cents = running_cents(total_usd)
    for m in range(months):
        busy = float(used_gpu_h[:, m].sum())
        capacity = max(float(paid_gpu_h[m]), busy)
        weights = np.zeros(teams + 1)
        value = worth[:, m]
        if busy <= 0 or value.sum() <= 0:  # nobody used it: the shares, else central
            if shares is not None:
                weights[:teams] = shares
            else:
                weights[teams] = 1.0
        else:
            used = busy / capacity if idle != "by_use" else 1.0
            weights[:teams] = used * value / value.sum()
            if used < 1.0 and idle == "by_share" and shares is not None:
                weights[:teams] += (1.0 - used) * shares
            elif used < 1.0:
                weights[teams] = 1.0 - used
        if month_cents[m] != 0:
            out[:, m] = split_cents(int(month_cents[m]), weights)
    return out
