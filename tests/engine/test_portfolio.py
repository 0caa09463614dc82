"""The portfolio search (issue 24): on a small problem its best equals a brute-force grid over
the same knobs; the commitment inside a mix is the newsvendor level of the usage left to it
(no other level costs less); every configuration plays on the same jobs."""

from __future__ import annotations

import numpy as np
import pytest

from tco.pricing.book import PriceBook
from tco.simulator.advice import composing, portfolio
from tco.simulator.engine.prepared import Prepared
from tco.simulator.engine.simulate import prepare
from tco.simulator.kinds import registry
from tco.simulator.kinds.rented.billing import usage
from tco.simulator.kinds.rented.plan import CloudPlan
from tco.simulator.run import run
from tco.simulator.scenario.model import loads_scenario

# M/M/c-like: one-GPU workstations (5.5 busy on average), a cloud at a price where owning the
# base load and renting the peaks beats both.
SMALL = """
name: small-mix
start: 2027-01
horizon_months: 24
seed: 11
service_level: {p95_delay_hours: 24}
workload:
  job_classes:
    - name: jobs
      arrivals_per_month: 400
      gpus: 1
      work: {reference_gpu: RTX 4090, gpu_hours: 10, distribution: exponential}
options:
  - {name: own, kind: owned, server: RTX 4090 workstation, servers: 3}
  - name: cloud
    kind: on_demand
    instance: {gpu: RTX 4090, gpus: 1, usd_per_hour: 0.9, price_source: test,
               price_as_of: 2025-11}
"""


@pytest.fixture(scope="module")
def small() -> tuple[Prepared, PriceBook, portfolio.Search]:
    book = PriceBook("snapshot")
    prepared = prepare(loads_scenario(SMALL), book)
    return prepared, book, portfolio.search(prepared, book)


def test_the_search_s_best_equals_a_brute_force_grid(
    small: tuple[Prepared, PriceBook, portfolio.Search],
) -> None:
    prepared, book, found = small
    best = found.best()
    assert best is not None and best.config.meets_service_level
    ((composer, mix),) = composing.pairs(prepared.scenario.options)
    grid = portfolio.Mixer(prepared, book.frozen(), composer, mix, budget=10_000)
    level = 24.0
    # Every size from 1 to 12, every wait from 0 to twice the level in steps of half of it
    # (108 cells at steps of 6 h found the same: 21 s of a 10-minute suite budget).
    cells = [
        grid.play(n, w) for n in range(1, 13) for w in np.arange(0.0, 2 * level + 1, level / 2)
    ]
    meeting = [c.config for c in cells if c is not None and c.config.meets_service_level]
    brute = min(meeting, key=lambda c: c.cash_usd)
    assert best.config.cash_usd <= brute.cash_usd + 0.01, (best.knobs, brute.knobs)
    # ... and it is a real mix: some servers, some renting, cheaper than either alone.
    assert 1 <= best.size < 12 and best.knobs[composing.WAIT_KNOB] > 0
    r = run(loads_scenario(SMALL))
    alone = {o.name: o.total_cash_usd for o in r.options if r.verdicts[o.name].meets}
    assert best.config.cash_usd < min(alone[n] for n in alone if n != best.option.name)
    assert r.recommendation.option == best.option.name and r.recommendation.runner_up in alone
    assert found.evaluations < len(cells)  # the structure saves plays


def test_the_search_s_configurations_share_the_jobs(
    small: tuple[Prepared, PriceBook, portfolio.Search],
) -> None:
    """Common random numbers: a configuration played twice gives the same figures."""
    prepared, book, _ = small
    ((composer, mix),) = composing.pairs(prepared.scenario.options)
    a = portfolio.Mixer(prepared, book.frozen(), composer, mix, budget=5).play(4, 12.0)
    b = portfolio.Mixer(prepared, book.frozen(), composer, mix, budget=5).play(4, 12.0)
    assert a is not None and b is not None and a.config == b.config


COMMIT = SMALL.replace(
    "    instance: {gpu: RTX 4090, gpus: 1, usd_per_hour: 0.9, price_source: test,\n"
    "               price_as_of: 2025-11}\n",
    "    instance_type: g5.xlarge\n"
    "  - {name: sp, kind: savings_plan, instance_type: g5.xlarge, commitment_instances: 1,\n"
    "     discount: 0.3, rate_source: test discount}\n",
).replace("RTX 4090, gpu_hours: 10", "A10G, gpu_hours: 10")


