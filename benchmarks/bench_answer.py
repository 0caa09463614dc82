"""Benchmark: every figure of issue 38's goal table (and 28's before it), each against the SimPy
unit measured in the same run.

The unit is the CPU time of an idiomatic SimPy gang queue (one process per job, the GPUs a
``simpy.Container``) on a fixed 100,000-job workload: 512 GPUs at 80 % load, GPUs per job from
{1, 2, 4, 8, 16, 64} (``bench_scheduler._synthetic``). Every other figure is printed as seconds
and as a multiple of that unit, next to its goal. The machine is shared: read the ratios, which
are taken within one run, not the absolute seconds.

Figures (each in a fresh process, so peak memory is its own):

- ``tco simulate`` with the default odds (100 futures: the decision over them) for lab (every
  format, and ``--format json``), industrial, generations and itp-cluster (``--only answers``;
  ``--skip-itp`` leaves the last out): CPU of every process, and wall;
- ``tco sweep scenarios/lab.yaml -n 1000 --workers 2``: CPU and wall; one lab future's CPU (a
  100-future sweep in this process, over 100);
- the scheduler placing jobs on servers of 8 GPUs against the unit on the same jobs, with its
  start times checked identical to a bare heapq loop (``tests/oracles/placed_heapq.py``), and the
  pool's against ``tests/oracles/heapq_reference.py``;
- an owned option at 10 k, 100 k, 1 M and 5 M drawn jobs: seconds per job and peak memory (the
  scaling table);
- ``tco simulate --format json --odds 0`` on 1 M drawn jobs against the owned scheduler alone
  (its first queue, the base run's) on the same jobs, in the same process;
- one lab replication's CPU, option by option;
- with ``--suite``: the README's test command's pytest run and the fast tier's
  (``-m "not slow"``), CPU seconds (about 9 minutes).

Usage: python benchmarks/bench_answer.py [--futures 1000] [--big 5000000] [--suite]
       [--only answers|replication|schedulers|big] [--skip-itp] [--runs 3]
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


def child_imports() -> dict[str, float]:
    """The modules an owned run loads, and nothing run: the floor of its peak memory."""
    import bench_scheduler  # noqa: F401

    from tco.simulator.run import prepare, simulate  # noqa: F401

    return {}


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
    # 5 M drawn jobs pass the default limits (jobs, and the run's job-plays: a 1 M-job run's
    # advice may play 30 M and more)
    env = {**os.environ, "TCO_MAX_JOBS": "50000000", "TCO_MAX_RUN_JOB_PLAYS": "1000000000"}
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
    """A sweep of ``futures`` futures of the lab in this process (CPU per future), then serial
    and on 2 local workers (wall)."""
    from tco.pricing.book import PriceBook
    from tco.simulator.run import prepare
    from tco.simulator.scenario.model import load_scenario
    from tco.simulator.sweep.run import run_sweep

    book = PriceBook("snapshot")
    prepared = prepare(load_scenario(LAB, book), book, str(LAB))
    run_sweep(prepared, book, 4)  # warm: imports, caches
    t = time.process_time()
    run_sweep(prepared, book, futures)
    out = {"one": (time.process_time() - t) / futures}
    for engine, workers in (("local", 1), ("local", 2)):
        t = time.perf_counter()
        run_sweep(prepared, book, futures, workers=workers, engine=engine)
        out[f"{engine}{workers}"] = time.perf_counter() - t
    return out


def _per_option(streams: int = 20) -> None:
    """One lab job stream's CPU, option by option (each option's play, its ledgers under the
    stream's money draws and its figures), the mean over ``streams`` streams in this process."""
    import collections

    from tco.pricing.book import PriceBook
    from tco.simulator.run import prepare
    from tco.simulator.scenario.model import load_scenario
    from tco.simulator.sweep.design import design
    from tco.simulator.sweep.plays import Bench, Candidate

    book = PriceBook("snapshot").frozen()
    prepared = prepare(load_scenario(LAB, book), book, str(LAB))
    plan = design(prepared, 4 * (streams + 1))
    bench = Bench(prepared, book, plan)
    spent: collections.Counter[str] = collections.Counter()
    options = [Candidate(o.name, i) for i, o in enumerate(prepared.scenario.options)]
    bench.model(1)  # warm: imports, caches
    t = time.process_time()
    for s in range(1, streams + 1):
        model = bench.model(s)
        for c in options:
            t0 = time.process_time()
            model.play(c)
            spent[c.name] += time.process_time() - t0
    whole = (time.process_time() - t) / streams
    print(
        f"  one lab job stream, every option, priced under {plan.m} money draws:"
        f" {whole * 1000:.1f} ms CPU ({whole / plan.m * 1000:.1f} ms a future); by option:"
    )
    for name, sec in spent.most_common():
        print(f"    {name:<28} {sec / streams * 1000:6.1f} ms")


