"""The parts of a report ``tco simulate --format`` can write, and the report folder's name (a
light module: the CLI imports it at start-up)."""

import re

FORMATS = ("json", "csv", "charts", "svg", "html", "md", "xlsx", "focus")  # every part there is
# Written unless --format says otherwise: SVG copies of the charts only when asked for (the PNGs
# are at print resolution; rendering both doubled the charts' share of a run), and the plan as a
# FOCUS bill (focus.csv) for FinOps tools.
DEFAULT_FORMATS = tuple(f for f in FORMATS if f not in ("svg", "focus"))
CHART_DIR = "charts"
MANIFEST = "manifest.json"  # written last: a folder without it is incomplete


def folder_name(scenario_name: str) -> str:
    """A safe folder name for a scenario's report: letters, digits, '.', '_' and '-' only, no
    leading dot, at most 80 characters ('../../x' -> 'x', '/etc' -> 'etc')."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", scenario_name).strip(".-_")
    slug = re.sub(r"-{2,}", "-", slug)[:80].rstrip(".-_")
    return slug or "scenario"
