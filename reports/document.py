"""The report as an ordered list of sections, rendered to self-contained HTML or to Markdown.

Both renderings carry the same content: the answer, the comparison, the charts, the monthly
budget, quarterly and fiscal-year totals, the depreciation schedules, the prices used with their
source and date, and every assumption.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from tco.reports import tables, terminal
from tco.reports.charts import Chart
from tco.reports.formatting import as_text, markdown_table
from tco.simulator.result import Result


@dataclass
class Section:
    title: str
    text: list[str] = field(default_factory=list)
    frames: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    charts: list[str] = field(default_factory=list)  # chart names


def sections(result: Result, chart_names: list[str]) -> list[Section]:
    sc = result.scenario
    out = [
        Section(
            "The answer",
            text=terminal.sentences(result) + [f"Warning: {w}" for w in result.price_warnings],
        )
    ]
    out.append(Section("Comparison", frames=[("", tables.summary(result))]))
    out.append(Section("Charts", charts=chart_names))
    for o in result.options:
        s = Section(f"Monthly budget: {o.name}", text=[f"{o.kind}: {o.description}"])
        s.frames.append(
            (
                "Month by month (cash view: when money leaves; accounting view: "
                "depreciation and amortised commitments)",
                tables.monthly(result, o),
            )
        )
        s.frames.append(
            (
                f"Quarters (fiscal year starts in month {sc.fiscal_year_start_month})",
                tables.periods(result, o, "quarter"),
            )
        )
        s.frames.append(("Fiscal years", tables.periods(result, o, "year")))
        s.frames.extend(tables.kind_tables(result, o))
        if o.cannot_run:
            s.frames.append(
                (
                    "Jobs that cannot run",
                    pd.DataFrame(
                        [
                            (r, n, ", ".join(o.cannot_run_examples[r]))
                            for r, n in o.cannot_run.items()
                        ],
                        columns=["reason", "jobs", "examples"],
                    ),
                )
            )
        for k, v in o.ledger.notes.items():
            if k.endswith("_usd"):
                s.text.append(f"{k.removesuffix('_usd').replace('_', ' ')}: ${v:,.2f}")
        out.append(s)
    out.append(
        Section(
            "Prices used",
            text=[
                f"Price mode: {result.price_provenance.get('price_mode', '?')}; bundled snapshot"
                f" as of {result.price_provenance.get('snapshot_as_of', '?')}."
            ],
            frames=[("", tables.prices(result))],
        )
    )
    out.append(Section("Assumptions", frames=[("", tables.assumptions(result))]))
    return out


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1200px;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.8em;margin:.5em 0 1.5em;display:block;overflow-x:auto}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:right;white-space:nowrap}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #eee}
.meta{color:#666;font-size:.9em}
"""


def _title(result: Result) -> str:
    sc = result.scenario
    return f"{sc.name}: buy or rent GPUs, {sc.horizon_months} months from {sc.start}"


def _meta(result: Result) -> str:
    sc = result.scenario
    return (
        f"Scenario {result.scenario_file} (sha256 {result.scenario_sha256[:12]}), seed {sc.seed},"
        f" region {sc.region}, {len(result.jobs):,} jobs, tco {result.version}. Money in USD."
    )


def render_html(result: Result, charts: list[Chart], pngs: dict[str, bytes]) -> str:
    """One self-contained HTML file: charts embedded as data URIs, no external references."""
    titles = {c.name: c.title for c in charts}
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(_title(result))}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{html.escape(_title(result))}</h1>",
        f'<p class="meta">{html.escape(_meta(result))}</p>',
    ]
    if result.scenario.description:
        parts.append(f"<p>{html.escape(result.scenario.description.strip())}</p>")
    for s in sections(result, [c.name for c in charts]):
        parts.append(f"<h2>{html.escape(s.title)}</h2>")
        parts.extend(f"<p>{html.escape(t)}</p>" for t in s.text)
        for name in s.charts:
            data = base64.b64encode(pngs[name]).decode()
            parts.append(
                f'<figure><img src="data:image/png;base64,{data}" '
                f'alt="{html.escape(titles[name])}"><figcaption>'
                f"{html.escape(titles[name])}</figcaption></figure>"
            )
        for caption, frame in s.frames:
            if caption:
                parts.append(f"<h3>{html.escape(caption)}</h3>")
            parts.append(as_text(frame).to_html(index=False, escape=True, border=0))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def render_markdown(result: Result, charts: list[Chart], chart_dir: str) -> str:
    """The same report in Markdown; charts are PNG files in ``chart_dir`` beside it."""
    titles = {c.name: c.title for c in charts}
    lines = [f"# {_title(result)}", "", _meta(result), ""]
    if result.scenario.description:
        lines += [result.scenario.description.strip(), ""]
    for s in sections(result, [c.name for c in charts]):
        lines += [f"## {s.title}", ""]
        for t in s.text:
            lines += [t, ""]
        for name in s.charts:
            lines += [f"![{titles[name]}]({Path(chart_dir) / (name + '.png')})", ""]
        for caption, frame in s.frames:
            if caption:
                lines += [f"### {caption}", ""]
            lines += [markdown_table(frame), ""]
    return "\n".join(lines)
