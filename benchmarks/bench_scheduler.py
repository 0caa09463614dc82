"""Benchmark: the owned-cluster model on 100,000 and 1,000,000 synthetic jobs.

512 GPUs (64 servers of 8), load about 80 %, GPUs per job from {1, 2, 4, 8, 16, 64}. For each
size it prints, in the same run (the machine is shared: compare ratios, not absolute times):

- scheduler: the SimPy FIFO gang scheduler vs a bare heapq loop doing the same (start times are
  checked identical), jobs per second and the ratio; and the same jobs placed on servers of 8
  (first fit, simulator/cluster/placement.py) against the pool; and placed with a refresh's cutover
  half way (every server replaced by one of the same size, jobs 2x faster after it); and EASY
  backfill placed on servers at 110 % load (a queue that only grows: each pass looks at up to
  500 waiting jobs);
- pipeline: the whole run of one owned option (workload draw, speed model, SimPy, cost ledger)
  and of one on-demand option without quota (no events at all), time and peak memory.

Each measurement runs in a fresh process so peak memory (ru_maxrss) is its own.
Usage: python benchmarks/bench_scheduler.py [--sizes 100000 1000000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

# The checkout's root, for the heapq reference in tests/oracles/ (run from anywhere).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GPUS = 512
SIZES_K = [1, 2, 4, 8, 16, 64]
WEIGHTS = [0.4, 0.2, 0.15, 0.15, 0.07, 0.03]
MEAN_WORK_GPU_H = 20.0  # exponential, total over the job's GPUs
LOAD = 0.8


def _synthetic(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(12345)
    k = rng.choice(SIZES_K, n, p=WEIGHTS)
    hold = rng.exponential(MEAN_WORK_GPU_H, n) / k
    lam = LOAD * GPUS / MEAN_WORK_GPU_H
    arrival = np.cumsum(rng.exponential(1 / lam, n))
    return arrival, k, hold


def child_scheduler(kind: str, n: int) -> dict[str, float]:
    from tco.simulator.cluster.scheduler import Cutover, QueueInput, simulate
    from tests.oracles.heapq_reference import fifo_heapq

    arrival, k, hold = _synthetic(n)
    servers = 8 if kind in ("servers", "cutover", "backfill") else 0  # servers of 8 GPUs
    policy = "backfill" if kind == "backfill" else "fifo"
    if kind == "backfill":
        hold = hold * 1.1 / LOAD  # overloaded: the queue grows to the horizon
    horizon = float(arrival[-1]) + 1e6 if kind == "cutover" else float("inf")
    cut = Cutover(float(arrival[n // 2]), GPUS, 8, hold / 2) if kind == "cutover" else None
    inp = QueueInput(
        arrival, k, hold, [(0.0, GPUS)], horizon, server_gpus=servers, cutover=cut, policy=policy
    )
    t0 = time.perf_counter()
    start = fifo_heapq(inp) if kind == "heapq" else simulate(inp)
    dt = time.perf_counter() - t0
    digest = float(np.nansum(start))
    return {"seconds": dt, "checksum": digest, "started": float(np.isfinite(start).sum())}


def _scenario(n: int, kind: str):  # type: ignore[no-untyped-def]
    from tco.simulator.scenario.model import validate

    return validate(scenario_data(n, kind), "<bench>")


def scenario_data(n: int, kind: str) -> dict[str, object]:
    """A scenario drawing about ``n`` jobs of the synthetic mix, on one owned or rented option
    (512 GPUs, doubled until the jobs arrive within 60 months)."""
    gpus = GPUS
    while n / (LOAD * gpus / MEAN_WORK_GPU_H * 730.0) > 60:  # a scenario holds 120 months at
        gpus *= 2  # most: more jobs come from a larger cluster at the same load
    per_hour = LOAD * gpus / MEAN_WORK_GPU_H
    months = int(np.ceil(n / (per_hour * 730.0)))
    option = (
        {"name": "own", "kind": "owned", "server": "HGX H100 8-GPU", "servers": gpus // 8}
        if kind == "owned"
        else {"name": "od", "kind": "on_demand", "instance_type": "p5.48xlarge"}
    )
    return {
        "name": "bench",
        "start": "2027-01",
        "horizon_months": months,
        "seed": 1,
        "workload": {
            "job_classes": [
                {
                    "name": "synthetic",
                    "arrivals_per_month": per_hour * 730.0,
                    "gpus": {"choices": SIZES_K, "weights": WEIGHTS},
                    "work": {
                        "reference_gpu": "H100 SXM",
                        "gpu_hours": MEAN_WORK_GPU_H,
                        "distribution": "exponential",
                    },
                    "comm_share": 0.0,
                }
            ]
        },
        "options": [option],
    }


def child_pipeline(kind: str, n: int) -> dict[str, float]:
    from tco.simulator.run import prepare, simulate

    sc = _scenario(n, kind)
    t0 = time.perf_counter()
    r = simulate(prepare(sc), advise=False)  # the option's own run: no advice, no odds
    dt = time.perf_counter() - t0
    o = r.options[0]
    return {
        "seconds": dt,
        "jobs": float(len(r.jobs)),
        "utilisation": o.gpu_utilisation,
        "p95_wait_h": o.waits.p95_h,
    }


def _in_child(what: str, kind: str, n: int) -> dict[str, float]:
    code = (
        f"import json, resource, sys; sys.path.insert(0, 'benchmarks');"
        f"import bench_scheduler as b; out = b.child_{what}({kind!r}, {n});"
        f"out['peak_mib'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024;"
        f"print(json.dumps(out))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    args = ap.parse_args()
    print(f"{GPUS} GPUs, load {LOAD:.0%}, GPUs/job {SIZES_K} weights {WEIGHTS}")
    for n in args.sizes:
        s = _in_child("scheduler", "simpy", n)
        h = _in_child("scheduler", "heapq", n)
        same = s["checksum"] == h["checksum"] and s["started"] == h["started"]
        print(f"\n{n:,} jobs")
        print(
            f"  scheduler  SimPy {n / s['seconds']:>10,.0f} jobs/s ({s['seconds']:.2f} s, "
            f"{s['peak_mib']:.0f} MiB)  heapq {n / h['seconds']:>10,.0f} jobs/s "
            f"({h['seconds']:.2f} s)  heapq/SimPy {s['seconds'] / h['seconds']:.1f}x  "
            f"identical starts: {same}"
        )
        v = _in_child("scheduler", "servers", n)
        print(
            f"  scheduler  SimPy placed on servers of 8 {n / v['seconds']:>10,.0f} jobs/s "
            f"({v['seconds']:.2f} s)  servers/pool {v['seconds'] / s['seconds']:.1f}x"
        )
        c = _in_child("scheduler", "cutover", n)
        print(
            f"  scheduler  SimPy placed, cutover half way {n / c['seconds']:>10,.0f} jobs/s "
            f"({c['seconds']:.2f} s)  cutover/servers {c['seconds'] / v['seconds']:.2f}x"
        )
        b = _in_child("scheduler", "backfill", n)
        print(
            f"  scheduler  SimPy placed, backfill at 110 % load {n / b['seconds']:>10,.0f} jobs/s"
            f" ({b['seconds']:.2f} s)  backfill/servers {b['seconds'] / v['seconds']:.2f}x"
        )
        for kind in ("owned", "on_demand"):
            p = _in_child("pipeline", kind, n)
            print(
                f"  pipeline   {kind:<9} {p['jobs']:>9,.0f} jobs in {p['seconds']:.2f} s "
                f"({p['jobs'] / p['seconds']:,.0f} jobs/s), peak {p['peak_mib']:.0f} MiB, "
                f"utilisation {p['utilisation']:.0%}, p95 wait {p['p95_wait_h']:.1f} h"
            )


if __name__ == "__main__":
    main()
