"""The files of ``tco optimize``: frontier.csv (every configuration evaluated), optimize.json (the
cheapest configuration meeting the service level) and optimize.html (cost against p95 wait, the
frontier drawn through the configurations no other beats on both), then manifest.json."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from tco.reports import manifest
from tco.reports.document import Section, Table, render_page
from tco.reports.formats import MANIFEST
from tco.reports.formatting import sheet_text
from tco.simulator.advice.optimize import GIVEN, Config, best
from tco.simulator.core.atomic import write_text
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.verdicts import by_cash
from tco.simulator.kinds import registry

FILES = ("frontier.csv", "optimize.json", "optimize.html", MANIFEST)  # the manifest last


def columns() -> tuple[str, ...]:
    """The columns of frontier.csv: the scenario's configuration, then every knob the kinds
    declare (``Kind.knobs``), kind by kind in the order they were registered."""
    declared = (k for n in registry.names() for k in registry.get(n).knobs)
    return tuple(dict.fromkeys([GIVEN, *declared]))


def _knob(v: Any) -> Any:
    if v is True:
        return "true"
    return sheet_text(v) if isinstance(v, str) else v


def frontier_csv(configs: list[Config]) -> str:
    """One row per configuration; a column per knob (``columns``, then any other a kind searched
    without declaring it, in the order first evaluated)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    names = list(dict.fromkeys([*columns(), *(k for c in configs for k in c.knobs)]))
    head = ["option", *names, "cash_usd", "npv_usd", "p95_wait_h", "p95_delay_h"]
    head.append("cannot_run_share")
    # Names and knob values are user text: a spreadsheet must show them, never evaluate them.
    w.writerow([*(sheet_text(h) for h in head), "meets_service_level", "on_frontier"])
    for c in configs:
        knobs = [c.knobs.get(k, "") for k in names]
        w.writerow(
            [
                sheet_text(c.option),
                *[_knob(v) for v in knobs],
                f"{c.cash_usd:.2f}",
                f"{c.npv_usd:.2f}",
                f"{c.p95_wait_h:.4f}",
                f"{c.p95_delay_h:.4f}",
                f"{c.cannot_run_share:.6f}",
                str(c.meets_service_level).lower(),
                str(c.on_frontier).lower(),
            ]
        )
    return buf.getvalue()


def optimize_document(prepared: Prepared, configs: list[Config]) -> dict[str, Any]:
    b = best(configs)
    sc = prepared.scenario
    return {
        "schema": "tco-optimize/1",
        "tco_version": prepared.version,
        "scenario": {"name": sc.name, "file": prepared.file, "sha256": prepared.sha256},
        "seed": sc.seed,
        "service_level": sc.service_level.model_dump(mode="json"),
        "evaluated": len(configs),
        "best": None
        if b is None
        else {
            "option": b.option,
            "knobs": b.knobs,
            "cash_usd": round(b.cash_usd, 2),
            "npv_usd": round(b.npv_usd, 2),
            "p95_wait_h": round(b.p95_wait_h, 4),
            "p95_delay_h": round(b.p95_delay_h, 4),
            "words": b.words,
        },
    }


def _chart(prepared: Prepared, configs: list[Config]) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(layout="constrained", figsize=(9, 5))
    cur = prepared.scenario.money
    names = list(dict.fromkeys(c.option for c in configs))
    for i, n in enumerate(names):
        mine = [c for c in configs if c.option == n]
        ax.scatter(
            [c.p95_delay_h for c in mine],
            [cur.of(c.cash_usd) for c in mine],
            color=plt.get_cmap("tab10")(i % 10),
            label=n,
            marker="o",
            s=[60 if c.meets_service_level else 25 for c in mine],
        )
    front = sorted((c for c in configs if c.on_frontier), key=lambda c: c.p95_delay_h)
    ax.plot([c.p95_delay_h for c in front], [cur.of(c.cash_usd) for c in front], color="0.3", lw=1)
    limit = prepared.scenario.service_level.allowed_h
    ax.axvline(limit, color="0.5", ls="--", lw=1)
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlim(left=0)  # a delay is never negative (symlog would show -10^0 otherwise)
    ax.set_xlabel(f"p95 delay (h); dashed: the service level, {limit:g} h")
    ax.set_ylabel(f"cash over the horizon ({cur.unit()})")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(cur.label))
    ax.legend(fontsize=8)
    ax.set_title(f"{prepared.scenario.name}: configurations evaluated (large: meets the level)")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def optimize_html(prepared: Prepared, configs: list[Config], doc: dict[str, Any]) -> str:
    """optimize.html, built like the report (its template, styles, phone and print layout):
    the best configuration in a sentence, the frontier as a table, the chart."""
    import pandas as pd

    b = doc["best"]
    cur = prepared.scenario.money
    headline = (
        "No configuration meets the service level: the frontier below shows how close each"
        " option comes."
        if b is None
        else f"Best: {b['option']} with {b['words']}, at {cur.text(b['cash_usd'])} cash over the"
        f" horizon (p95 delay {b['p95_delay_h']:,.1f} h), the cheapest of {doc['evaluated']:,}"
        " configurations that meets the service level."
    )
    cheapest_first = by_cash((c for c in configs if c.on_frontier), lambda c: c.cash_usd)
    front = sorted(cheapest_first, key=lambda c: c.option)  # by option, each cheapest first
    code = cur.code
    frame = pd.DataFrame(
        {
            "option": [c.option for c in front],
            "configuration": [c.words for c in front],
            f"cash ({code})": [round(cur.of(c.cash_usd), 2) for c in front],
            "p95 delay (h)": [round(c.p95_delay_h, 1) for c in front],
            "service level": ["meets" if c.meets_service_level else "misses" for c in front],
        }
    )
    parts = [
        Section(
            "answer",
            "The answer",
            headline=headline,
            text=[
                f"{cur.note()} Service level: {prepared.scenario.service_level.words()}. Every"
                " configuration evaluated is in frontier.csv; optimize.json holds the best."
            ],
            tables=[
                Table(
                    "The frontier: none cheaper at a shorter delay",
                    frame,
                    cards=True,
                    prose=("configuration",),
                )
            ],
        ),
        Section("charts", "Chart", charts=["frontier"], new_page=True),
    ]
    title = "Cash against p95 delay, every configuration (large: meets the level)"
    return render_page(
        f"{prepared.scenario.name}: {doc['evaluated']:,} configurations",
        f"tco {prepared.version}, {prepared.file}",
        (prepared.scenario.description or "").strip(),
        parts,
        {"frontier": (title, _chart(prepared, configs))},
    )


def write_optimize(prepared: Prepared, configs: list[Config], out_dir: str | Path) -> list[Path]:
    d = Path(out_dir)
    with manifest.writing(d):
        return _write_optimize(d, prepared, configs)


def _write_optimize(d: Path, prepared: Prepared, configs: list[Config]) -> list[Path]:
    doc = optimize_document(prepared, configs)
    files = [
        write_text(d / "frontier.csv", frontier_csv(configs)),
        write_text(d / "optimize.json", json.dumps(doc, indent=2) + "\n"),
        write_text(d / "optimize.html", optimize_html(prepared, configs, doc)),
    ]
    about = {
        "tco_version": prepared.version,
        "scenario_sha256": prepared.sha256,
        "seed": prepared.scenario.seed,
    }
    return [*files, manifest.finish(d, "tco-optimize-manifest/1", about, files)]