def _row(what: str, seconds: float, unit: float, goal: str, met: bool | None) -> None:
    verdict = "" if met is None else ("met" if met else "NOT MET")
    print(f"  {what:<58} {seconds:8.2f} s {seconds / unit:7.2f}x  {goal:<22} {verdict}")


def _answers(unit: float, futures: int, itp: bool) -> None:
    scenarios = ROOT / "scenarios"
    runs = [("lab", []), ("industrial", []), ("generations", [])] + (
        [("itp-cluster", [])] if itp else []
    )
    with tempfile.TemporaryDirectory() as d:
        wall, cpu = _command(["simulate", str(LAB), "--quiet", "--out", f"{d}/all"])
        _row("lab default (every format), CPU", cpu, unit, "<= 6x", cpu <= 6 * unit)
        _row("  (wall of it)", wall, unit, "", None)
        wall, cpu = _command(["simulate", str(LAB), "--format", "json", "--quiet", "--out", d])
        _row("lab --format json, CPU", cpu, unit, "<= 4x", cpu <= 4 * unit)
        _row("  (wall of it)", wall, unit, "", None)
        for name, extra in runs[1:]:
            path = scenarios / f"{name}.yaml"
            wall, cpu = _command(["simulate", str(path), "--quiet", "--out", f"{d}/{name}", *extra])
            goal = 60 if name == "itp-cluster" else 12
            _row(f"{name} default, CPU", cpu, unit, f"<= {goal}x", cpu <= goal * unit)
            _row("  (wall of it)", wall, unit, "", None)
        wall, cpu = _command(
            ["sweep", str(LAB), "-n", str(futures), "--workers", "2", "--quiet", "--out", f"{d}/s"]
        )
        _row(
            f"lab sweep, {futures:,} futures, 2 workers, CPU", cpu, unit, "<= 50x", cpu <= 50 * unit
        )
        _row("  (wall of it)", wall, unit, "", None)
    r = _replications(100)
    one = r["one"]
    _row(
        "one lab future (a 100-future sweep, serial, / 100), CPU",
        one,
        unit,
        "<= 0.05 s x unit",
        one <= 0.05 * unit,
    )
    print(f"  2 local workers against serial (100 futures, wall): {r['local1'] / r['local2']:.2f}x")


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
    sizes = sorted({10_000, 100_000, 1_000_000, big})
    owned = {size: _child(f"child_owned({size})") for size in sizes}
    floor = _child("child_imports()")["peak_mib"]  # imports alone: what a job does not cost
    for size, o in owned.items():
        per_job = (o["peak_mib"] - floor) * 2**20 / size
        print(
            f"  owned option, {size:>9,} jobs: {o['cpu']:6.1f} s CPU,"
            f" {o['cpu'] / size * 1e6:5.1f} us a job, peak {o['peak_mib']:,.0f} MiB"
            f" ({per_job:,.0f} bytes a job over the imports' {floor:,.0f} MiB; goal at 5 M < 1,024)"
        )
    a, b = (owned[s]["cpu"] / s for s in (1_000_000, sizes[-1]))
    print(f"  time per job at {sizes[-1]:,} / at 1,000,000: {b / a:.2f} (linear: 1.0)")
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
    for what, extra, goal in (
        ("the test suite", [], 600),
        ("the fast tier", ["-m", "not slow"], 120),
    ):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]
        subprocess.run(command, cwd=ROOT, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        print(f"  {what}: {cpu:.0f} s CPU (goal < {goal} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--futures", type=int, default=1000, help="the sweep's futures")
    ap.add_argument("--big", type=int, default=5_000_000, help="jobs on the owned option")
    ap.add_argument("--suite", action="store_true", help="also time the test suite (~8 min)")
    ap.add_argument(
        "--only", choices=["answers", "replication", "schedulers", "big"], help="one part"
    )
    ap.add_argument("--skip-itp", action="store_true", help="leave itp-cluster's run out")
    ap.add_argument("--runs", type=int, default=3, help="runs of the placed scheduler")
    args = ap.parse_args()
    q = _child(f"child_queues({UNIT_JOBS})")
    unit = q["unit"]
    print(
        f"{os.cpu_count()} CPUs. The unit: idiomatic SimPy, {UNIT_JOBS:,} gang jobs: {unit:.2f} s"
    )
    print(f"  its start times equal the heapq reference's: {bool(q['unit_same_as_pool'])}")
    print(f"  {'figure':<58} {'seconds':>10} {'units':>8}  {'goal':<22}")
    if args.only in (None, "answers"):
        _answers(unit, args.futures, not args.skip_itp)
    if args.only in (None, "replication"):
        _per_option()
    if args.only in (None, "schedulers"):
        _schedulers(q, unit)
        for i in range(1, args.runs):  # the placed scheduler's goal holds in every run
            again = _child(f"child_queues({UNIT_JOBS})")
            print(f"  run {i + 1}: unit {again['unit']:.2f} s")
            _schedulers(again, again["unit"])
    if args.only in (None, "big"):
        _big(args.big)
    if args.suite:
        _suite()


if __name__ == "__main__":
    main()
