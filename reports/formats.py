"""The parts of a report ``tco simulate --format`` can write (a light module: the CLI imports it
at start-up)."""

FORMATS = ("json", "csv", "charts", "html", "md", "xlsx")
CHART_DIR = "charts"
