"""Benchmark: every figure of issue 28's goal table, each against the SimPy unit measured in the
same run.

The unit is the CPU time of an idiomatic SimPy gang queue (one process per job, the GPUs a
``simpy.Container``) on a fixed 100,000-job workload: 512 GPUs at 80 % load, GPUs per job from
{1, 2, 4, 8, 16, 64} (``bench_scheduler._synthetic``). Every other figure is printed as seconds
and as a multiple of that unit, next to its goal. The machine is shared: read the ratios, which
are taken within one run, not the absolute seconds.

Figures (each in a fresh process, so peak memory is its own):

- ``tco simulate scenarios/lab.yaml --format json`` with the default odds (100 futures) and the
  portfolio search, wall on this machine's CPUs; and the default (every format);
- ``tco sweep scenarios/lab.yaml -n 1000 --workers 2``, wall; serial replications per second
  against 1 / (the in-process cost of one replication), and 2 local workers against serial;
- the scheduler placing jobs on servers of 8 GPUs against the unit on the same jobs, with its
  start times checked identical to a bare heapq loop (``tests/oracles/placed_heapq.py``), and the
  pool's against ``tests/oracles/heapq_reference.py``;
- an owned option at 1 M and 5 M drawn jobs: seconds per job and peak memory;
- ``tco simulate --format json --odds 0`` on 1 M drawn jobs against the owned scheduler alone
  (its first queue, the base run's) on the same jobs, in the same process;
- one lab replication's CPU, option by option;
- with ``--suite``: the README's test command's pytest run, CPU seconds (about 8 minutes).

Usage: python benchmarks/bench_answer.py [--futures 1000] [--big 5000000] [--suite]
       [--only answers|replication|schedulers|big]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests/oracles, for the heapq references
sys.path.insert(0, str(ROOT / "benchmarks"))
LAB = ROOT / "scenarios" / "lab.yaml"
UNIT_JOBS = 100_000


def idiomatic_simpy(arrival: np.ndarray, k: np.ndarray, hold: np.ndarray, gpus: int) -> np.ndarray:
    """The textbook SimPy gang queue: a process per job asking a Container for its GPUs. The
    Container serves its requests first come, first served, the head blocking the rest."""
    import simpy

    env = simpy.Environment()
    pool = simpy.Container(env, capacity=gpus, init=gpus)
    start = np.full(len(arrival), np.nan)

    def job(i: int, need: int, h: float):  # type: ignore[no-untyped-def]
        yield pool.get(need)
        start[i] = env.now
        yield env.timeout(h)
        yield pool.put(need)

    def arrivals():  # type: ignore[no-untyped-def]
        for i, (t, need, h) in enumerate(
            zip(arrival.tolist(), k.tolist(), hold.tolist(), strict=True)
        ):
            yield env.timeout(t - env.now)
            env.process(job(i, need, h))

    env.process(arrivals())
    env.run()
    return start


def child_queues(n: int) -> dict[str, float]:
    """The unit, and the model's scheduler on the same jobs: pool and servers of 8."""
    from bench_scheduler import GPUS, _synthetic

    from tco.simulator.cluster.scheduler import QueueInput, simulate
    from tests.oracles.heapq_reference import fifo_heapq
    from tests.oracles.placed_heapq import fifo_placed_heapq

    arrival, k, hold = _synthetic(n)
    out: dict[str, float] = {}
    t = time.process_time()
    unit = idiomatic_simpy(arrival, k, hold, GPUS)
    out["unit"] = time.process_time() - t
    for name, servers, reference in (("pool", 0, fifo_heapq), ("servers", 8, fifo_placed_heapq)):
        inp = QueueInput(arrival, k, hold, [(0.0, GPUS)], float("inf"), server_gpus=servers)
        t = time.process_time()
        start = simulate(inp)
        out[name] = time.process_time() - t
        out[f"{name}_same"] = float(np.array_equal(start, reference(inp), equal_nan=True))
    out["unit_same_as_pool"] = float(np.array_equal(unit, fifo_heapq(inp), equal_nan=True))
    return out


def child_owned(n: int) -> dict[str, float]:
    """One owned option's whole run (draw, speeds, SimPy, ledger) on ``n`` jobs."""
    from bench_scheduler import child_pipeline

    t = time.process_time()
    out = child_pipeline("owned", n)
    out["cpu"] = time.process_time() - t
    return out


