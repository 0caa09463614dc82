"""Benchmark: Monte Carlo sweeps of the lab scenario, serial, on local processes and on Dask.

Prints replications per second for each engine side by side in one run, and the issue's
criterion: ``tco sweep scenarios/lab.yaml -n 200 --workers 2`` (a whole command, start-up
included) against 8x one ``tco simulate scenarios/lab.yaml --format json``.
Usage: python benchmarks/bench_sweep.py [--replications N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "scenarios" / "lab.yaml"
TCO = [sys.executable, "-c", "from tco.cli import main; main()"]


def _wall(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run([*TCO, *args], check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replications", type=int, default=200)
    n = ap.parse_args().replications
    from tco.pricing.book import PriceBook
    from tco.simulator.run import prepare
    from tco.simulator.scenario.model import load_scenario
    from tco.simulator.sweep.run import run_sweep

    book = PriceBook("snapshot")
    prepared = prepare(load_scenario(LAB, book), book, str(LAB))
    print(f"lab scenario, {n} replications, {len(prepared.scenario.uncertain)} uncertain inputs")
    for engine, workers in (("local", 1), ("local", 2), ("dask", 2)):
        t = time.perf_counter()
        run_sweep(prepared, book, n, workers=workers, engine=engine)
        s = time.perf_counter() - t
        print(
            f"  {engine:5} x{workers}: {s:6.2f} s, {n / s:7.1f} replications/s (start-up included)"
        )
    with tempfile.TemporaryDirectory() as d:
        one = _wall(
            [
                "simulate",
                str(LAB),
                "--format",
                "json",
                "--odds",  # one run against the sweep: the answer's own odds are a sweep too
                "0",
                "--quiet",
                "--prices",
                "snapshot",
                "--out",
                f"{d}/one",
            ]
        )
        sweep = _wall(
            ["sweep", str(LAB), "-n", str(n), "--workers", "2", "--quiet", "--out", f"{d}/sweep"]
        )
    print(
        f"  tco simulate --format json: {one:.2f} s; tco sweep -n {n} --workers 2: {sweep:.2f} s"
        f" = {sweep / one:.1f}x (criterion: within 8x)"
    )


if __name__ == "__main__":
    main()
