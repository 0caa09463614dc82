"""Each team's bill (``simulator.engine.teams``) in the report's words: the recommendation's cost
by team, with what each team used and waited, and month by month."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from tco.reports import decision
from tco.reports.formatting import in_currency, json_num
from tco.reports.words import usd
from tco.simulator.costs.chargeback import CENTRAL
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.engine.teams import Bill, bill

RULES = {
    "by_use": "capacity no job used is charged by use, like the rest",
    "by_share": "capacity no job used is charged by each team's stated share",
    "central": "capacity no job used is charged to the central budget",
}


def billed(result: Result) -> tuple[OptionResult, Bill] | None:
    """The recommendation and its bill by team (None: no teams, or nothing recommended)."""
    name = decision.chosen(result)
    if name is None:
        return None
    o = result.option(name)
    b = bill(result, o)
    return None if b is None else (o, b)


def table(result: Result, o: OptionResult, b: Bill) -> pd.DataFrame:
    """One row per team (and the central budget where it is charged): GPU-hours used, p95
    delay, cost (the accounting view) and its share."""
    total = sum(b.usd(p) for p in b.parties)
    rows = []
    for k, p in enumerate(b.parties):
        if p == CENTRAL and b.usd(p) == 0:
            continue
        used = float(b.used_gpu_h[k].sum()) if p != CENTRAL else float("nan")
        rows.append(
            {
                "team": p,
                "GPU-hours used": round(used, 1),
                "p95 delay (h)": o.metrics.team_p95_delay_h.get(p, float("nan")),
                "cost (USD)": b.usd(p),
                "share of cost": round(b.usd(p) / total, 4) if total else float("nan"),
            }
        )
    return in_currency(pd.DataFrame(rows), result.scenario.money)


def by_option(result: Result) -> pd.DataFrame:
    """Each party's cost (rows) on each option (columns, USD), as the options are listed, and
    each team's p95 delay there (h): what a policy or an option costs each team in money and
    in waiting."""
    bills = [(o, bill(result, o)) for o in result.options]
    parties = next((b.parties for _, b in bills if b is not None), ())
    data: dict[str, Any] = {"team": list(parties)}
    for o, b in bills:
        if b is not None:
            data[f"{o.name} (USD)"] = [b.usd(p) for p in parties]
            delay = o.metrics.team_p95_delay_h
            data[f"{o.name} p95 delay (h)"] = [delay.get(p, math.nan) for p in parties]
    frame = pd.DataFrame(data)
    money = [c for c in frame.columns if str(c).endswith("(USD)")]
    spare = frame[money].abs().sum(axis=1) == 0  # central, where nothing is charged
    return in_currency(frame[~spare].reset_index(drop=True), result.scenario.money)


def line(result: Result) -> list[str]:
    """The recommendation's bill by team, in a sentence (none without teams)."""
    found = billed(result)
    if found is None:
        return []
    o, b = found
    cur = result.scenario.money
    parts = [f"{p} {usd(b.usd(p), cur)}" for p in b.parties if p != CENTRAL or b.usd(p)]
    return [
        f"Each team's bill on {o.name}: {', '.join(parts)} (the accounting view, by what each"
        f" team's jobs used: GPU-hours, at their instances' prices where those differ;"
        f" {RULES[b.idle]})."
    ]


def monthly(result: Result, b: Bill) -> pd.DataFrame:
    """Month by month, each party's cost (USD; the rows add up to the option's month)."""
    data: dict[str, Any] = {"month": list(result.months)}
    for p in b.parties:
        if p != CENTRAL or b.usd(p):
            data[f"{p} (USD)"] = b.monthly_usd(p)
    return in_currency(pd.DataFrame(data), result.scenario.money)


def sharing(result: Result) -> str:
    """How the teams share owned servers, in a sentence."""
    sh = result.scenario.sharing
    if sh.policy != "priority":
        return "Owned servers serve the teams first come, first served."
    return (
        f"Owned servers serve the teams by priority: {', then '.join(sh.order)} (sharing:"
        " priority; a running job is never stopped for a better-ranked one; by arrival within"
        " a team)."
    )


def words(result: Result, o: OptionResult, b: Bill) -> str:
    """What the bill is of, in a sentence."""
    return (
        sharing(result)
        + " "
        + (
            f"{o.name}'s cost over {result.scenario.horizon_months} months shared among its teams"
            " by what their jobs used each month (GPU-hours, at their instances' prices where a"
            " fleet's types differ; a hybrid's burst by GPU-hours with its servers), in the"
            f" accounting view (servers charged as they depreciate); {RULES[b.idle]}"
            " (chargeback.idle). Whole cents: each month's shares add up to the month's cost, and"
            " the months to the option's total."
        )
    )


def summary(result: Result, o: OptionResult) -> dict[str, Any]:
    """Each team's bill on the option and its p95 delay (none: no team is named)."""
    b = bill(result, o)
    if b is None:
        return {}
    return {
        "chargeback": {
            "basis": "accounting",
            "idle": b.idle,
            "parties": [
                {
                    "team": p,
                    "usd": b.usd(p),
                    "gpu_hours": json_num(float(b.used_gpu_h[k].sum()))
                    if k < len(b.used_gpu_h)
                    else None,
                    "p95_delay_h": json_num(o.metrics.team_p95_delay_h.get(p, math.nan)),
                    "monthly_usd": [float(c) / 100.0 for c in b.cents[k]],
                }
                for k, p in enumerate(b.parties)
            ],
        }
    }
