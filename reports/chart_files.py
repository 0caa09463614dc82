"""Charts to bytes and files: each figure rendered to PNG once (the bytes the HTML embeds and
the file holds), written beside the report, SVG when asked, and freed. The drawing is
``reports.charts``'; this is the edge where it meets the disk."""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib.pyplot as plt

from tco.reports.charts import Chart
from tco.simulator.core.atomic import replacing


def png_bytes(chart: Chart) -> bytes:
    """The chart as PNG bytes (the same bytes ``save`` writes)."""
    buf = io.BytesIO()
    chart.figure.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def close(chart: Chart) -> None:
    """Free the chart's figure."""
    plt.close(chart.figure)


def save(chart: Chart, out_dir: Path, png: bytes, svg: bool = False) -> list[Path]:
    """Write a chart as PNG (already rendered) and, when asked, SVG."""
    out_dir.mkdir(parents=True, exist_ok=True)
    png_path = out_dir / f"{chart.name}.png"
    with replacing(png_path) as tmp:
        tmp.write_bytes(png)
    if not svg:
        return [png_path]
    svg_path = out_dir / f"{chart.name}.svg"
    with replacing(svg_path) as tmp:
        chart.figure.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
    return [png_path, svg_path]
