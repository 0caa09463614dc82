"""Write the report directory: summary.json, monthly.csv, jobs.csv, charts (PNG and SVG),
report.html (self-contained), report.md and budget.xlsx."""

from __future__ import annotations

from pathlib import Path

from tco.reports import charts, document, files, spreadsheet
from tco.simulator.atomic import write_text
from tco.simulator.result import Result

FORMATS = ("json", "csv", "charts", "html", "md", "xlsx")
CHART_DIR = "charts"


def write_report(
    result: Result, out_dir: str | Path, formats: tuple[str, ...] = FORMATS
) -> list[Path]:
    """Write the chosen parts of the report; return the files written."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if "json" in formats or "csv" in formats:
        written += files.write_data(result, d, json="json" in formats, csv="csv" in formats)
    if {"charts", "html", "md"} & set(formats):
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
    if "xlsx" in formats:
        written.append(spreadsheet.write(result, d / "budget.xlsx"))
    return written
