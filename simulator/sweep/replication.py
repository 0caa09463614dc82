"""One replication of a sweep: a future drawn from the scenario's uncertain inputs, simulated on
the prepared model, and the compact record per option that travels back (see
``sweep.run`` for how replications are seeded and run)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tco.pricing.book import PriceBook
from tco.simulator.core.errors import ScenarioError
from tco.simulator.costs import ledger
from tco.simulator.costs.finance import npv
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.result import OptionResult
from tco.simulator.engine.simulate import revised, simulate_options
from tco.simulator.scenario.uncertainty import price_groups, set_path
from tco.simulator.sweep.known import Input, inputs


@dataclass(frozen=True)
class OptionDraw:
    """One option in one replication (USD, hours, fractions; cumulative cash per month)."""

    name: str
    cash_usd: float
    npv_usd: float
    p95_wait_h: float
    p95_delay_h: float
    cannot_run_share: float
    meets_service_level: bool
    cumulative_cash_usd: tuple[float, ...]


@dataclass(frozen=True)
class Replication:
    """One future: its index, its job stream's seed, the inputs drawn, and every option."""

    index: int
    seed: int
    inputs: dict[str, float | str]
    options: tuple[OptionDraw, ...]


def streams(seed: int, index: int) -> tuple[np.random.Generator, int]:
    """(generator for the inputs, seed of the job stream) of replication ``index``."""
    inputs, jobs = np.random.SeedSequence(seed, spawn_key=(index,)).spawn(2)
    return np.random.default_rng(inputs), int(jobs.generate_state(1, dtype=np.uint32)[0])


def _prepared_for(base: Prepared, book: PriceBook, draws: dict[str, Any], seed: int) -> Prepared:
    paths = {p: v for p, v in draws.items() if not p.startswith("prices.")}
    if not paths:
        return base.with_seed(seed)

    def drawn(data: dict[str, Any]) -> None:
        data["seed"] = seed
        for path, value in paths.items():
            if path.startswith("speed."):  # a GPU's speed: the market's multiplier of it
                market = data.setdefault("market", {})
                market.setdefault("speed_scale", {})[path.removeprefix("speed.")] = value
            else:
                set_path(data, path, value)

    try:
        return revised(base, book, drawn)
    except ScenarioError as exc:
        drawn_text = ", ".join(f"{p} = {v!r}" for p, v in paths.items())
        msg = f"a draw ({drawn_text}) is invalid: {exc}"
        raise ScenarioError(base.file, "uncertain", msg) from None


def _draw(
    o: OptionResult, meets: bool, multipliers: dict[str, float], prepared: Prepared
) -> OptionDraw:
    monthly = ledger.scaled(o.ledger.cash, multipliers)
    if not o.ledger.cash:
        monthly = np.zeros(len(prepared.months))
    return OptionDraw(
        name=o.name,
        cash_usd=float(monthly.sum()),
        npv_usd=npv(prepared.scenario.discount_rate, monthly),
        p95_wait_h=o.metrics.waits.p95_h,
        p95_delay_h=o.metrics.delays.p95_h,
        cannot_run_share=o.metrics.work.cannot_run_share,
        meets_service_level=meets,
        cumulative_cash_usd=tuple(np.cumsum(monthly).tolist()),
    )


def replicate(
    base: Prepared,
    book: PriceBook,
    seed: int,
    index: int,
    drawn_from: Sequence[Input] | None = None,
) -> Replication:
    """Replication ``index`` of a sweep rooted at ``seed`` (``drawn_from``: its inputs, by
    default ``sweep.known.inputs(base)``; drawn in that order)."""
    rng, job_seed = streams(seed, index)
    found = inputs(base) if drawn_from is None else drawn_from
    draws = {i.path: i.uncertain.distribution.draw(rng) for i in found}
    prepared = _prepared_for(base, book, draws, job_seed)
    result = simulate_options(prepared)
    words = price_groups()
    multipliers = {
        words[p.removeprefix("prices.")]: float(v)
        for p, v in draws.items()
        if p.startswith("prices.")
    }
    return Replication(
        index=index,
        seed=job_seed,
        inputs=draws,
        options=tuple(
            _draw(o, result.verdicts[o.name].meets, multipliers, prepared) for o in result.options
        ),
    )


def replicate_batch(
    base: Prepared, book: PriceBook, seed: int, indices: Sequence[int]
) -> list[Replication]:
    """Several replications in one task (tasks of tens of replications amortise the overhead)."""
    found = inputs(base)
    return [replicate(base, book, seed, i, found) for i in indices]