def child_json(path: str, out_dir: str) -> dict[str, float]:
    """``tco simulate PATH --format json --odds 0`` in this process, timing the owned
    scheduler's first queue (the base run's) on the way."""
    import tco.simulator.kinds.owned.queue as owned_queue
    from tco.cli import main

    real = owned_queue.simulate_queue
    queues: list[float] = []

    def timed(inp):  # type: ignore[no-untyped-def]
        t = time.process_time()
        q = real(inp)
        queues.append(time.process_time() - t)
        return q

    owned_queue.simulate_queue = timed  # type: ignore[assignment]
    t = time.process_time()
    try:
        main(["simulate", path, "--format", "json", "--odds", "0", "--quiet", "--out", out_dir])
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
    return {"cpu": time.process_time() - t, "queue": queues[0], "queues": float(len(queues))}


def _child(call: str) -> dict[str, float]:
    code = (
        "import json, resource, sys; sys.path.insert(0, 'benchmarks');"
        f"import bench_answer as b; out = b.{call};"
        "out['peak_mib'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024;"
        "print(json.dumps(out))"
    )
    env = {**os.environ, "TCO_MAX_JOBS": "50000000"}  # 5 M drawn jobs pass the default limit
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env
    )
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _command(args: list[str]) -> tuple[float, float]:
    """(wall s, CPU s of it and its children) of one ``tco`` command with the default odds."""
    env = {k: v for k, v in os.environ.items() if k != "TCO_ODDS"}  # the default: 100 futures
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    tco = str(Path(sys.executable).with_name("tco"))
    subprocess.run([tco, *args], check=True, capture_output=True, cwd=ROOT, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def _replications(futures: int) -> dict[str, float]:
    """Serial and 2-worker sweeps of the lab in this process, and one replication's cost."""
    from tco.pricing.book import PriceBook
    from tco.simulator.run import prepare
    from tco.simulator.scenario.model import load_scenario
    from tco.simulator.sweep.known import inputs
    from tco.simulator.sweep.replication import replicate
    from tco.simulator.sweep.run import run_sweep

    book = PriceBook("snapshot")
    prepared = prepare(load_scenario(LAB, book), book, str(LAB))
    found = inputs(prepared)
    replicate(prepared, book, prepared.scenario.seed, 0, found)  # warm: imports, caches
    t = time.perf_counter()
    for i in range(futures):
        replicate(prepared, book, prepared.scenario.seed, i, found)
    one = (time.perf_counter() - t) / futures
    out = {"one": one}
    for engine, workers in (("local", 1), ("local", 2)):
        t = time.perf_counter()
        run_sweep(prepared, book, futures, workers=workers, engine=engine)
        out[f"{engine}{workers}"] = time.perf_counter() - t
    return out


def _per_option(futures: int = 20) -> None:
    """One lab replication's CPU, option by option (each option's play, ledger and metrics),
    the mean over ``futures`` futures in this process."""
    import collections

    from tco.pricing.book import PriceBook
    from tco.simulator.engine import simulate as engine
    from tco.simulator.run import prepare
    from tco.simulator.scenario.model import load_scenario
    from tco.simulator.sweep.known import inputs
    from tco.simulator.sweep.replication import replicate

    book = PriceBook("snapshot")
    prepared = prepare(load_scenario(LAB, book), book, str(LAB))
    found = inputs(prepared)
    spent: collections.Counter[str] = collections.Counter()
    real = engine._play_option

    def timed(p, plan):  # type: ignore[no-untyped-def]
        t = time.process_time()
        out = real(p, plan)
        spent[plan.option.name] += time.process_time() - t
        return out

    engine._play_option = timed  # type: ignore[assignment]
    replicate(prepared, book, prepared.scenario.seed, 0, found)
    spent.clear()
    t = time.process_time()
    for i in range(futures):
        replicate(prepared, book, prepared.scenario.seed, i, found)
    whole = (time.process_time() - t) / futures
    engine._play_option = real  # type: ignore[assignment]
    print(f"  one lab replication: {whole * 1000:.1f} ms CPU; by option:")
    for name, s in spent.most_common():
        print(f"    {name:<28} {s / futures * 1000:6.1f} ms")


def _row(what: str, seconds: float, unit: float, goal: str, met: bool | None) -> None:
    verdict = "" if met is None else ("met" if met else "NOT MET")
    print(f"  {what:<58} {seconds:8.2f} s {seconds / unit:7.2f}x  {goal:<22} {verdict}")


def _answers(unit: float, futures: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        wall, cpu = _command(["simulate", str(LAB), "--format", "json", "--quiet", "--out", d])
        _row(
            "lab --format json, default odds + search (wall)", wall, unit, "<= 4x", wall <= 4 * unit
        )
        _row("  (CPU of it, every process)", cpu, unit, "", None)
        wall, cpu = _command(["simulate", str(LAB), "--quiet", "--out", f"{d}/all"])
        _row("lab, every format (wall)", wall, unit, "<= 6x", wall <= 6 * unit)
        _row("  (CPU of it, every process)", cpu, unit, "", None)
        wall, _ = _command(
            ["sweep", str(LAB), "-n", str(futures), "--workers", "2", "--quiet", "--out", f"{d}/s"]
        )
        _row(
            f"lab sweep, {futures:,} futures, 2 workers (wall)",
            wall,
            unit,
            "<= 25x",
            wall <= 25 * unit,
        )
    m = min(futures, 200)
    r = _replications(m)
    serial, two = r["local1"], r["local2"]
    per_s, ideal = m / serial, 1 / r["one"]
    print(
        f"  serial sweep {per_s:.1f} replications/s; 1 / one replication in-process {ideal:.1f}/s:"
        f" {per_s / ideal:.0%} (goal >= 90 %) {'met' if per_s >= 0.9 * ideal else 'NOT MET'}"
    )
    print(
        f"  2 local workers {m / two:.1f} replications/s: {serial / two:.2f}x serial (goal >= 1.8x)"
        f" {'met' if serial / two >= 1.8 else 'NOT MET'}"
    )


def _schedulers(q: dict[str, float], unit: float) -> None:
    for name in ("pool", "servers"):
        ratio = unit / q[name]
        same = bool(q[f"{name}_same"])
        print(
            f"  scheduler on a {name:<7} {q[name]:6.2f} s: {ratio:.2f}x faster than the unit"
            f" (goal >= {'2.28' if name == 'pool' else '1.9'}x), start times identical to the"
            f" heapq reference: {same}"
        )


def _big(big: int) -> None:
    sizes = sorted({1_000_000, big})
    owned = {size: _child(f"child_owned({size})") for size in sizes}
    for size, o in owned.items():
        print(
            f"  owned option, {size:>9,} jobs: {o['cpu']:6.1f} s CPU,"
            f" {o['cpu'] / size * 1e6:5.1f} us a job, peak {o['peak_mib']:,.0f} MiB (goal < 1,024)"
        )
    if len(sizes) == 2:
        a, b = (owned[s]["cpu"] / s for s in sizes)
        print(f"  time per job at {sizes[1]:,} / at {sizes[0]:,}: {b / a:.2f} (linear: 1.0)")
    import bench_scheduler
    import yaml

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "million.yaml"
        path.write_text(yaml.safe_dump(bench_scheduler.scenario_data(1_000_000, "owned")))
        j = _child(f"child_json({str(path)!r}, {d + '/out'!r})")
    print(
        f"  --format json --odds 0, 1 M jobs: {j['cpu']:.1f} s CPU, the owned scheduler's first"
        f" queue {j['queue']:.1f} s: {j['cpu'] / j['queue']:.2f}x (goal <= 3x;"
        f" {j['queues']:.0f} queues played in all), peak {j['peak_mib']:,.0f} MiB"
    )


def _suite() -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    print(f"  the test suite: {cpu:.0f} s CPU (goal < 600 s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--futures", type=int, default=1000, help="the sweep's futures")
    ap.add_argument("--big", type=int, default=5_000_000, help="jobs on the owned option")
    ap.add_argument("--suite", action="store_true", help="also time the test suite (~8 min)")
    ap.add_argument(
        "--only", choices=["answers", "replication", "schedulers", "big"], help="one part"
    )
    args = ap.parse_args()
    q = _child(f"child_queues({UNIT_JOBS})")
    unit = q["unit"]
    print(
        f"{os.cpu_count()} CPUs. The unit: idiomatic SimPy, {UNIT_JOBS:,} gang jobs: {unit:.2f} s"
    )
    print(f"  its start times equal the heapq reference's: {bool(q['unit_same_as_pool'])}")
    print(f"  {'figure':<58} {'seconds':>10} {'units':>8}  {'goal':<22}")
    if args.only in (None, "answers"):
        _answers(unit, args.futures)
    if args.only in (None, "replication"):
        _per_option()
    if args.only in (None, "schedulers"):
        _schedulers(q, unit)
    if args.only in (None, "big"):
        _big(args.big)
    if args.suite:
        _suite()


if __name__ == "__main__":
    main()
