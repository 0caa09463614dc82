"""Benchmark: the cloud kinds on one synthetic job stream, in one process, same run.

Times the play and ledger of one option at a time on the same jobs (drawn once), and prints
seconds, jobs per second and the ratio to one on-demand instance type (no events at all):

- on-demand, one type (p4d.24xlarge);
- on-demand, a fleet of six types (each job priced on every type);
- on-demand, the fleet with shared instances (small jobs packed, a heapq loop per type);
- spot over the fleet (a renewal process per job, interruptions from the Spot Advisor);
- spot over the fleet at 30 interruptions per instance-month (about one a day).

The machine is shared: compare the ratios within one run, not absolute times.
Usage: python benchmarks/bench_cloud.py [--jobs 100000]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

FLEET = ["g5.xlarge", "g6.xlarge", "g6e.xlarge", "g5.12xlarge", "g6e.48xlarge", "p4d.24xlarge"]
OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("on-demand, 1 type", {"kind": "on_demand", "instance_type": "p4d.24xlarge"}),
    ("on-demand, fleet of 6", {"kind": "on_demand", "instance_types": FLEET}),
    (
        "shared, fleet of 6",
        {"kind": "on_demand", "instance_types": FLEET, "shared_instances": True},
    ),
    ("spot, fleet of 6", {"kind": "spot", "instance_types": FLEET}),
    (
        "spot, 30/instance-month",
        {"kind": "spot", "instance_types": FLEET, "interruptions_per_instance_month": 30.0},
    ),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=100_000)
    n = ap.parse_args().jobs
    from tco.pricing.book import PriceBook
    from tco.simulator.engine.prepared import option_rng
    from tco.simulator.kinds import costing, registry
    from tco.simulator.run import prepare
    from tco.simulator.scenario.model import validate

    months = 12
    per_month = n / months
    classes = [
        {
            "name": "ft",
            "arrivals_per_month": 0.85 * per_month,
            "gpus": 1,
            "memory_gb": 16,
            "work": {"reference_gpu": "V100 SXM2 32GB", "gpu_hours": 10},
        },
        {
            "name": "ddp",
            "arrivals_per_month": 0.15 * per_month,
            "gpus": {"choices": [2, 4, 8]},
            "memory_gb": 30,
            "work": {"reference_gpu": "V100 SXM2 32GB", "gpu_hours": 150},
        },
    ]
    sc = validate(
        {
            "name": "bench",
            "start": "2027-01",
            "horizon_months": months,
            "seed": 1,
            "workload": {"job_classes": classes},
            "options": [{"name": name, **o} for name, o in OPTIONS],
        },
        "<bench>",
    )
    prepared = prepare(sc, PriceBook(mode="snapshot"))
    print(f"{len(prepared.jobs):,} jobs over {months} months")
    base = None
    for plan in prepared.plans:
        kind = registry.of(plan.option)
        rng = option_rng(1, plan.option.name, "play")
        t0 = time.perf_counter()
        runs = kind.play(prepared.jobs, plan, prepared.horizon_h, rng)
        led = costing.costs(plan, runs, prepared.edges)
        dt = time.perf_counter() - t0
        base = base or dt
        print(
            f"{plan.option.name:26s} {dt:7.3f} s  {len(prepared.jobs) / dt:>10,.0f} jobs/s"
            f"  x{dt / base:5.1f}  cash ${led.cash_total().sum():,.0f}"
        )


if __name__ == "__main__":
    main()
