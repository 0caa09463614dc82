"""Monte Carlo sweeps: the scenario replayed over futures drawn from its uncertain inputs, as a
nested design (``sweep.design``): K job streams, each played once per option, priced under M
money draws.

The design is drawn from the scenario's seed alone, so a future's numbers depend only on the
scenario, the seed and the number of futures asked for: the same on one process, several, or a
Dask cluster, in any order. The scenario is prepared once (prices resolved, trace read); a stream
changes only what its draws touch (the scenario validated again, its plans resolved again from
the prices already fetched, its jobs drawn again); a money draw prices the stream's runs again.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from tco.pricing.book import PriceBook
from tco.simulator.engine.prepared import Prepared
from tco.simulator.sweep.design import design
from tco.simulator.sweep.plays import Bench
from tco.simulator.sweep.replication import Replication, replicate_streams
from tco.simulator.sweep.runner import ENGINES, open_runner

__all__ = ["ENGINES", "batches", "run_sweep"]


def batches(n: int, workers: int, engine: str) -> list[list[int]]:
    """Stream indices cut into tasks: about four per worker, several each on Dask."""
    size = max(1, math.ceil(n / (4 * workers)))
    if engine == "dask":
        size = max(size, min(6, n))
    return [list(range(i, min(n, i + size))) for i in range(0, n, size)]


def sweep_batch(bench: Bench, streams: list[int]) -> list[Replication]:
    """A runner's batch: the futures of some streams."""
    return replicate_streams(bench, streams)


def run_sweep(
    base: Prepared,
    book: PriceBook,
    replications: int,
    seed: int | None = None,
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    progress: Callable[[int], None] | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> list[Replication]:
    """Every future of a design of at least ``replications`` futures, in order. ``progress`` is
    called with the count done so far; ``meanwhile`` once in this process, while local worker
    processes play the futures (with one worker, or on Dask, before them)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; valid: {', '.join(ENGINES)}")
    if seed is not None:
        base = base.with_seed(seed)
    frozen = book.frozen()
    found = design(base, replications)
    bench = Bench(base, frozen, found)
    tasks = batches(found.k, workers, engine)
    out: list[Replication] = []
    with open_runner(bench, sweep_batch, workers, engine, scheduler) as runner:
        for _, chunk in runner.map(tasks, meanwhile):
            out += chunk
            if progress is not None:
                progress(len(out))
    return sorted(out, key=lambda r: r.index)
