"""The files of a sweep: replications.csv (one row per replication and option, with every drawn
input), sweep.json (the spread, the odds and the drivers) and sweep.html (a fan chart of
cumulative cost and a histogram of each option's total), then manifest.json (a folder without
it is a sweep that did not finish: ``reports.manifest``). Nothing in them depends on the engine or
the number of workers, so the same scenario and seed give the same bytes."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from tco.reports import manifest
from tco.reports.document import Section, Table, render_page
from tco.reports.formats import MANIFEST
from tco.reports.formatting import sheet_text
from tco.simulator.core.atomic import write_text
from tco.simulator.run import Prepared
from tco.simulator.sweep.known import inputs
from tco.simulator.sweep.replication import Replication
from tco.simulator.sweep.summary import (
    SCHEMA_ID,
    choice_drivers,
    drivers,
    headline,
    input_paths,
    regrets,
    spreads,
)

FILES = ("replications.csv", "sweep.json", "sweep.html", MANIFEST)  # the manifest last


def _value(v: float | str) -> str:
    return sheet_text(v) if isinstance(v, str) else f"{v:.10g}"


def replications_csv(reps: list[Replication]) -> str:
    """One row per future and option: the future (its job stream and money draw), the option's
    figures there and every input drawn (blank where a future draws none: the base job
    stream's are as written). A name that a spreadsheet would read as a formula is text."""
    paths = input_paths(reps) if reps else []
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "replication",
            "stream",
            "money_draw",
            "seed",
            "option",
            "cash_usd",
            "npv_usd",
            "p95_wait_h",
            "p95_delay_h",
            "cannot_run_share",
            "late_reference_gpu_h",
            "meets_service_level",
            *(sheet_text(p) for p in paths),  # a path names options: user text
        ]
    )
    for r in reps:
        drawn = [_value(r.inputs[p]) if p in r.inputs else "" for p in paths]
        for o in r.options:
            w.writerow(
                [
                    r.index,
                    r.stream,
                    r.money,
                    r.seed,
                    sheet_text(o.name),
                    f"{o.cash_usd:.2f}",
                    f"{o.npv_usd:.2f}",
                    f"{o.p95_wait_h:.4f}",
                    f"{o.p95_delay_h:.4f}",
                    f"{o.cannot_run_share:.6f}",
                    f"{o.late_work:.4f}",
                    str(o.meets_service_level).lower(),
                    *drawn,
                ]
            )
    return buf.getvalue()


def _round(x: Any) -> Any:
    if isinstance(x, float):
        return round(x, 4) + 0.0
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_round(v) for v in x]
    return x


def _design(reps: list[Replication]) -> dict[str, Any]:
    """How the replications were drawn, as sweep.json and the manifest say it."""
    return {
        "streams": 1 + max((r.stream for r in reps), default=0),
        "money_draws": 1 + max((r.money for r in reps), default=0),
        "what": "job streams x money draws (sweep.design): each stream played once per"
        " option, priced under money draws of its own; stream 0 is the base job stream",
    }


def sweep_document(prepared: Prepared, reps: list[Replication], seed: int) -> dict[str, Any]:
    sc = prepared.scenario
    best, count = headline(reps)
    return {
        "schema": SCHEMA_ID,
        "tco_version": prepared.version,
        "scenario": {"name": sc.name, "file": prepared.file, "sha256": prepared.sha256},
        "seed": seed,
        "replications": len(reps),
        "design": _design(reps),
        "service_level": sc.service_level.model_dump(mode="json"),
        "headline": {"best": best, "futures_best": count, "futures": len(reps)},
        "uncertain": [
            {
                **i.uncertain.model_dump(mode="json"),
                "known": i.known is not None,
                "source": i.source,
            }
            for i in inputs(prepared)
        ],
        "options": [_round(asdict(s)) for s in spreads(reps)],
        "regret": [_round(asdict(r)) for r in regrets(reps)],
        "choice_drivers": [_round(asdict(d)) for d in choice_drivers(reps)],
        "drivers": [_round(asdict(d)) for d in drivers(reps)],
        "price_provenance": prepared.price_provenance,
    }


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    return buf.getvalue()


