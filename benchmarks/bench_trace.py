"""Benchmark: the whole ITP trace (69,351 jobs) against four options, end to end.

Owned cluster (80 DGX A100 = 640 GPUs, EASY backfill by default), p4d on demand, a p4d Savings
Plan and bare metal; the run includes reading the trace, the simulation, the cost ledgers and the
report data (summary.json document, monthly and per-job tables). Prints the time of each stage
and of each option, and the peak memory of the process.
Usage: python benchmarks/bench_trace.py [--scheduler fifo|backfill]
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def scenario_data(scheduler: str) -> dict[str, Any]:
    """The benchmark scenario: the whole trace for 3 months against four options."""
    return {
        "name": "itp-all",
        "start": "2027-01",
        "horizon_months": 3,
        "seed": 1,
        "workload": {
            "trace": {
                "file": str(ROOT / "scenarios/traces/itp_elasticflow_2021.csv.gz"),
                "source_gpu": "V100 SXM2 32GB",
                "source_intra_node": "nvlink_v100",
                "memory_gb": 16,
            }
        },
        "options": [
            {
                "name": "owned",
                "kind": "owned",
                "server": "DGX A100 320GB",
                "servers": 80,
                "scheduler": scheduler,
            },
            {"name": "on-demand", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
            {
                "name": "savings-plan",
                "kind": "savings_plan",
                "instance_type": "p4d.24xlarge",
                "commitment_instances": 60,
                "discount": 0.4,
                "rate_source": "founding brief",
            },
            {
                "name": "bare-metal",
                "kind": "bare_metal",
                "instance": {
                    "gpu": "A100 SXM 80GB",
                    "gpus": 8,
                    "usd_per_hour": 32.0,
                    "price_source": "Oracle A100 80GB $4/GPU-h (Epoch)",
                    "price_as_of": "2025-03-17",
                },
            },
        ],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scheduler", choices=["fifo", "backfill"], default="backfill")
    args = ap.parse_args()
    t0 = time.perf_counter()
    from tco.reports import summary
    from tco.simulator.run import OddsRun, prepare, simulate
    from tco.simulator.scenario.model import validate

    file = str(ROOT / "benchmarks" / "itp-all.yaml")
    scenario = validate(scenario_data(args.scheduler), file)
    t_import = time.perf_counter() - t0
    t1 = time.perf_counter()
    prepared = prepare(scenario, file=file)
    t_prepare = time.perf_counter() - t1
    marks: list[tuple[str, float]] = []
    t2 = time.perf_counter()
    result = simulate(
        prepared,
        progress=lambda name: marks.append((name, time.perf_counter())),
        odds=OddsRun(futures=0),  # the trace's phases; the odds are bench_optimize's
    )
    t_run = time.perf_counter() - t2
    t3 = time.perf_counter()
    doc = summary.to_summary(result)
    monthly = result.monthly_frame()
    jobs = [result.jobs_frame(o.name) for o in result.options]
    t_report = time.perf_counter() - t3
    total = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(result.jobs):,} jobs, {len(result.options)} options, scheduler {args.scheduler}")
    print(f"  imports + validation {t_import:.2f} s")
    print(f"  prepare (prices, trace read, job stream) {t_prepare:.2f} s")
    ends = [t for _, t in marks[1:]] + [t2 + t_run]
    for (name, start), end in zip(marks, ends, strict=True):
        o = result.option(name)
        print(
            f"  {name:<13} {end - start:6.2f} s  (simulation + costs)"
            f"  total ${o.total_cash_usd:,.0f}"
            f"  utilisation {o.gpu_utilisation:.0%}  p95 wait {o.waits.p95_h:,.1f} h"
        )
    print(
        f"  report data  {t_report:6.2f} s  ({len(doc['options'])} options, {len(monthly):,}"
        f" ledger rows, {sum(len(j) for j in jobs):,} job rows)"
    )
    print(f"  end to end   {total:6.2f} s, peak memory {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
