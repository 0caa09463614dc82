"""Write the report directory: summary.json, monthly.csv, jobs.csv, charts (PNG and SVG),
report.html (self-contained), report.md and budget.xlsx, then manifest.json.

Each part's modules are imported only when that part is asked for: a JSON-only run never loads
matplotlib or openpyxl. Each file is written atomically; the folder as a whole is complete when
``manifest.json`` is there and every file matches its SHA-256 (:func:`verify_report`). The
manifest is removed before anything is written and written last, so a run killed half-way leaves
a folder without one, never a mix of old and new files that looks complete.
"""

from __future__ import annotations

from pathlib import Path

from tco.reports import manifest
from tco.reports.formats import CHART_DIR, DEFAULT_FORMATS, FORMATS, MANIFEST
from tco.simulator.core.atomic import write_text
from tco.simulator.engine.result import Result

__all__ = ["CHART_DIR", "DEFAULT_FORMATS", "FORMATS", "MANIFEST", "verify_report", "write_report"]
MANIFEST_SCHEMA = "tco-report-manifest/1"


def _charts_and_documents(result: Result, d: Path, formats: tuple[str, ...]) -> list[Path]:
    from tco.reports import chart_files, charts, document

    written: list[Path] = []
    made = charts.all_charts(result)
    pngs = {c.name: chart_files.png_bytes(c) for c in made}
    svg = "svg" in formats
    if "charts" in formats or "md" in formats or svg:  # HTML embeds its charts: no files needed
        folder = manifest.subfolder(d, CHART_DIR)
        for c in made:
            written += chart_files.save(c, folder, pngs[c.name], svg)
    for c in made:
        chart_files.close(c)
    if "html" in formats:
        written.append(write_text(d / "report.html", document.render_html(result, made, pngs)))
    if "md" in formats:
        written.append(
            write_text(d / "report.md", document.render_markdown(result, made, CHART_DIR))
        )
    return written


def write_report(
    result: Result, out_dir: str | Path, formats: tuple[str, ...] = DEFAULT_FORMATS
) -> list[Path]:
    """Write the chosen parts of the report; return the files written."""
    d = Path(out_dir)
    written: list[Path] = []
    with manifest.writing(d):  # incomplete until the new manifest is written
        if "json" in formats or "csv" in formats:
            from tco.reports import files

            written += files.write_data(result, d, json="json" in formats, csv="csv" in formats)
        if {"charts", "svg", "html", "md"} & set(formats):
            written += _charts_and_documents(result, d, formats)
        if "xlsx" in formats:
            from tco.reports import spreadsheet

            written.append(spreadsheet.write(result, d / "budget.xlsx"))
        if "focus" in formats:
            from tco.reports import focus_export

            written.append(focus_export.write(result, d / "focus.csv"))
        written.append(_manifest(result, d, written))
    return written


def _manifest(result: Result, d: Path, files: list[Path]) -> Path:
    about = {
        "tco_version": result.version,
        "scenario_sha256": result.scenario_sha256,
        "seed": result.scenario.seed,
    }
    return manifest.finish(d, MANIFEST_SCHEMA, about, files)


def verify_report(out_dir: str | Path) -> list[str]:
    """Problems that make a report folder incomplete or mixed (an empty list: it is whole)."""
    return manifest.verify(out_dir, "report")
