"""A sweep's futures as records: every option of the scenario played on each job stream of the
design (``sweep.design``) and priced under each money draw, one :class:`Replication` per future
(s, m) with the inputs drawn there and a compact record per option (see ``sweep.run`` for how
they are run)."""

from __future__ import annotations

from dataclasses import dataclass

from tco.simulator.sweep.design import Design
from tco.simulator.sweep.plays import Bench, Candidate, Outcome, Task, play_tasks


@dataclass(frozen=True)
class OptionDraw:
    """One option in one future (USD, hours, fractions, reference GPU-hours; cumulative cash
    per month)."""

    name: str
    cash_usd: float
    npv_usd: float
    p95_wait_h: float
    p95_delay_h: float
    cannot_run_share: float
    meets_service_level: bool
    cumulative_cash_usd: tuple[float, ...]
    late_work: float = 0.0  # of jobs later than the level allows, or unable to run
    delivered_work: float = 0.0


@dataclass(frozen=True)
class Replication:
    """One future: its number (stream x money draws + money draw), its job stream's seed, the
    inputs drawn (a stream's play inputs and the money draw's), and every option."""

    index: int
    seed: int
    inputs: dict[str, float | str]
    options: tuple[OptionDraw, ...]
    stream: int = 0
    money: int = 0


def listed(bench: Bench) -> tuple[Candidate, ...]:
    """Every option of the scenario, as the candidates of a sweep."""
    return tuple(Candidate(o.name, i) for i, o in enumerate(bench.base.scenario.options))


def futures_of(design: Design, s: int, outcomes: list[Outcome]) -> list[Replication]:
    """The futures of stream ``s``: one per money draw."""
    out = []
    for m in range(design.m):
        draws = tuple(
            OptionDraw(
                name=o.name,
                cash_usd=o.cash[m],
                npv_usd=o.npv[m],
                p95_wait_h=o.p95_wait_h,
                p95_delay_h=o.p95_delay_h,
                cannot_run_share=o.cannot_run_share,
                meets_service_level=o.meets,
                cumulative_cash_usd=o.cumulative[m] if o.cumulative else (),
                late_work=o.late_work,
                delivered_work=o.delivered_work,
            )
            for o in outcomes
        )
        out.append(
            Replication(
                index=design.future(s, m),
                seed=design.streams[s].seed,
                inputs=design.draws_of(s, m),
                options=draws,
                stream=s,
                money=m,
            )
        )
    return out


def replicate_streams(bench: Bench, streams: list[int]) -> list[Replication]:
    """The futures of several streams in one task (tasks of several streams amortise the
    overhead)."""
    found = listed(bench)
    tasks = [Task(s, found, cumulative=True) for s in streams]
    played = play_tasks(bench, tasks)
    return [
        r
        for s, outcomes in zip(streams, played, strict=True)
        for r in futures_of(bench.design, s, outcomes)
    ]
