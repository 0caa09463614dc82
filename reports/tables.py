"""The report's tables as pandas DataFrames, shared by the HTML, Markdown and spreadsheet outputs.

Money columns are in the scenario's reporting currency (``formatting.in_currency``: computed in
USD, converted here); names say which. Nothing here formats or writes files.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tco.reports.formatting import in_currency, is_money
from tco.simulator.core import defaults
from tco.simulator.costs import ledger
from tco.simulator.engine import verdicts
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.runs import held_gpu_h
from tco.simulator.workload.derived import derived


def summary(result: Result) -> pd.DataFrame:
    """One row per option: totals, NPV, cost per GPU-hour, utilisation, waits, jobs, the service
    level and break-even (``Result.comparison_frame``)."""
    frame = result.comparison_frame()
    if result.scenario.tax is not None:  # the tax in all, beside the cash (``costs.tax``)
        at = list(frame.columns).index("NPV of cash (USD)") + 1
        tax = [
            float("nan") if (t := o.metrics.tax) is None else t.after_usd - t.before_usd
            for o in result.options
        ]
        frame.insert(at, "total income tax (USD)", tax)
    return in_currency(frame, result.scenario.money)


def comparison(result: Result) -> pd.DataFrame:
    """The comparison a reader scans: one row per option, the figures that decide, break-even
    against the cheapest other option that meets the service level (the terminal's columns)."""
    from tco.reports.answer import break_even_cell, level_cell

    full = result.comparison_frame()
    judged = "p95 delay (h)" if result.scenario.service_level.judges_delay else "p95 wait (h)"
    frame = pd.DataFrame(
        {
            "option": full["option"],
            "what": [registry.get(o.kind).label for o in result.options],
            "total cash (USD)": full["total cash (USD)"],
            "NPV of cash (USD)": full["NPV of cash (USD)"],
            "USD per delivered GPU-hour": full["USD per delivered GPU-hour"],
            "GPU utilisation": full["GPU utilisation"],
            judged: full[judged],
            "jobs that cannot run": full["jobs that cannot run"],
            "service level": [level_cell(result, o.name) for o in result.options],
            "break-even": [break_even_cell(result, o) for o in result.options],
        }
    )
    tax = result.scenario.tax
    if tax is not None:  # the other money beside the decided one (``costs.tax``)
        other = "before" if tax.decide_on == "after_tax" else "after"
        taxed = [o.metrics.tax for o in result.options]
        for k, name in enumerate((f"total cash {other} tax (USD)", f"NPV {other} tax (USD)")):
            values = [float("nan") if t is None else t.beside[k] for t in taxed]
            frame.insert(4 + k, name, values)
    return in_currency(frame, result.scenario.money)


def break_even(result: Result) -> pd.DataFrame:
    """Each owned option against each rented one that meets the service level: the month from
    which owning stays cheaper, and the volume of work at which both cost the same."""
    from tco.reports.answer import break_even_pairs, reference_label

    volumes = {(v.owned, v.rented): v for v in result.break_even_volumes}
    ref = reference_label(result)
    rows = []
    for o, other in break_even_pairs(result, owned_must_meet=False):
        m = o.break_even[other.name]
        v = volumes.get((o.name, other.name))
        if not verdicts.meets(result, o.name):
            when = "- (misses the service level)"
        else:
            when = "never (within the horizon)" if m is None else f"{result.months[m - 1]}"
        same = "n/a" if v is None else (v.note if v.scale is None else f"{v.scale:.2f}x")
        # Above full use the servers cannot do that much work: no volume where the two meet.
        beyond = v is not None and v.utilisation is not None and v.utilisation > 1.0
        if beyond:
            assert v is not None and v.utilisation is not None
            same = f"never: owning costs more even fully used ({v.utilisation:.0%} would be needed)"
        rows.append(
            {
                "owning": o.name,
                "against renting": other.name,
                "owning cheaper from": when,
                "same cost at utilisation": None if v is None or beyond else v.utilisation,
                f"same cost at {ref} GPU-hours a month": None
                if v is None or v.gpu_hours_per_month is None or beyond
                else round(v.gpu_hours_per_month),
                "times this scenario's work": same,
            }
        )
    return pd.DataFrame(rows)


def frontier(result: Result) -> pd.DataFrame | None:
    """What each confidence would buy and for how much on average over the futures (None: no
    odds)."""
    odds = result.recommendation.odds
    if odds is None or not odds.frontier:
        return None
    code = result.scenario.money.code
    cur = result.scenario.money
    rows = [
        {
            "confidence": f"{f.confidence:.0%}"
            + (" *" if abs(f.confidence - odds.confidence) < 1e-9 else ""),
            "what it buys": f.words or "none of the candidates played",
            f"mean cash ({code})": None if f.cash_mean_usd is None else cur.of(f.cash_mean_usd),
            "meets the level in": ""
            if f.probability_meets_level is None
            else f"{f.probability_meets_level:.0%}",
        }
        for f in odds.frontier
    ]
    return pd.DataFrame(rows)


def by_view(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """A monthly or period table split into its cash view, its accounting view and its usage,
    each narrow enough to print (the first column, month or period, repeated in each)."""
    key = frame.columns[0]
    out = []
    for view, title in (("cash", "cash"), ("accounting", "accounting")):
        total = f"{view} total ("
        cols = [c for c in frame.columns if c.startswith((f"{view}:", total)) and is_money(c)]
        if cols:
            part = frame[[key, *cols]]
            names = {c: c.removeprefix(f"{view}: ") for c in cols}
            out.append((title, part.rename(columns=names)))
    usage = [c for c in frame.columns if c != key and not is_money(c)]
    if usage:
        out.append(("usage", frame[[key, *usage]]))
    return out


def monthly(result: Result, o: OptionResult) -> pd.DataFrame:
    """Month by month for one option: cash and accounting by category, totals, usage."""
    data: dict[str, Any] = {"month": list(result.months)}
    for cat, v in o.ledger.cash.items():
        data[f"cash: {cat} (USD)"] = v
    data["cash total (USD)"] = o.ledger.cash_total()
    for cat, v in o.ledger.accounting.items():
        data[f"accounting: {cat} (USD)"] = v
    data["accounting total (USD)"] = o.ledger.accounting_total()
    t = o.metrics.tax
    if t is not None:  # the income tax (after tax, its categories are in the cash as well)
        if not t.after_tax:
            for cat, v in o.ledger.tax.items():
                data[f"tax: {cat} (USD)"] = v
        taxes = list(o.ledger.tax.values())
        data["tax total (USD)"] = np.sum(taxes, axis=0) if taxes else np.zeros(len(result.months))
    data["GPU utilisation"] = o.ledger.gpu_utilisation
    if o.ledger.footprint is not None:  # work finished after the horizon in its last month
        data["tCO2e"] = o.ledger.footprint.monthly_t
    for s in ledger.series():
        if s.name in o.ledger.series:
            data[s.label] = o.ledger.series[s.name]
    return in_currency(pd.DataFrame(data), result.scenario.money)


def fiscal_year(month: str, start_month: int) -> str:
    """'FY2028' for a month, fiscal years named by the calendar year in which they end."""
    y, m = int(month[:4]), int(month[5:])
    return f"FY{y + (1 if start_month > 1 and m >= start_month else 0)}"


def quarter(month: str, start_month: int) -> str:
    """'FY2028 Q1' for a month, quarters counted from the fiscal-year start."""
    m = int(month[5:])
    q = ((m - start_month) % 12) // 3 + 1
    return f"{fiscal_year(month, start_month)} Q{q}"


def periods(result: Result, o: OptionResult, by: str) -> pd.DataFrame:
    """Cash and accounting totals per quarter or fiscal year (``by``: 'quarter' or 'year')."""
    start = result.scenario.fiscal_year_start_month
    m = monthly(result, o)
    key = [quarter(x, start) if by == "quarter" else fiscal_year(x, start) for x in m["month"]]
    money = [c for c in m.columns if is_money(c)]
    out = m[money].groupby(pd.Series(key, name="period"), sort=False).sum()
    return out.reset_index()


def kind_tables(result: Result, o: OptionResult) -> list[tuple[str, pd.DataFrame]]:
    """The tables the option's kind adds to its section (e.g. a depreciation schedule)."""
    kind = registry.get(o.kind)
    if not kind.can(Can.TABLES):
        return []
    cur = result.scenario.money
    return [(t, in_currency(f, cur)) for t, f in kind.report_tables(result.months, o.ledger)]


def places(result: Result, o: OptionResult) -> pd.DataFrame | None:
    """Where the option's jobs ran (jobs.csv's ``ran_on``, summed): jobs, GPU-hours held and
    their cost on each instance type or server model (None: the kind does not say)."""
    p = o.places
    if p is None:
        return None
    held = held_gpu_h(o.runs, p.where)
    rows = []
    for i, name in enumerate(p.names):
        mine = p.where == i
        if mine.any():
            rows.append((name, int(mine.sum()), float(held[mine].sum()), float(p.usd[mine].sum())))
    if not rows:
        return None
    frame = pd.DataFrame(
        rows, columns=["ran on", "jobs", "GPU-hours held", "cost of the jobs (USD)"]
    )
    return in_currency(
        frame.sort_values("cost of the jobs (USD)", ascending=False), result.scenario.money
    )


def prices(result: Result, plain: bool = False) -> pd.DataFrame:
    """Every price and cost figure used, with unit, source and date; ``plain``: the source and
    date in words for a reader (``provenance.plain_*``), as the HTML and Markdown show them."""
    from tco.reports import provenance

    rows = []
    for o in result.options:
        for q in o.quotes:
            rows.append(
                {
                    "option": o.name,
                    "item": q.item,
                    "value": q.value,
                    "unit": q.unit,
                    "source": provenance.plain_source(q.source) if plain else q.source,
                    "as of": provenance.plain_date(q.as_of) if plain else q.as_of,
                    "detail": provenance.plain_detail(q.detail) if plain else q.detail,
                }
            )
    return pd.DataFrame(rows)


def _plain(key: str) -> str:
    return key.replace("_", " ")


def _flatten(
    path: str, label: list[str], value: Any, out: list[tuple[str, list[str], str]]
) -> None:
    """(YAML path, plain-word label parts, value) for every leaf; list items are named by their
    ``name`` when they have one, else numbered from 1."""
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{path}.{k}" if path else str(k), [*label, _plain(str(k))], v, out)
    elif isinstance(value, list) and value and isinstance(value[0], dict):
        for i, v in enumerate(value):
            name = v.get("name") if isinstance(v, dict) else None
            item = f"{label[-1] if label else 'item'} {name or i + 1}"
            _flatten(f"{path}[{i}]", [*label[:-1], item], v, out)
    elif value is not None:
        out.append((path, label, str(value)))


def assumptions(result: Result) -> pd.DataFrame:
    """Every scenario input (defaults filled in), then the model defaults with their sources.

    ``where`` is the option (by name), the workload or the scenario; ``setting`` is the input in
    plain words; ``key`` is where to change it in the scenario file."""
    leaves: list[tuple[str, list[str], str]] = []
    _flatten("", [], result.scenario.model_dump(mode="json"), leaves)
    model_work = derived(result.scenario.workload)
    stated_by_model = {f"{d.key}.{f}" for d in model_work for f in ("memory_gb", "workload_family")}
    rows = []
    for key, label, value in leaves:
        if key.startswith("options[") and key.endswith("].name"):
            continue  # the option's name is its "where"
        where, rest = "scenario", label
        if key.startswith("options["):
            where, rest = label[0].removeprefix("options "), label[1:]
        elif len(label) > 1:
            where, rest = label[0], label[1:]
        if key in stated_by_model:
            continue  # a model's memory and speed family follow from it: rows of their own below
        rows.append((where, ": ".join(rest) or where, value, "scenario file (or its default)", key))
    for d in model_work:
        what = "job classes" if d.key.startswith("workload.job_classes") else "runs"
        for setting, value, source in d.rows():
            rows.append(("workload", f"{what} {d.name}: {setting}", value, source, f"{d.key}.work"))
    for k, (v, src) in defaults.SOURCES.items():
        rows.append(("model default", _plain(k), f"{v:g}", src, f"defaults.{k}"))
    return pd.DataFrame(rows, columns=["where", "setting", "value", "source", "key"])