def test_the_commitment_in_a_mix_is_the_newsvendor_level_of_its_residual_usage() -> None:
    book = PriceBook("snapshot")
    prepared = prepare(loads_scenario(COMMIT), book)
    pairs = {m.target.name: (k, m) for k, m in composing.pairs(prepared.scenario.options)}
    composer, base_mix = pairs["sp"]
    mixer = portfolio.Mixer(prepared, book.frozen(), composer, base_mix, budget=50)
    # Two workstations for 5.5 busy on average, the rest rented at once: a steady residual.
    n, wait = 2, 0.0
    first = mixer.play(n, wait)
    assert first is not None and first.runs is not None
    (_, _), (plan, runs) = composer.parts_of(first.plan, first.runs)
    assert isinstance(plan, CloudPlan)
    fitted = registry.of(plan.option).fit_to_usage(plan, runs, prepared.edges)
    assert fitted is not None
    c = fitted["commitment_instances"]
    # The newsvendor rule from first principles: one more committed instance costs (1 - d) x
    # the price every hour and saves the price in the hours usage reaches it, so the best
    # level is the d-quantile of the hourly instances left to the plan (d = 0.3 here).
    hourly = usage(plan, runs, prepared.edges).instances_hourly.sum(axis=0)
    assert c == pytest.approx(round(float(np.quantile(hourly, 0.3)), 2)) and c > 0
    at = mixer.play(n, wait, fitted)
    assert at is not None
    # No other commitment costs less on the same runs (the timing does not depend on it).
    for other in (round(c * 0.6, 2), round(c * 1.4, 2)):
        q = mixer.play(n, wait, {"commitment_instances": other})
        assert q is not None and q.config.cash_usd >= at.config.cash_usd - 0.01, other
    assert at.config.cash_usd < first.config.cash_usd  # the plan as written commits to 1


def test_search_given_keeps_to_the_listed_options_and_says_what_a_mix_would_save() -> None:
    from tco.reports import answer

    r = run(loads_scenario(SMALL + "search: given\n"))
    rec = r.recommendation
    assert rec.option in ("own", "cloud") and rec.portfolio is not None
    assert not rec.portfolio.added and rec.portfolio.cash_usd < (rec.cash_usd or 0.0)
    assert [o.name for o in r.options] == ["own", "cloud"]
    said = " ".join(answer.sentences(r))
    assert "search: given keeps to the options as listed" in said and "less than" in said


@pytest.mark.parametrize(
    ("knobs", "words"),
    [
        ("{nope: 1}", "options[2].owned_knobs: not a knob of own: nope; knobs of own: servers"),
        ("{servers: 0}", "options[2].owned_knobs:"),
    ],
)
def test_a_hybrid_s_knobs_are_checked(knobs: str, words: str) -> None:
    from tco.simulator.core.errors import ScenarioError

    text = SMALL + (
        "  - {name: mix, kind: hybrid, owned: own, burst: cloud, burst_after_wait_hours: 12,\n"
        f"     owned_knobs: {knobs}}}\n"
    )
    with pytest.raises(ScenarioError, match=words.replace("[", r"\[").replace("]", r"\]")):
        run(loads_scenario(text))


def test_a_hybrid_with_owned_knobs_is_the_hybrid_of_the_resized_option() -> None:
    text = SMALL.replace("servers: 3}", "servers: 5}") + (
        "  - {name: h, kind: hybrid, owned: own, burst: cloud, burst_after_wait_hours: 12}\n"
        "search: none\n"
    )
    resized = SMALL + (
        "  - {name: h, kind: hybrid, owned: own, burst: cloud, burst_after_wait_hours: 12,\n"
        "     owned_knobs: {servers: 5}}\n"
        "search: none\n"
    )
    a, b = (run(loads_scenario(t)).option("h") for t in (text, resized))
    assert a.total_cash_usd == b.total_cash_usd
    assert np.array_equal(a.runs.start_h, b.runs.start_h, equal_nan=True)


def test_a_search_that_lets_go_of_runs_finds_the_same_mix(
    small: tuple[Prepared, PriceBook, portfolio.Search],
) -> None:
    """Memory is bounded: past ``keep_jobs`` only the best configuration keeps its runs (2.4
    million jobs once grew to 7.4 GB); what is let go is played again when asked for,
    identically, so the search finds the same mix."""
    prepared, book, _ = small
    ((composer, mix),) = composing.pairs(prepared.scenario.options)

    def searched(keep: int) -> tuple[portfolio.Mixer, object]:
        m = portfolio.Mixer(prepared, book.frozen(), composer, mix, budget=16)
        m.keep_jobs = keep
        return m, m.search()

    (kept, found), (bounded, again) = searched(10**12), searched(0)
    assert again == found
    assert sum(p.runs is not None for p in bounded.seen.values()) == 1
    assert all(p.runs is not None for p in kept.seen.values())
