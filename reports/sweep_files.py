"""The files of a sweep: replications.csv (one row per replication and option, with every drawn
input), sweep.json (the spread, the odds and the drivers) and sweep.html (a fan chart of
cumulative cost and a histogram of each option's total), then manifest.json (a folder without
it is a sweep that did not finish: ``reports.manifest``). Nothing in them depends on the engine or
the number of workers, so the same scenario and seed give the same bytes."""

from __future__ import annotations

import base64
import csv
import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from tco.reports import manifest
from tco.reports.formats import MANIFEST
from tco.simulator.core.atomic import write_text
from tco.simulator.run import Prepared
from tco.simulator.sweep.replication import Replication
from tco.simulator.sweep.summary import SCHEMA_ID, drivers, spreads

FILES = ("replications.csv", "sweep.json", "sweep.html", MANIFEST)  # the manifest last


def _value(v: float | str) -> str:
    return v if isinstance(v, str) else f"{v:.10g}"


def replications_csv(reps: list[Replication]) -> str:
    paths = list(reps[0].inputs) if reps else []
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "replication",
            "seed",
            "option",
            "cash_usd",
            "npv_usd",
            "p95_wait_h",
            "cannot_run_share",
            "meets_service_level",
            *paths,
        ]
    )
    for r in reps:
        drawn = [_value(r.inputs[p]) for p in paths]
        for o in r.options:
            w.writerow(
                [
                    r.index,
                    r.seed,
                    o.name,
                    f"{o.cash_usd:.2f}",
                    f"{o.npv_usd:.2f}",
                    f"{o.p95_wait_h:.4f}",
                    f"{o.cannot_run_share:.6f}",
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


def sweep_document(prepared: Prepared, reps: list[Replication], seed: int) -> dict[str, Any]:
    sc = prepared.scenario
    return {
        "schema": SCHEMA_ID,
        "tco_version": prepared.version,
        "scenario": {"name": sc.name, "file": prepared.file, "sha256": prepared.sha256},
        "seed": seed,
        "replications": len(reps),
        "service_level": sc.service_level.model_dump(mode="json"),
        "uncertain": [u.model_dump(mode="json") for u in sc.uncertain],
        "options": [_round(asdict(s)) for s in spreads(reps)],
        "drivers": [_round(asdict(d)) for d in drivers(reps)],
        "price_provenance": prepared.price_provenance,
    }


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode()


def _charts(prepared: Prepared, reps: list[Replication]) -> tuple[str, str]:
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
    fig, axes = plt.subplots(
        len(names), 1, layout="constrained", figsize=(9, 2.2 * len(names)), squeeze=False
    )
    for i, (ax, n) in enumerate(zip(axes[:, 0], names, strict=True)):
        totals = [cur.of(r.options[i].cash_usd) for r in reps]
        ax.hist(totals, bins=30, color=plt.get_cmap("tab10")(i % 10))
        ax.set_title(f"{n}: total cost ({cur.unit()})", fontsize=9)
        ax.xaxis.set_major_formatter(money_axis)
    hist = _png(fig)
    plt.close(fig)
    return fan, hist


def sweep_html(prepared: Prepared, reps: list[Replication], doc: dict[str, Any]) -> str:
    from html import escape

    fan, hist = _charts(prepared, reps)
    cur = prepared.scenario.money
    rows = "".join(
        f"<tr><td>{escape(o['name'])}</td><td>{cur.text(o['cash_usd']['p10'])}</td>"
        f"<td>{cur.text(o['cash_usd']['p50'])}</td><td>{cur.text(o['cash_usd']['p90'])}</td>"
        f"<td>{o['probability_cheapest']:.0%}</td>"
        f"<td>{o['probability_meets_service_level']:.0%}</td></tr>"
        for o in doc["options"]
    )
    top = "".join(
        f"<li>{escape(d['input'])} vs {escape(d['against'])}: {d['spearman']:+.2f}</li>"
        for d in doc["drivers"][:8]
    )
    sl = doc["service_level"]
    return (
        '<!doctype html><html><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(prepared.scenario.name)}: sweep</title><style>"
        "body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;"
        "text-align:right}td:first-child{text-align:left}img{max-width:100%}</style></head><body>"
        f"<h1>{escape(prepared.scenario.name)}: {doc['replications']} futures</h1>"
        f"<p>{escape(cur.note())} Cash cost over {len(prepared.months)} months from"
        f" {prepared.months[0]}, {cur.code};"
        f" service level: {escape(prepared.scenario.service_level.words())} and at most"
        f" {sl['max_cannot_run_share']:.0%} of the work unable to run. Seed {doc['seed']}.</p>"
        "<table><tr><th>option</th><th>P10</th><th>P50</th><th>P90</th><th>cheapest in</th>"
        f"<th>meets the level in</th></tr>{rows}</table>"
        f"<h2>What drives the answer (Spearman rank correlation)</h2><ul>{top}</ul>"
        f'<h2>Cumulative cost</h2><img alt="fan chart" src="data:image/png;base64,{fan}">'
        f'<h2>Totals</h2><img alt="histograms" src="data:image/png;base64,{hist}">'
        "</body></html>\n"
    )


def write_sweep(
    prepared: Prepared, reps: list[Replication], seed: int, out_dir: str | Path
) -> list[Path]:
    d = Path(out_dir)
    manifest.begin(d)  # the CLI began it before the sweep ran; again for a library caller
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
    }
    return [*files, manifest.finish(d, "tco-sweep-manifest/1", about, files)]
