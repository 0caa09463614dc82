"""Write the report directory: summary.json, monthly.csv, jobs.csv, charts (PNG and SVG),
report.html (self-contained), report.md and budget.xlsx.

Each part's modules are imported only when that part is asked for: a JSON-only run never loads
matplotlib or openpyxl.
"""

from __future__ import annotations

from pathlib import Path

from tco.reports.formats import CHART_DIR, FORMATS
from tco.simulator.atomic import write_text
from tco.simulator.result import Result

__all__ = ["CHART_DIR", "FORMATS", "write_report"]


def _charts_and_documents(result: Result, d: Path, formats: tuple[str, ...]) -> list[Path]:
    from tco.reports import charts, document

    written: list[Path] = []
    made = charts.all_charts(result)
    pngs = {c.name: charts.png_bytes(c) for c in made}
    if "charts" in formats or "md" in formats:  # HTML embeds its charts: no files needed
        for c in made:
            written += charts.save(c, d / CHART_DIR, pngs[c.name])
    for c in made:
        charts.close(c)
    if "html" in formats:
        written.append(write_text(d / "report.html", document.render_html(result, made, pngs)))
    if "md" in formats:
        written.append(
            write_text(d / "report.md", document.render_markdown(result, made, CHART_DIR))
        )
    return written


def write_report(
    result: Result, out_dir: str | Path, formats: tuple[str, ...] = FORMATS
) -> list[Path]:
    """Write the chosen parts of the report; return the files written."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if "json" in formats or "csv" in formats:
        from tco.reports import files

        written += files.write_data(result, d, json="json" in formats, csv="csv" in formats)
    if {"charts", "html", "md"} & set(formats):
        written += _charts_and_documents(result, d, formats)
    if "xlsx" in formats:
        from tco.reports import spreadsheet

        written.append(spreadsheet.write(result, d / "budget.xlsx"))
    return written
