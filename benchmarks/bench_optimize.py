"""Benchmark: tco optimize on the lab and industrial scenarios: configurations evaluated and
seconds (search only, then the whole command with start-up and files).
Usage: python benchmarks/bench_optimize.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    from tco.pricing.book import PriceBook
    from tco.simulator.advice.optimize import best, optimize
    from tco.simulator.run import prepare
    from tco.simulator.scenario.model import load_scenario

    for name in ("lab", "industrial"):
        path = ROOT / "scenarios" / f"{name}.yaml"
        book = PriceBook("snapshot")
        prepared = prepare(load_scenario(path, book), book, str(path))
        t = time.perf_counter()
        configs = optimize(prepared, book)
        search = time.perf_counter() - t
        with tempfile.TemporaryDirectory() as d:
            t = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "from tco.cli import main; main()",
                    "optimize",
                    str(path),
                    "--out",
                    d,
                    "--quiet",
                ],
                check=True,
            )
            whole = time.perf_counter() - t
        b = best(configs)
        answer = "none meets the level" if b is None else f"{b.option} {b.knobs} ${b.cash_usd:,.0f}"
        print(
            f"{name}: {len(configs)} configurations, search {search:.2f} s, command"
            f" {whole:.2f} s; best: {answer}"
        )


if __name__ == "__main__":
    main()
