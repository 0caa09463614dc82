"""Benchmark: start-up of the CLI, and what each part of a lab report costs to write.

Start-up: `tco --version` and `tco --help` against `python -c "import click"` (the floor any
click program pays), the median of repeated runs; the target is within 4x of click.
Report: the lab scenario simulated once, then each part of its report written on its own
(charts, HTML, Markdown, xlsx, json+csv), seconds and share of the whole.

The machine is shared: compare the ratios within one run, not absolute times.
Usage: python benchmarks/bench_reports.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _median_s(cmd: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def startup(repeat: int) -> None:
    tco = str(Path(sys.executable).with_name("tco"))
    floor = _median_s([sys.executable, "-c", "import click"], repeat)
    print(f"{'command':<28} {'median s':>9} {'x click':>8}")
    print(f"{'python -c import click':<28} {floor:9.3f} {1:8.2f}")
    for args in (["--version"], ["--help"]):
        s = _median_s([tco, *args], repeat)
        print(f"{'tco ' + ' '.join(args):<28} {s:9.3f} {s / floor:8.2f}")


def report_parts() -> None:
    import tco

    t = time.perf_counter()
    result = tco.run_file(ROOT / "scenarios" / "lab.yaml")
    sim = time.perf_counter() - t
    parts = [("charts",), ("html",), ("md",), ("xlsx",), ("json", "csv")]
    rows = []
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        tco.write_report(result, Path(d) / "default")  # what `tco simulate` writes
        default = time.perf_counter() - t
        for formats in parts:
            t = time.perf_counter()
            tco.write_report(result, Path(d) / "+".join(formats), formats=formats)
            rows.append(("+".join(formats), time.perf_counter() - t))
    total = sim + default
    charts = dict(rows)["charts"]
    print(f"\n{'lab run (tco simulate)':<28} {'s':>9} {'share':>8}")
    print(f"{'simulate (with advice)':<28} {sim:9.3f} {sim / total:8.0%}")
    print(f"{'every report file':<28} {default:9.3f} {default / total:8.0%}")
    print(f"{'  of which charts':<28} {charts:9.3f} {charts / total:8.0%}")
    print(f"\n{'each part alone':<28} {'s':>9}")
    for name, s in rows:
        print(f"{name:<28} {s:9.3f}")
    print("(alone, html and md each render the charts: the run renders them once for all)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    a = p.parse_args()
    startup(a.repeat)
    report_parts()


if __name__ == "__main__":
    main()
