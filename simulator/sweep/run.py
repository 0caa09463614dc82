"""Monte Carlo sweeps: the scenario replayed over many futures drawn from its ``uncertain:`` block.

Replication ``i`` takes the random stream ``SeedSequence(seed, spawn_key=(i,))`` (what
``SeedSequence(seed).spawn(n)[i]`` is), split in two: one draws the uncertain inputs, the other
seeds that replication's job stream. So a replication's numbers depend only on the scenario, the
seed and ``i``: the same on one process, several, or a Dask cluster, in any order.

Built on the staged run: the scenario is prepared once (prices resolved, trace read); a
replication changes only what its draws touch (a scenario number: the scenario is re-validated,
its plans re-resolved from the prices already fetched, its jobs drawn again; a price group: the
ledgers are scaled, costs being linear in prices) and sends back a compact record per option.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from tco.pricing.book import PriceBook
from tco.simulator.engine.prepared import Prepared
from tco.simulator.sweep.replication import Replication, replicate_batch

ENGINES = ("local", "dask")


def batches(n: int, workers: int, engine: str) -> list[list[int]]:
    """Replication indices cut into tasks: about four per worker, tens each on Dask."""
    size = max(1, math.ceil(n / (4 * workers)))
    if engine == "dask":
        size = max(size, min(25, n))
    return [list(range(i, min(n, i + size))) for i in range(0, n, size)]


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
    """Every replication, in index order. ``progress`` is called with the count done so far;
    ``meanwhile`` once in this process, while local worker processes play the futures (with
    one worker, or on Dask, before them)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; valid: {', '.join(ENGINES)}")
    seed = base.scenario.seed if seed is None else seed
    frozen = book.frozen()
    tasks = batches(replications, workers, engine)
    if engine == "dask":
        from tco.simulator.sweep.dask import run_on_dask

        chunks: Iterator[list[Replication]] = run_on_dask(
            base, frozen, seed, tasks, workers, scheduler
        )
    elif workers > 1:
        from tco.simulator.sweep.local import run_on_processes

        chunks = run_on_processes(base, frozen, seed, tasks, workers)
    else:
        chunks = (replicate_batch(base, frozen, seed, t) for t in tasks)
    if meanwhile is not None and (engine == "dask" or workers <= 1):
        meanwhile()  # nothing runs beside this process: first what it asked, then the futures
        meanwhile = None
    out: list[Replication] = []
    for chunk in chunks:
        if meanwhile is not None:  # the first chunk of local workers: their batches are out
            meanwhile()
            meanwhile = None
        out += chunk
        if progress is not None:
            progress(len(out))
    return sorted(out, key=lambda r: r.index)