def _charts(prepared: Prepared, reps: list[Replication]) -> dict[str, tuple[str, bytes]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [o.name for o in reps[0].options]
    cur = prepared.scenario.money
    money_axis = matplotlib.ticker.FuncFormatter(cur.label)
    x = np.arange(1, len(prepared.months) + 1)
    fig, ax = plt.subplots(layout="constrained", figsize=(9, 5))
    for i, n in enumerate(names):
        cum = np.array([r.options[i].cumulative_cash_usd for r in reps]) * cur.per_usd
        p10, p50, p90 = np.percentile(cum, [10, 50, 90], axis=0)
        colour = plt.get_cmap("tab10")(i % 10)
        ax.fill_between(x, p10, p90, color=colour, alpha=0.2, linewidth=0)
        ax.plot(x, p50, color=colour, label=f"{n} (median; band P10-P90)")
    ax.set_xlabel(f"month (1 = {prepared.months[0]})")
    ax.set_ylabel(f"cumulative cost ({cur.unit()})")
    ax.yaxis.set_major_formatter(money_axis)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(f"{prepared.scenario.name}: cumulative cost over {len(reps)} futures")
    fan = _png(fig)
    plt.close(fig)
    # One x scale for every option, so the histograms compare at a glance.
    fig, axes = plt.subplots(
        len(names),
        1,
        layout="constrained",
        figsize=(9, 2.2 * len(names)),
        squeeze=False,
        sharex=True,
    )
    for i, (ax, n) in enumerate(zip(axes[:, 0], names, strict=True)):
        totals = [cur.of(r.options[i].cash_usd) for r in reps]
        ax.hist(totals, bins=30, color=plt.get_cmap("tab10")(i % 10))
        ax.set_title(f"{n}: total cost ({cur.unit()})", fontsize=9)
        ax.xaxis.set_major_formatter(money_axis)
    hist = _png(fig)
    plt.close(fig)
    return {
        "fan": ("Cumulative cost: the median of the futures, and the P10-P90 band", fan),
        "totals": ("Each option's total over the futures, on one scale", hist),
    }


def _sections(prepared: Prepared, doc: dict[str, Any]) -> list[Section]:
    import pandas as pd

    cur = prepared.scenario.money
    sl = doc["service_level"]
    head = doc["headline"]
    spread = pd.DataFrame(
        {
            "option": [o["name"] for o in doc["options"]],
            "cash P10": [cur.text(o["cash_usd"]["p10"]) for o in doc["options"]],
            "P50": [cur.text(o["cash_usd"]["p50"]) for o in doc["options"]],
            "P90": [cur.text(o["cash_usd"]["p90"]) for o in doc["options"]],
            "best in": [f"{o['probability_best']:.0%}" for o in doc["options"]],
            "meets the level in": [
                f"{o['probability_meets_service_level']:.0%}" for o in doc["options"]
            ],
        }
    )
    regret = pd.DataFrame(
        {
            "option": [r["name"] for r in doc["regret"]],
            "best in": [f"{r['probability_best']:.0%}" for r in doc["regret"]],
            "mean regret": [cur.text(r["mean_usd"]) for r in doc["regret"]],
            "P90 regret": [cur.text(r["p90_usd"]) for r in doc["regret"]],
        }
    )
    moves = [
        f"{d['input']}: {d['chosen']} is the best choice in {d['probability_low']:.0%} of the"
        f" futures with it at most {d['low_value']:.4g}, and in {d['probability_high']:.0%} with"
        f" it at least {d['high_value']:.4g}"
        for d in doc["choice_drivers"][:8]
    ]
    costs = [f"{d['input']} vs {d['against']}: {d['spearman']:+.2f}" for d in doc["drivers"][:8]]
    drawn = [f"{u['path']} ({u['distribution']['kind']}): {u['source']}" for u in doc["uncertain"]]
    return [
        Section(
            "answer",
            "The answer",
            headline=f"{head['best']} is the best choice (the cheapest that meets the service"
            f" level) in {head['futures_best']:,} of {head['futures']:,} futures.",
            text=[
                f"{cur.note()} Cash over {len(prepared.months)} months from"
                f" {prepared.months[0]}, {cur.code}; service level:"
                f" {prepared.scenario.service_level.words()} and at most"
                f" {sl['max_cannot_run_share']:.0%} of the work unable to run. Seed {doc['seed']}."
            ],
            tables=[Table("Each option over the futures", spread, cards=True)],
        ),
        Section(
            "regret",
            "Regret",
            text=["Cash above the best choice of each future (0 where it is the best)."],
            tables=[Table("Regret", regret, cards=True)],
        ),
        Section(
            "drivers",
            "What moves the choice",
            lists=[
                ("The lowest and highest third of each input's draws", moves),
                ("What drives the costs (Spearman rank correlation)", costs),
                ("The inputs drawn, and where their ranges come from", drawn),
            ],
        ),
        Section("charts", "Charts", charts=["fan", "totals"], new_page=True),
    ]


def sweep_html(prepared: Prepared, reps: list[Replication], doc: dict[str, Any]) -> str:
    """sweep.html, built like the report (its template and styles)."""
    return render_page(
        f"{prepared.scenario.name}: {doc['replications']} futures",
        f"tco {prepared.version}, {prepared.file}",
        (prepared.scenario.description or "").strip(),
        _sections(prepared, doc),
        _charts(prepared, reps),
    )


def write_sweep(
    prepared: Prepared, reps: list[Replication], seed: int, out_dir: str | Path
) -> list[Path]:
    d = Path(out_dir)
    with manifest.writing(d):  # the CLI began it before the sweep ran; again, locked, here
        return _write_sweep(d, prepared, reps, seed)


def _write_sweep(d: Path, prepared: Prepared, reps: list[Replication], seed: int) -> list[Path]:
    doc = sweep_document(prepared, reps, seed)
    files = [
        write_text(d / "replications.csv", replications_csv(reps)),
        write_text(d / "sweep.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n"),
        write_text(d / "sweep.html", sweep_html(prepared, reps, doc)),
    ]
    about = {
        "tco_version": prepared.version,
        "scenario_sha256": prepared.sha256,
        "seed": seed,
        "replications": len(reps),
        "design": _design(reps),
    }
    return [*files, manifest.finish(d, "tco-sweep-manifest/1", about, files)]
