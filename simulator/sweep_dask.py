"""The Dask engine of a sweep: batches of replications as tasks on ``dask.distributed``, on a
``LocalCluster`` of worker processes, or on a running cluster at a scheduler address. The
prepared model is scattered to every worker once; only compact replication records come back."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from tco.pricing.book import PriceBook
from tco.simulator.replication import Replication, replicate_batch
from tco.simulator.run import Prepared


def run_on_dask(
    base: Prepared,
    book: PriceBook,
    seed: int,
    tasks: list[list[int]],
    workers: int,
    scheduler: str | None,
) -> Iterator[list[Replication]]:
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
    client = Client(cluster if cluster is not None else scheduler)
    try:
        shared = client.scatter((base, book), broadcast=True)
        futures = [
            client.submit(_batch, shared, seed, t, pure=False, key=f"tco-sweep-{t[0]}")
            for t in tasks
        ]
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _batch(shared: tuple[Prepared, PriceBook], seed: int, indices: list[int]) -> list[Replication]:
    return replicate_batch(shared[0], shared[1], seed, indices)
