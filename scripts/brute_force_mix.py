"""A mix's configurations played on every job stream of the decision's design, to hold the
search's answer against (issue 50): a grid of sizes x waits (the robust search's waits, k x L/8
from 0 to 2L), each configuration played on all K streams of the futures the decision draws,
judged by the same rule (meets the level on at least ceil(confidence x K) streams; the least mean
cash over the futures). Prints the grid's best, each size's cheapest meeting wait, and whether
cost falls monotonically with the wait on each stream.

    python scripts/brute_force_mix.py scenarios/itp-cluster.yaml --sizes 5-11 --workers 2

Slow by design (every configuration on every stream): itp-cluster's 7 sizes x 17 waits x 25
streams are about 3,000 plays of 42,000 jobs, tens of minutes on two cores.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.advice import portfolio as mixes
from tco.simulator.advice.robust import wait_grid
from tco.simulator.engine.simulate import simulate_options
from tco.simulator.engine.verdicts import needed
from tco.simulator.run import load_file, prepare
from tco.simulator.sweep.design import design
from tco.simulator.sweep.plays import Bench, Candidate, Task, play_task
from tco.simulator.sweep.runner import open_runner


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("--sizes", default="", help="a range, e.g. 5-11 (default: the best -3..+3)")
    ap.add_argument("--futures", type=int, default=100)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--mix", default="", help="the mix's name (default: the cheapest found)")
    args = ap.parse_args()

    t0 = time.process_time()
    book = PriceBook("snapshot")
    sc, digest = load_file(args.scenario, book)
    prepared = prepare(sc, book, args.scenario, digest)
    frozen = book.frozen()
    base = simulate_options(prepared)
    found = mixes.search(prepared, frozen, base)
    pick = next(
        (p for p in found.portfolios if not args.mix or p.option.name == args.mix),
        None,
    )
    if pick is None:
        raise SystemExit("no mix found")
    mixer = found.mixers[pick.option.name]
    plan = design(prepared, args.futures)
    level = sc.service_level
    need = needed(plan.k, level.confidence)
    grid = wait_grid(level.allowed_h)
    if args.sizes:
        lo, hi = (int(x) for x in args.sizes.split("-"))
    else:
        lo, hi = max(mixer.floor + 1, pick.size - 3), min(mixer.limit, pick.size + 3)
    configs = []
    for n in range(lo, hi + 1):
        for w in grid:
            try:
                option = mixer.option(n, w, pick.fitted, pick.order_month)
            except ValueError:
                continue
            configs.append(((n, w), Candidate(f"{n} x {w:g} h", None, option)))
    print(
        f"{pick.option.name}: base stream's best {pick.size} at {pick.wait_h:g} h;"
        f" {len(configs)} configurations x {plan.k} streams x {plan.m} money draws"
        f" (need {need} of {plan.k} streams)"
    )
    bench = Bench(prepared, frozen, plan)
    tasks = [Task(s, tuple(c for _, c in configs)) for s in range(plan.k)]
    cash = np.zeros((len(configs), plan.k))
    meets = np.zeros((len(configs), plan.k), dtype=bool)
    with open_runner(bench, play_task, args.workers, "local", None, label="grid") as runner:
        for t, outcomes in runner.map(tasks, None):
            for i, o in enumerate(outcomes):
                cash[i, t] = o.mean_cash
                meets[i, t] = o.meets
    report(configs, cash, meets, need, lo, hi)
    print(f"CPU {time.process_time() - t0:,.0f} s (this process)")
    np.savez("/tmp/brute_force_mix.npz", cash=cash, meets=meets)


def report(
    configs: list[tuple[tuple[int, float], Candidate]],
    cash: np.ndarray,
    meets: np.ndarray,
    need: int,
    lo: int,
    hi: int,
) -> None:
    """The grid's best ten, each size's cheapest and longest meeting waits, and how often a
    longer wait costs more on a stream."""
    k = cash.shape[1]
    ok = meets.sum(axis=1) >= need
    mean = cash.mean(axis=1)
    order = np.argsort(np.where(ok, mean, np.inf))
    print("size  wait_h  streams_met  mean_cash_usd")
    for i in order[:10]:
        (n, w), _ = configs[i]
        print(f"{n:4d}  {w:6g}  {int(meets[i].sum()):3d}/{k}  {mean[i]:14,.0f}")
    best = order[0]
    print(f"brute-force best: {configs[best][0]} at ${mean[best]:,.0f} (meets: {bool(ok[best])})")
    for n in range(lo, hi + 1):
        rows = [i for i, ((m, _), _) in enumerate(configs) if m == n]
        good = [i for i in rows if ok[i]]
        if good:
            j = min(good, key=lambda i: mean[i])
            longest = max(good, key=lambda i: configs[i][0][1])
            print(
                f"size {n}: cheapest meeting wait {configs[j][0][1]:g} h (${mean[j]:,.0f}),"
                f" longest meeting wait {configs[longest][0][1]:g} h (${mean[longest]:,.0f})"
            )
        up = sum(
            any(b > a * (1 + 1e-6) for a, b in itertools.pairwise([cash[i, s] for i in rows]))
            for s in range(k)
        )
        print(f"size {n}: a longer wait costs more somewhere on {up} of {k} streams")


if __name__ == "__main__":
    main()
