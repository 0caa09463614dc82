"""``summary.json``: the versioned, documented result format other tools can read.

Schema: ``simulator/summary.schema.json`` (JSON Schema draft 2020-12), identified by
``SCHEMA_ID``. A change that removes or renames a field bumps the major number. Money is in USD
rounded to cents, hours and fractions to 4 decimals; NaN becomes null. Nothing in it depends on
the clock or the machine, so the same scenario and seed give the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from tco.reports import carbon, chargeback
from tco.reports.formatting import json_num, json_usd
from tco.simulator.advice import sensitivity, what_if
from tco.simulator.core.atomic import write_text
from tco.simulator.costs import ledger
from tco.simulator.engine.findings import Odds, OptionOdds, Portfolio
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.kinds import registry
from tco.simulator.kinds.runs import Measure, declared_measures

SCHEMA_ID = "tco-summary/1"


_usd, _num = json_usd, json_num


def _series(values: np.ndarray | None, fmt: Any) -> list[float | None] | None:
    return None if values is None else [fmt(v) for v in values.tolist()]


def _option(o: OptionResult, result: Result) -> dict[str, Any]:
    led = o.ledger
    months, v = result.months, result.verdicts[o.name]
    return {
        "name": o.name,
        "kind": o.kind,
        "description": o.description,
        "totals_usd": {
            "cash": _usd(o.total_cash_usd),
            "accounting": _usd(o.total_accounting_usd),
            "npv_cash": _usd(o.npv_usd),
            **_taxed(o),
        },
        "usd_per_delivered_reference_gpu_hour": _usd(o.usd_per_ref_gpu_hour),
        "gpu_utilisation": _num(o.gpu_utilisation),
        "paid_gpu_hours": _num(o.metrics.paid_gpu_hours),
        "busy_gpu_hours": _num(o.metrics.busy_gpu_hours),
        # Every declared measure, for every option (kinds declare them: ``runs.Measure``).
        **{m.name: _measure(m, o.metrics.measures[m.name]) for m in declared_measures()},
        "reference_gpu_hours": {k: _num(v) for k, v in asdict(o.work).items()},
        "waits_h": {
            k: (_num(v) if isinstance(v, float) else v) for k, v in asdict(o.waits).items()
        },
        "delays_h": {
            k: (_num(v) if isinstance(v, float) else v) for k, v in asdict(o.metrics.delays).items()
        },
        "p95_delay_by_class_h": {k: _num(v) for k, v in o.metrics.class_p95_delay_h.items()},
        "jobs": {
            "completed": o.jobs_completed,
            "running_at_horizon": o.jobs_running_at_horizon,
            "queued_at_horizon": o.jobs_queued_at_horizon,
            "cannot_run": [
                {"reason": r, "jobs": n, "examples": o.cannot_run_examples[r]}
                for r, n in o.cannot_run.items()
            ],
        },
        "break_even_month": {
            other: (None if m is None else {"month": m, "label": months[m - 1]})
            for other, m in o.break_even.items()
        },
        "meets_service_level": v.meets,  # the flat name; the reasons are beside it
        "service_level": {"meets": v.meets, "misses": list(v.reasons)},
        "prices": [asdict(q) for q in o.quotes],
        "notes_usd": {k: _usd(v) for k, v in led.notes.items()},
        **({"carbon": carbon.summary(o)} if led.footprint is not None else {}),
        **chargeback.summary(result, o),
        "monthly": {
            "cash_usd": {k: _series(v, _usd) for k, v in led.cash.items()},
            "accounting_usd": {k: _series(v, _usd) for k, v in led.accounting.items()},
            **({"tax_usd": {k: _series(v, _usd) for k, v in led.tax.items()}} if led.tax else {}),
            "gpu_hours_paid": _series(led.gpu_hours_paid, _num),
            "gpu_hours_busy": _series(led.gpu_hours_busy, _num),
            "gpu_utilisation": _series(led.gpu_utilisation, _num),
            **{s.name: _series(led.series.get(s.name), _num) for s in ledger.series()},
            **(
                {"carbon_t": _series(led.footprint.monthly_t, _num)}
                if led.footprint is not None
                else {}
            ),
        },
    }


def _taxed(o: OptionResult) -> dict[str, Any]:
    """Cash and NPV before and after income tax, when the scenario has a tax: section."""
    t = o.metrics.tax
    if t is None:
        return {}
    return {
        "cash_before_tax": _usd(t.before_usd),
        "cash_after_tax": _usd(t.after_usd),
        "npv_before_tax": _usd(t.npv_before_usd),
        "npv_after_tax": _usd(t.npv_after_usd),
        "tax_saved": _usd(t.saved_usd),
        "decided_after_tax": t.after_tax,
    }


def _measure(m: Measure, value: float) -> float | int | None:
    return int(value) if m.integer else _num(value)


def _recommendation(result: Result) -> dict[str, Any]:
    rec = result.recommendation
    return {
        "option": rec.option,
        "cash_usd": None if rec.cash_usd is None else _usd(rec.cash_usd),
        "npv_usd": None if rec.npv_usd is None else _usd(rec.npv_usd),
        "reason": rec.reason,
        "closest": rec.closest,
        "resizes": [
            {
                "option": z.option,
                "servers": z.servers,
                "knob": z.knob,
                "cash_usd": _usd(z.cash_usd),
                "p95_wait_h": _num(z.p95_wait_h),
                "p95_delay_h": _num(z.p95_delay_h),
            }
            for z in rec.resizes
        ],
        "portfolio": _portfolio(rec.portfolio),
        "evaluations": rec.evaluations,
        "runner_up": rec.runner_up,
        "odds": _odds(rec.odds),
    }


def _option_odds(o: OptionOdds) -> dict[str, Any]:
    return {
        "option": o.option,
        "probability_best": round(o.probability_best, 6),
        "probability_best_se": round(o.probability_best_se, 6),
        "probability_meets_level": round(o.probability_meets_level, 6),
        "probability_meets_level_se": round(o.probability_meets_level_se, 6),
        "cash_mean_usd": _usd(o.cash_mean_usd),
        "cash_mean_se_usd": _usd(o.cash_mean_se_usd),
        "cash_p10_usd": _usd(o.cash_p10_usd),
        "cash_p50_usd": _usd(o.cash_p50_usd),
        "cash_p90_usd": _usd(o.cash_p90_usd),
        "regret_mean_usd": _usd(o.regret_mean_usd),
        "regret_p90_usd": _usd(o.regret_p90_usd),
        "streams": o.streams,
    }


def _odds(odds: Odds | None) -> dict[str, Any] | None:
    if odds is None:
        return None
    search = odds.search
    return {
        "futures": odds.futures,
        "streams": odds.streams,
        "money_draws": odds.money_draws,
        "confidence": odds.confidence,
        **_option_odds(odds.chosen),
        "runner_up": None if odds.runner_up is None else _option_odds(odds.runner_up),
        "replaced": odds.replaced,
        "replaced_meets_level": None
        if odds.replaced_meets is None
        else round(odds.replaced_meets, 6),
        "replaced_streams": odds.replaced_streams,
        "replaced_cash_mean_usd": None
        if odds.replaced_cash_mean_usd is None
        else _usd(odds.replaced_cash_mean_usd),
        "best_shares": {k: round(v, 6) for k, v in odds.best_shares.items()},
        "cash_spreads_usd": {
            k: {"p10": _usd(a), "p50": _usd(b), "p90": _usd(c)}
            for k, (a, b, c) in odds.spreads.items()
        },
        "inputs": [
            {"path": path, "known": known, "source": source} for path, known, source in odds.inputs
        ],
        "frontier": [
            {
                "confidence": f.confidence,
                "option": f.option,
                "words": f.words,
                "cash_mean_usd": None if f.cash_mean_usd is None else _usd(f.cash_mean_usd),
                "probability_meets_level": None
                if f.probability_meets_level is None
                else round(f.probability_meets_level, 6),
            }
            for f in odds.frontier
        ],
        "search": None
        if search is None
        else {
            "candidates": search.candidates,
            "plays": search.plays,
            "job_plays": search.job_plays,
            "budget_job_plays": search.budget_job_plays,
            "stopped": search.stopped,
            "dropped": [
                {"candidate": d.candidate, "streams": d.streams, "why": d.why}
                for d in search.dropped
            ],
            "budget_ran_out": search.ran_out,
            "unplayed": list(search.unplayed),
        },
    }


def _portfolio(mix: Portfolio | None) -> dict[str, Any] | None:
    if mix is None:
        return None
    return {
        "option": mix.option,
        "words": mix.words,
        "added": mix.added,
        "meets_service_level": mix.meets,
        "wait_before_burst_h": _num(mix.wait_before_burst_h),
        "cash_usd": _usd(mix.cash_usd),
        "npv_usd": _usd(mix.npv_usd),
        "p95_delay_h": _num(mix.p95_delay_h),
        "parts": [
            {"role": p.role, "option": p.option, "kind": p.kind, "knobs": dict(p.knobs)}
            for p in mix.parts
        ],
        **_more_power(mix),
    }


def _more_power(mix: Portfolio) -> dict[str, Any]:
    """With a site whose power held the search: what it would buy with power to spare."""
    m = mix.more_power
    if m is None:
        return {}
    held = {
        "words": m.words,
        "cash_usd": _usd(m.cash_usd),
        "held_cash_usd": _usd(m.held_cash_usd),
        "more_kw": _num(m.more_kw),
        "build_usd": _usd(m.build_usd),
        "build_source": m.build_source,
        "build_months": m.build_months,
        "net_usd": _usd(m.net_usd),
    }
    return {"with_more_power": held}


def to_summary(result: Result) -> dict[str, Any]:
    """The summary.json document of a result."""
    sc = result.scenario
    cheapest = result.cheapest()
    return {
        "schema": SCHEMA_ID,
        "tco_version": result.version,
        "scenario": {
            "name": sc.name,
            "file": result.scenario_file,
            "sha256": result.scenario_sha256,
            "seed": sc.seed,
            "start": sc.start,
            "horizon_months": sc.horizon_months,
            "region": sc.region,
            # of every money figure here; reports convert (simulator/costs/money.py)
            "currency": "USD",
            "reporting_currency": asdict(sc.money),
            "discount_rate": sc.discount_rate,
            "input": sc.model_dump(mode="json"),
            # What the scenario's file (and the command line) said, defaults left out:
            # ``tco compare`` lists changes of these, not of every default a version fills in.
            "written": sc.model_dump(mode="json", exclude_unset=True),
        },
        "price_provenance": result.price_provenance,
        "price_warnings": list(result.price_warnings),
        "months": list(result.months),
        "jobs": len(result.jobs),
        "workload_notes": list(result.jobs.notes),
        "cheapest_option": cheapest.name,
        "service_level": sc.service_level.model_dump(mode="json"),
        "recommendation": _recommendation(result),
        # The catalog's candidates (candidates:): played beside the listed options, or dropped.
        "candidates": [asdict(c) for c in result.candidates],
        **_advice(result),
        "options": [_option(o, result) for o in result.options],
    }


def _advice(result: Result) -> dict[str, Any]:
    """Break-even volumes, sensitivity (prices, then the what-ifs by name), what-ifs, flips."""
    return {
        "break_even_volumes": [
            {
                "buy_option": v.owned,
                "rent_option": v.rented,
                "workload_scale": None if v.scale is None else _num(v.scale),
                "owned_utilisation": None if v.utilisation is None else _num(v.utilisation),
                "reference_gpu_hours_per_month": None
                if v.gpu_hours_per_month is None
                else _num(v.gpu_hours_per_month),
                "note": v.note,
            }
            for v in result.break_even_volumes
        ],
        "sensitivity": [
            {
                "group": s.group,
                "change": s.change,
                "cheapest": s.cheapest,
                "gap_usd": _usd(s.gap_usd),
            }
            for s in sensitivity.swings(result)
        ]
        + [
            {
                "group": w.input,
                "change": _change(w.change),
                "cheapest": w.cheapest,
                "gap_usd": _usd(w.gap_usd),
            }
            for w in result.what_ifs
        ],
        "what_ifs": [
            {
                "input": w.input,
                "change": _change(w.change),
                "unit": _unit(w.input, w.change),
                "recommended": w.recommended,
                "recommended_cash_usd": None
                if w.recommended_cash_usd is None
                else _usd(w.recommended_cash_usd),
                "changes_recommendation": w.flips,
            }
            for w in result.what_ifs
        ],
        "flip_points": [
            {
                "input": f.input,
                "change": _num(f.change),
                "unit": _unit(f.input, f.change),
                "to": f.to,
                "within": f.within,
            }
            for f in result.flip_points
        ],
    }


def _change(change: float | str) -> float | str | None:
    return change if isinstance(change, str) else _num(change)


def _unit(name: str, change: float | str) -> str:
    return "value basis" if isinstance(change, str) else what_if.unit(name) or "fraction"


def dumps(result: Result) -> str:
    """summary.json text: stable key order, two-space indent, trailing newline."""
    return json.dumps(to_summary(result), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write(result: Result, path: str | Path) -> Path:
    """Write summary.json (atomically: a partial file is never left behind)."""
    return write_text(Path(path), dumps(result))


def schema() -> dict[str, Any]:
    """The JSON Schema of summary.json."""
    text = (
        resources.files("tco.reports").joinpath("summary.schema.json").read_text(encoding="utf-8")
    )
    data: dict[str, Any] = json.loads(text)
    # The file leaves the kinds and the ratio series open: they are whatever is registered.
    option = data["$defs"]["option"]["properties"]
    option["kind"] = {"enum": list(registry.names())}
    monthly = option["monthly"]
    for s in ledger.series():
        monthly["properties"][s.name] = {"$ref": "#/$defs/series"}
        monthly["required"].append(s.name)
    # The measures the kinds declare, on every option.
    at = data["$defs"]["option"]
    for m in declared_measures():
        kind = {"type": "integer", "minimum": 0} if m.integer else {"$ref": "#/$defs/num"}
        option[m.name] = {**kind, "description": m.description}
        at["required"].append(m.name)
    # A resize names the knob that sized it: those the kinds declare (``Kind.sizes``).
    resize = data["properties"]["recommendation"]["properties"]["resizes"]["items"]
    resize["properties"]["knob"]["enum"] = [
        k for n in registry.names() for k in registry.get(n).sizes
    ]
    return data
