"""Benchmark: the searches behind an answer, on the lab, industrial and itp-cluster scenarios.

For each scenario, in the same run (CPU seconds of this process; compare ratios, not absolute
times, on a shared machine):
- the options' own searches (``tco optimize`` before 0.9.0: each kind's knobs), configurations
  and CPU seconds, and the best;
- the portfolio search (0.9.0: mixes of the listed options), plays and CPU seconds, and the best;
- the whole advised run (``tco simulate`` without files) with the portfolio search and with
  ``search: none``, and their ratio: what the search adds to an answer.
Usage: python benchmarks/bench_optimize.py [lab industrial itp-cluster]
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _cpu(f: Callable[..., Any], *args: Any, **kw: Any) -> tuple[Any, float]:
    t = time.process_time()
    out = f(*args, **kw)
    return out, time.process_time() - t


def main() -> None:
    from tco.pricing.book import PriceBook
    from tco.simulator.advice import portfolio
    from tco.simulator.advice.optimize import best, optimize
    from tco.simulator.run import OddsRun, prepare, simulate
    from tco.simulator.scenario.model import load_scenario

    names = sys.argv[1:] or ["lab", "industrial", "itp-cluster"]
    os.chdir(ROOT / "scenarios")  # the ITP trace is named relative to its scenario
    for name in names:
        path = f"{name}.yaml"
        book = PriceBook("snapshot")
        sc = load_scenario(path, book)
        prepared = prepare(sc, book, path)
        configs, own_s = _cpu(optimize, prepared, book)
        found, mix_s = _cpu(portfolio.search, prepared, book)
        b, m = best(configs), found.best()
        print(f"{name}: {len(prepared.jobs):,} jobs")
        print(
            f"  options' own searches: {len(configs)} configurations, {own_s:.2f} s CPU; best:"
            f" {'none' if b is None else f'{b.option} ${b.cash_usd:,.0f}'}"
        )
        print(
            f"  portfolio search:      {found.evaluations} plays, {mix_s:.2f} s CPU; best:"
            f" {'none' if m is None else f'{m.option.name} ${m.config.cash_usd:,.0f}'}"
        )
        none = prepare(sc.model_copy(update={"search": "none"}), book, path)
        no_odds = OddsRun(futures=0)
        r, with_s = _cpu(simulate, prepared, book=book, odds=no_odds)
        _, without_s = _cpu(simulate, none, book=book, odds=no_odds)
        print(
            f"  advised run: {with_s:.2f} s CPU with the search, {without_s:.2f} s with search:"
            f" none, ratio {with_s / without_s:.2f}; recommended {r.recommendation.option}"
        )
        # The odds in one process (process_time does not see worker processes).
        n = sc.odds.count()
        r, odds_s = _cpu(simulate, prepared, book=book, odds=OddsRun(futures=n, workers=1))
        o = r.recommendation.odds
        print(
            f"  with the odds ({n} futures, one process): {odds_s:.2f} s CPU, ratio"
            f" {odds_s / with_s:.2f} to the advised run without them;"
            f" {(odds_s - with_s) / max(n, 1):.3f} s a future"
            + ("" if o is None else f"; best in {o.chosen.probability_best:.0%}")
        )


if __name__ == "__main__":
    main()
