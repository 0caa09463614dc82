"""The carbon of each option in the report's words (``simulator.costs.carbon``): a table of
tCO2e per option, the grids, PUEs and embodied figures it rests on with their sources, and the
sentence the terminal and the answer give."""

from __future__ import annotations

from typing import Any

import pandas as pd

from tco.pricing import carbon as carbon_data
from tco.pricing.carbon import GridFactor, Pue
from tco.reports import decision
from tco.reports.formatting import in_currency, json_num, json_usd
from tco.reports.words import usd
from tco.simulator.costs.carbon import SITE, Footprint
from tco.simulator.engine.result import OptionResult, Result


def _footprints(result: Result) -> list[tuple[OptionResult, Footprint]]:
    return [(o, o.ledger.footprint) for o in result.options if o.ledger.footprint is not None]


def priced_usd(o: OptionResult) -> float | None:
    """What the scenario's carbon price adds to the option's cash, USD (None: not priced)."""
    cash = o.ledger.cash
    return float(cash["carbon"].sum()) if "carbon" in cash else None


def _where(where: str) -> str:
    return "the site" if where == SITE else where


def _grid_words(where: str, g: GridFactor) -> str:
    guess = ", a guess" if g.confidence == "low" else ""
    return f"{_where(where)} {g.g_per_kwh:,.0f} g/kWh ({g.location}{guess})"


def table(result: Result) -> pd.DataFrame:
    """One row per option: tCO2e in all, in running and embodied, per delivered GPU-hour, where
    its power is drawn, and what a carbon price adds to its cash (when the scenario gives one)."""
    rows = []
    priced = (c := result.scenario.carbon) is not None and c.price_usd_per_t is not None
    for o, fp in _footprints(result):
        row = {
            "option": o.name,
            "tCO2e": round(fp.total_t, 2),
            "in running (t)": round(float(fp.operational_t.sum()), 2),
            "embodied (t)": round(float(fp.embodied_t.sum()), 2),
            "kgCO2e per delivered GPU-hour": round(o.carbon_kg_per_ref_gpu_hour, 3),
            "facility MWh": round(float(fp.facility_kwh.sum()) / 1e3, 1),
            "grid and PUE": "; ".join(
                f"{_grid_words(p.where, p.grid)}, PUE {p.pue.value:g}"
                for p in fp.places
                if p.operational_t > 0 or len(fp.places) == 1
            ),
        }
        if priced:
            row["carbon price (USD)"] = priced_usd(o) or 0.0
        rows.append(row)
    frame = pd.DataFrame(rows).sort_values("tCO2e", kind="stable").reset_index(drop=True)
    return in_currency(frame, result.scenario.money)


def sources(result: Result) -> pd.DataFrame:
    """Every grid figure and PUE the options' carbon uses, and the embodied coefficients, with
    where each comes from, as of when, and how sure."""
    grids: dict[tuple[str, float], GridFactor] = {}
    pues: dict[tuple[str, float], Pue] = {}
    for _, fp in _footprints(result):
        for p in fp.places:
            grids.setdefault((p.where, p.grid.g_per_kwh), p.grid)
            pues.setdefault((_where(p.where.split(":")[0]), p.pue.value), p.pue)
    rows = [
        {
            "figure": f"grid at {_where(where)} ({g.location})",
            "value": f"{g.g_per_kwh:,.2f} gCO2e/kWh",
            "source": g.source,
            "as of": g.as_of,
            "confidence": g.confidence,
            "note": g.note,
        }
        for (where, _), g in sorted(grids.items())
    ]
    rows += [
        {
            "figure": f"PUE at {at}",
            "value": f"{p.value:g}",
            "source": p.source,
            "as of": "",
            "confidence": p.confidence,
            "note": "",
        }
        for (at, _), p in sorted(pues.items())
    ]
    rows.append(
        {
            "figure": "embodied carbon",
            "value": f"{carbon_data.EMBODIED_KG_PER_SERVER:,.0f} kg a server +"
            f" {carbon_data.EMBODIED_KG_PER_GPU:,.0f} a GPU, over"
            f" {carbon_data.EMBODIED_LIFE_YEARS:g} years",
            "source": carbon_data.EMBODIED_SOURCE,
            "as of": "",
            "confidence": "low",
            "note": "a share per hour each server is held (owned in service, rented billed)",
        }
    )
    return pd.DataFrame(rows)


def lines(result: Result) -> list[str]:
    """The recommendation's carbon and the lowest option's, in one sentence (none without a
    footprint)."""
    found = {o.name: (o, fp) for o, fp in _footprints(result)}
    name = decision.chosen(result)
    if name not in found:
        return []
    o, fp = found[name]
    months = result.scenario.horizon_months
    text = (
        f"Carbon: {name} {fp.total_t:,.1f} tCO2e over {months} months"
        f" ({o.carbon_kg_per_ref_gpu_hour:.2f} kg per delivered GPU-hour;"
        f" {float(fp.operational_t.sum()):,.1f} t in running, {float(fp.embodied_t.sum()):,.1f}"
        " embodied)"
    )
    low_name, (_, low) = min(found.items(), key=lambda kv: (kv[1][1].total_t, kv[0]))
    if low_name != name:
        text += f"; the lowest, {low_name}, {low.total_t:,.1f} t"
    if fp.rests_on_guess():
        text += "; its grid or PUE is a guess (carbon: in the scenario, or the report's sources)"
    return [text + "."]


def price_line(result: Result) -> list[str]:
    """The carbon price in cash, for the first lines, when the scenario gives one: the money
    rests on it (its source said)."""
    c = result.scenario.carbon
    name = decision.chosen(result)
    if c is None or c.price_usd_per_t is None or name is None:
        return []
    o = result.option(name)
    cur = result.scenario.money
    paid = priced_usd(o) or 0.0
    return [
        f"Carbon priced at {usd(c.price_usd_per_t, cur)} a tonne ({c.price_source}):"
        f" {usd(paid, cur)} of {name}'s cash, counted like any cost."
    ]


def summary(o: OptionResult) -> dict[str, Any]:
    """The option's carbon (``costs.carbon``) and where each figure comes from."""
    fp = o.ledger.footprint
    assert fp is not None
    return {
        "total_t": json_num(fp.total_t),
        "operational_t": json_num(float(fp.operational_t.sum())),
        "embodied_t": json_num(float(fp.embodied_t.sum())),
        "facility_kwh": json_num(float(fp.facility_kwh.sum())),
        "kg_per_delivered_reference_gpu_hour": json_num(o.carbon_kg_per_ref_gpu_hour),
        "priced_usd": None if (paid := priced_usd(o)) is None else json_usd(paid),
        "rests_on_a_guess": fp.rests_on_guess(),
        "embodied_source": carbon_data.EMBODIED_SOURCE,
        "places": [
            {
                "where": p.where,
                "operational_t": json_num(p.operational_t),
                "g_co2e_per_kwh": p.grid.g_per_kwh,
                "grid": p.grid.location,
                "grid_source": p.grid.source,
                "grid_as_of": p.grid.as_of,
                "grid_confidence": p.grid.confidence,
                "grid_note": p.grid.note,
                "pue": p.pue.value,
                "pue_source": p.pue.source,
                "pue_confidence": p.pue.confidence,
            }
            for p in fp.places
        ],
    }
