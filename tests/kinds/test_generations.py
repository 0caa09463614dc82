"""A refresh to a newer GPU generation: the cutover in the scheduler (hand cases and a property),
the ledger of two generations (against the market curve, the depreciation arithmetic and the
cash = accounting identity at book value), speeds by generation, and input errors."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np
import pytest

from tco.pricing import hardware
from tco.pricing.used_market import used_market
from tco.simulator.cluster.queue_records import Queued
from tco.simulator.cluster.scheduler import Cutover, QueueInput, simulate_queue
from tco.simulator.core import defaults
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.prepared import Prepared
from tco.simulator.kinds.owned.generations import Successor
from tco.simulator.kinds.owned.model import OwnedPlan
from tco.simulator.run import prepare, run, simulate
from tco.simulator.workload.speed import run_hours
from tests.conftest import MONTHS_TO_SELL, SELLER_SHARE, make_scenario


def _successor(prepared: Prepared) -> Successor:
    """The refresh of the scenario's first option, an owned one."""
    plan = prepared.plans[0]
    assert isinstance(plan, OwnedPlan) and plan.successor is not None
    return plan.successor


def _queue(
    jobs: list[tuple[float, int, float, float]], cut: tuple[float, int, int], **kw: Any
) -> Queued:
    """Jobs (arrival, GPUs, hold on the old servers, hold on the successor) on 8 old GPUs."""
    a, u, h, h2 = (np.array(x) for x in zip(*jobs, strict=True))
    cutover = Cutover(cut[0], cut[1], cut[2], h2.astype(float))
    inp = QueueInput(
        a.astype(float),
        u.astype(np.int64),
        h.astype(float),
        [(0.0, 8)],
        1000.0,
        cutover=cutover,
        **kw,
    )
    return simulate_queue(inp)


@pytest.mark.parametrize("servers", [0, 4])
def test_a_queued_job_starts_on_the_successor_at_its_speed(servers: int) -> None:
    # A holds all 8 old GPUs for 20 h; B waits for them, but the successor arrives at 10 h.
    jobs = [(0.0, 8, 20.0, 9.0), (1.0, 8, 6.0, 3.0), (12.0, 4, 6.0, 3.0)]
    q = _queue(jobs, (10.0, 8, 8 if servers else 0), server_gpus=servers)
    assert q.start_h.tolist() == [0.0, 10.0, 13.0]  # C waits for B on the successor: A's
    assert q.on_successor is not None  # old GPUs freed at 20 h are gone with their server
    assert q.on_successor.tolist() == [False, True, True]


def test_backfill_sees_the_successor_coming() -> None:
    # A holds 6 of 8 old GPUs until 100 h; head B (8 GPUs) can start only at the cutover (10 h).
    # C ends before it and backfills; D would end after it and must wait (a pool that ignored
    # the cutover would backfill D on A's release at 100 h as the shadow time).
    jobs = [(0.0, 6, 100.0, 50.0), (1.0, 8, 30.0, 15.0), (2.0, 2, 5.0, 2.5), (3.0, 2, 20.0, 10.0)]
    for servers in (0, 8):
        q = _queue(jobs, (10.0, 8, servers), policy="backfill", server_gpus=servers)
        assert q.start_h.tolist() == [0.0, 10.0, 2.0, 25.0]


def test_a_job_larger_than_the_successor_never_starts_after_the_cutover() -> None:
    jobs = [(0.0, 8, 20.0, 9.0), (1.0, 8, 6.0, 3.0), (2.0, 2, 6.0, 3.0)]
    q = _queue(jobs, (10.0, 4, 0))
    assert np.isnan(q.start_h[1]) and q.start_h[2] == 10.0
    # With patience (a hybrid) it leaves at the cutover to burst.
    q = _queue(jobs, (10.0, 4, 0), patience_h=np.full(3, 500.0))
    assert q.left_h is not None and q.left_h[1] == 10.0 and np.isnan(q.left_h[2])


def test_a_cutover_while_idle_to_the_same_hardware_changes_nothing() -> None:
    rng = np.random.default_rng(3)
    n = 300
    arrival = np.sort(rng.uniform(0, 2000, n))
    arrival[arrival > 990] += 40.0  # the queue drains over a 40 h gap before 1,030 h
    units = rng.choice([1, 2, 4, 8], n)
    hold = rng.exponential(6.0, n)
    for servers, policy in itertools.product((0, 8), ("fifo", "backfill")):
        base = QueueInput(arrival, units, hold, [(0.0, 8)], 3000.0, policy, server_gpus=servers)
        plain = simulate_queue(base)
        busy_until = np.nanmax(np.where(arrival < 1000, plain.start_h + hold, np.nan))
        assert busy_until < 1030.0  # the gap really is idle
        cut = Cutover(1030.0, 8, servers, hold)
        refreshed = simulate_queue(dataclasses.replace(base, cutover=cut))
        np.testing.assert_array_equal(refreshed.start_h, plain.start_h)


INSTALL = 1000.0  # installation of each server: capitalised, never resold


def _lab(refresh: dict[str, Any] | None, **over: Any) -> Any:
    option = {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 1,
        "installation_usd_per_server": INSTALL,
        "refresh": refresh,
        "failures": None,  # by-hand ledgers: no spare pool (failures given where tested)
        **over,
    }
    prepared = prepare(make_scenario(horizon_months=36, options=[option]))
    return prepared, simulate(prepared, advise=False).options[0]


def test_the_ledger_of_two_generations() -> None:
    prepared, o = _lab(
        {"month": 12, "server": "HGX A100 8x80GB", "price_usd": 100_000.0},
        price_decline_per_year=0.2,
    )
    cash, acc = o.ledger.cash, o.ledger.accounting
    old = hardware.server("8x A40 NVLink server")
    basis_old = old.price_usd * 0.8 ** (((2027 * 12) - (2025 * 12 + 2)) / 12) + 1000.0
    basis_new = 100_000.0 * 0.8 + 1000.0  # a scenario price holds at the start: one year's fall
    assert cash["capex"][0] == pytest.approx(basis_old)
    assert cash["capex"][12] == pytest.approx(basis_new)
    # The old server leaves when the last job started on it ends (at the cutover if none runs),
    # and is sold in that month (an instant on a month's edge closes the month before).
    cut = prepared.edges[12]
    before = o.runs.start_h < cut
    until = max(cut, float(np.max(o.runs.end_h[before])))
    sold = int(np.searchsorted(prepared.edges, until)) - 1
    assert np.nonzero(cash["refresh_sale"])[0].tolist() == [sold]
    # The used market pays for the server, not its installation (INSTALL); a seller receives a
    # broker's share of it, after the months the sale takes.
    value = (basis_old - INSTALL) * used_market("A40").share((sold + 1 + MONTHS_TO_SELL) / 12)
    value *= SELLER_SHARE
    assert cash["refresh_sale"][sold] == pytest.approx(-value)
    dep = basis_old * (1 - defaults.SALVAGE_FRACTION) / defaults.DEPRECIATION_MONTHS
    book = basis_old - (sold + 1) * dep
    assert acc["disposal"][sold] + acc["disposal_gain"][sold] == pytest.approx(book - value)
    assert acc["depreciation"][sold + 1 : 12].sum() == 0  # nothing of the old after its sale
    resold = (basis_new - INSTALL) * used_market("A40").share((24 + MONTHS_TO_SELL) / 12)
    resold *= SELLER_SHARE
    assert cash["resale"][-1] == pytest.approx(-resold)
    # Facility by the kW provisioned: the old server's before, the successor's after.
    rate = defaults.COLOCATION_USD_PER_KW_MONTH
    assert cash["facility"][5] == pytest.approx(old.max_kw * rate)
    assert cash["facility"][20] == pytest.approx(hardware.server("HGX A100 8x80GB").max_kw * rate)


def test_at_book_value_cash_and_accounting_agree() -> None:
    _, o = _lab({"month": 18, "server": "HGX A100 8x80GB"}, resale_value="book")
    capital = ("capex", "resale", "refresh_sale")
    cash = sum(float(o.ledger.cash[k].sum()) for k in capital)
    acc = sum(float(o.ledger.accounting[k].sum()) for k in ("depreciation", "disposal"))
    assert o.ledger.accounting["disposal"].sum() == pytest.approx(0.0, abs=1e-6)
    assert cash == pytest.approx(acc)


def test_jobs_run_at_the_speed_of_the_generation_they_start_on() -> None:
    prepared, o = _lab({"month": 12, "server": "HGX A100 8x80GB"})
    plan = prepared.plans[0]
    assert isinstance(plan, OwnedPlan) and plan.successor is not None
    cut = plan.successor.cutover_h
    new = o.runs.start_h >= cut
    assert new.any() and (~new & ~np.isnan(o.runs.start_h)).any()
    on_old = run_hours(prepared.jobs, plan.hardware)
    on_new = run_hours(prepared.jobs, plan.successor.hardware)
    np.testing.assert_allclose(o.runs.run_h[new], on_new[new])
    np.testing.assert_allclose(o.runs.run_h[~new], on_old[~new])
    # One-GPU jobs: the ratio is the ratio of the measured speed scores.
    old, successor = plan.hardware.speed, plan.successor.hardware.speed
    assert old is not None and successor is not None
    a40, a100 = old.score(), successor.score()
    assert on_old[0] / on_new[0] == pytest.approx(a100 / a40, rel=1e-9)


def test_a_job_only_the_successor_holds_waits_for_it() -> None:
    big = {
        "name": "big",
        "arrivals_per_month": 20,
        "gpus": 1,
        "memory_gb": 20,  # more than an RTX 3060's 12 GB, less than an RTX 4090's 24 GB
        "work": {"reference_gpu": "A40", "gpu_hours": 2, "distribution": "exponential"},
    }
    option = {
        "name": "own",
        "kind": "owned",
        "server": "RTX 3060 workstation",
        "servers": 1,
        "refresh": {"month": 6, "server": "RTX 4090 workstation"},
    }
    prepared = prepare(make_scenario(workload={"job_classes": [big]}, options=[option]))
    o = simulate(prepared, advise=False).options[0]
    cut = _successor(prepared).cutover_h
    started = ~np.isnan(o.runs.start_h)
    assert started.any() and (o.runs.start_h[started] >= cut).all()
    assert (o.runs.reason == "").all()


def test_a_smaller_successor_cannot_run_the_largest_jobs_after_it() -> None:
    wide = {
        "name": "wide",
        "arrivals_per_month": 10,
        "gpus": 16,
        "work": {"reference_gpu": "A40", "gpu_hours": 40, "distribution": "exponential"},
    }
    option = {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 2,
        "refresh": {"month": 6, "server": "HGX A100 8x80GB", "servers": 1},
    }
    prepared = prepare(make_scenario(workload={"job_classes": [wide]}, options=[option]))
    o = simulate(prepared, advise=False).options[0]
    cut = _successor(prepared).cutover_h
    never = o.runs.reason == "size"
    assert never.any() and (o.runs.start_h[~never] < cut).all()
    assert "of the successor" in o.runs.reason_text["size"]


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"refresh": {"month": 0, "server": "HGX A100 8x80GB"}}, r"refresh\.month.*valid: 1"),
        (
            {"refresh": {"month": 11, "server": "HGX A100 8x80GB"}, "lead_time_months": 2},
            r"refresh\.month: .*after the 12-month horizon.*valid: up to 9",
        ),
        ({"refresh": {"month": 6, "server": "HGX A100 8x80"}}, r"refresh\.server"),
        (
            {"refresh": {"month": 6, "server": "RTX 3060 workstation"}},
            r"refresh\.server: a successor GPU with less memory",
        ),
        (
            {
                "refresh": {"month": 6, "server": "HGX A100 8x80GB"},
                "financing": {"kind": "lease", "end_of_term": "return", "term_months": 3},
            },
            r"financing\.term_months: servers delivered in month 1 would be returned after 3"
            r" months, before the refresh's successor takes over.*at least 6",
        ),
        (
            {
                "refresh": {"month": 3, "server": "HGX A100 8x80GB"},  # the successor's lease
                "financing": {"kind": "lease", "end_of_term": "return", "term_months": 5},
            },
            r"servers delivered in month 4 would be returned after 5 months, before the horizon",
        ),
    ],
)
def test_refresh_input_errors(over: dict[str, Any], match: str) -> None:
    option = {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1}
    with pytest.raises(ScenarioError, match=match):
        run(make_scenario(options=[{**option, **over}]))


def test_optimize_tries_each_half_year_for_the_refresh_and_none() -> None:
    from tco.pricing.book import PriceBook
    from tco.simulator.advice.optimize import search_option

    refresh = {"month": 12, "server": "HGX A100 8x80GB"}
    option = {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 1,
        "lead_time_months": 1,
        "refresh": refresh,
    }
    book = PriceBook()
    prepared = prepare(make_scenario(horizon_months=36, options=[option]), book)
    configs = search_option(prepared, 0, book)
    tried = {c.knobs["refresh_month"]: c for c in configs if "refresh_month" in c.knobs}
    # From the month after the purchase to the last whose successor arrives (36 - 1 - 1 = 34).
    assert list(tried) == ["none", 1, 7, 13, 19, 25, 31, 34]
    for month in ("none", 7):  # the same figures as a run of the scenario so written
        changed = {**option, "refresh": None if month == "none" else {**refresh, "month": month}}
        alone = simulate(prepare(make_scenario(horizon_months=36, options=[changed])), advise=False)
        assert tried[month].cash_usd == alone.options[0].total_cash_usd


def test_a_hybrid_bursts_a_job_only_the_successor_holds_after_its_own_patience() -> None:
    big = {
        "name": "big",
        "arrivals_per_month": 30,
        "gpus": 1,
        "memory_gb": 20,  # an RTX 3060 cannot hold it, an RTX 4090 can
        "work": {"reference_gpu": "A40", "gpu_hours": 2, "distribution": "exponential"},
    }
    own = {
        "name": "own",
        "kind": "owned",
        "server": "RTX 3060 workstation",
        "servers": 1,
        "refresh": {"month": 6, "server": "RTX 4090 workstation"},
    }
    cloud = {
        "name": "cloud",
        "kind": "on_demand",
        "instance_types": ["g5.xlarge"],
        "provisioning_delay_minutes": 6,
    }
    hybrid = {
        "name": "hybrid",
        "kind": "hybrid",
        "owned": "own",
        "burst": "cloud",
        "burst_after_wait_hours": 24,
    }
    scenario = make_scenario(workload={"job_classes": [big]}, options=[own, cloud, hybrid])
    prepared = prepare(scenario)
    o = simulate(prepared, advise=False).options[2]
    cut = _successor(prepared).cutover_h
    arrival = prepared.jobs.arrival_h
    burst = o.runs.burst
    assert burst is not None
    waits = o.runs.start_h - arrival
    # Before the cutover every job waits its 24 h, then the cloud's 6 minutes.
    early = arrival < cut - 24
    assert early.any() and burst[early].all()
    assert np.allclose(waits[early], 24.1)
    # No job waits longer than its patience and the delay, the last day's included.
    assert np.nanmax(waits) <= 24.1 + 1e-9


def test_a_loan_on_servers_sold_at_the_refresh_is_paid_off_then() -> None:
    import numpy_financial as npf

    loan = {"kind": "loan", "term_months": 36, "annual_rate": 0.12, "down_payment_fraction": 0.2}
    _, o = _lab({"month": 12, "server": "HGX A100 8x80GB"}, financing=loan)
    _, cash = _lab({"month": 12, "server": "HGX A100 8x80GB"})
    c = o.ledger.cash
    sold = int(np.nonzero(c["refresh_sale"])[0][0])
    basis = float(cash.ledger.cash["capex"][0])
    r, n, p = 0.01, 36, 0.8 * basis
    pay = -npf.pmt(r, n, p)
    # The old server's loan: payments to its sale, then what is left of it (numpy-financial's
    # future value after that many payments); the successor's own loan runs on.
    paid = sold + 1
    assert c["financing_payoff"][sold] == pytest.approx(-npf.fv(r, paid, -pay, p), rel=1e-9)
    old_only = c["financing"][:12]
    assert old_only[1:] == pytest.approx(np.full(11, pay))


@pytest.mark.parametrize("end_of_term", ["return", "fmv_buyout"])
def test_an_operating_lease_ended_early_by_a_refresh(end_of_term: str) -> None:
    """The old server's 48-month lease ends at the refresh: its payments stop, and the lessee
    pays the lessor's balance (numpy-financial's future value after the payments made, the
    residual priced in) less what the returned server fetches on the used market. Nothing is
    sold by the lessee, and the lease's whole cost is booked by then."""
    import numpy_financial as npf

    lease = {
        "kind": "lease",
        "term_months": 48,
        "annual_rate": 0.12,
        "upfront_fraction": 0.1,
        "end_of_term": end_of_term,
    }
    _, o = _lab({"month": 12, "server": "HGX A100 8x80GB"}, financing=lease)
    _, cash = _lab({"month": 12, "server": "HGX A100 8x80GB"})
    c, a = o.ledger.cash, o.ledger.accounting
    ended = int(np.nonzero(c["lease_termination"])[0][0])
    basis = float(cash.ledger.cash["capex"][0])
    r, n, p = 0.01, 48, 0.9 * basis
    # The lessor prices its residual, and the returned server fetches, on the server alone.
    residual = (basis - INSTALL) * used_market("A40").share(4.0)
    pay = -npf.pmt(r, n, p, -residual)
    paid = ended + 1  # payments at the end of months 0 .. ended
    owed = -npf.fv(r, paid, -pay, p) - (basis - INSTALL) * used_market("A40").share(paid / 12)
    assert c["lease_termination"][ended] == pytest.approx(max(owed, 0.0), rel=1e-9)
    assert c["lease_termination"][ended] > 0
    assert c["financing"][1:12] == pytest.approx(np.full(11, pay))  # the old lease alone
    assert "refresh_sale" not in c or c["refresh_sale"].sum() == 0  # the lessor's to sell
    # Booked in full by its end: the old lease's cost equals what was paid for it.
    old_paid = 0.1 * basis + pay * paid + c["lease_termination"][ended]
    assert a["lease"][: ended + 1].sum() == pytest.approx(old_paid, rel=1e-9)


def test_a_job_stopped_by_a_failure_restarts_on_the_successor_with_its_work_rescaled() -> None:
    from tco.simulator.cluster.interruptions import Checkpointing

    ckpt = Checkpointing(
        interval_h=2.0, write_h=0.0, restart_h=0.5, wait_h=0.0, fallback_after=None
    )
    # One server of 8. Job 0 (8 GPUs, 10 h here, 5 h on the successor) is hit at 5 h: it keeps
    # 4 h (checkpoints every 2 h), loses 1 h on 8 GPUs, and cannot restart on 7 GPUs. At the
    # cutover (6 h) its 6 h left become 3 h on the successor; it restarts at once, spends the
    # 0.5 h restart and ends at 9.5 h. The old GPU's repair after the cutover is not applied.
    inp = QueueInput(
        np.array([0.0]),
        np.array([8]),
        np.array([10.0]),
        [(0.0, 8)],
        100.0,
        server_gpus=8,
        server_changes=[(5.0, 0, -1), (50.0, 0, 1)],
        requeue=ckpt,
        cutover=Cutover(6.0, 8, 8, np.array([5.0])),
    )
    q = simulate_queue(inp)
    r = q.requeued
    assert r is not None
    assert q.start_h.tolist() == [0.0] and r.end_h.tolist() == [9.5]
    assert r.lost_gpu_h.tolist() == [8.0] and r.gaps == [(0, 5.0, 6.0)]


def test_failures_across_a_refresh_keep_the_renewal_availability() -> None:
    classes = [
        {
            "name": "j",
            "arrivals_per_month": 100,
            "gpus": {"choices": [1, 8]},
            "work": {"reference_gpu": "A40", "gpu_hours": 40, "distribution": "exponential"},
        },
    ]
    failures = {
        "gpu_failures_per_1000_gpu_days": 0.0,
        "node_failures_per_1000_node_days": 30.0,
        "node_repair_days": 5.0,
    }
    own = {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 4,
        "failures": failures,
        "refresh": {"month": 12, "server": "HGX A100 8x80GB"},
    }
    o = run(
        make_scenario(horizon_months=24, workload={"job_classes": classes}, options=[own])
    ).options[0]
    mtbf, mttr = 1000 / 30.0, 5.0
    # Servers of both generations are down MTTR / (MTBF + MTTR) of their time in service.
    assert 1 - o.metrics.measures["gpu_availability"] == pytest.approx(
        mttr / (mtbf + mttr), abs=0.03
    )
    assert o.metrics.measures["node_failures"] > 0 and o.metrics.measures["interruptions"] > 0
    assert "refresh_sale" in o.ledger.cash


def test_failures_across_a_refresh_on_a_pool() -> None:
    """On a pool a job resumes in place, its hold stretched by its interruptions: on the
    successor by draws of its run there. Both generations' GPUs are out MTTR / (MTBF + MTTR)
    of their time in service."""
    from tco.simulator.workload.speed import run_hours

    classes = [
        {
            "name": "j",
            "arrivals_per_month": 60,
            "gpus": {"choices": [1, 8]},
            "work": {"reference_gpu": "A40", "gpu_hours": 40, "distribution": "exponential"},
        },
    ]
    own = {
        "name": "own",
        "kind": "owned",
        "server": "8x A40 NVLink server",
        "servers": 4,
        "placement": "pool",
        # no spares, no swap: each failed GPU is out for the 5-day repair (renewal theory)
        "failures": {
            "gpu_failures_per_1000_gpu_days": 30.0,
            "repair_days": 5.0,
            "spare_gpus": 0,
            "swap_hours": 0,
        },
        "refresh": {"month": 12, "server": "HGX A100 8x80GB"},
    }
    sc = make_scenario(horizon_months=24, workload={"job_classes": classes}, options=[own])
    prepared = prepare(sc)
    o = run(sc).options[0]
    mtbf, mttr = 1000 / 30.0, 5.0
    assert 1 - o.metrics.measures["gpu_availability"] == pytest.approx(
        mttr / (mtbf + mttr), abs=0.03
    )
    s = _successor(prepared)
    assert s is not None
    new = o.runs.start_h >= s.cutover_h
    hits = o.runs.interruptions
    assert hits is not None and new.sum() > 100 and hits[new].sum() > 0
    on_new = run_hours(prepared.jobs, s.hardware)
    # Each job on the successor holds its run there, and more exactly when interrupted.
    np.testing.assert_allclose(o.runs.run_h[new & (hits == 0)], on_new[new & (hits == 0)])
    assert np.all(o.runs.run_h[new & (hits > 0)] > on_new[new & (hits > 0)])


def test_the_old_servers_leave_when_the_jobs_running_on_them_at_the_cutover_end() -> None:
    from tco.simulator.kinds.owned.generations import Successor, on_successor, retired_h
    from tco.simulator.kinds.owned.parts import Delivery
    from tco.simulator.kinds.runs import Gaps, JobRuns

    hw = prepare(make_scenario()).plans[0].hardware
    s = Successor("x", hw, 1, 1.0, 1.0, Delivery(0, 1, 10.0, 0))
    # Job 0 was stopped at 5 h and queued until 12 h: at the cutover (10 h) it held no old GPUs
    # and finishes on the successor. Job 1 runs on old servers from 2 h to 15 h: they drain
    # until then. Job 2 starts on the successor.
    runs = JobRuns(
        run_h=np.ones(3),
        gpus=np.ones(3, np.int64),
        units=np.ones(3, np.int64),
        start_h=np.array([0.0, 2.0, 11.0]),
        end_h=np.array([20.0, 15.0, 13.0]),
        reason=np.array(["", "", ""], dtype=object),
        reason_text={},
        gaps=Gaps.of([(0, 5.0, 12.0)]),
    )
    assert retired_h(s, runs, 100.0) == 15.0
    assert on_successor(s, runs).tolist() == [True, False, True]
    assert retired_h(s, runs, 14.0) == 14.0  # or the horizon


def test_a_lease_bought_out_before_the_refresh_is_sold_at_it() -> None:
    """A 6-month operating lease with a fair-market-value buyout: bought at the residual the
    lessor priced in when the term ends (month 6), owned, then sold at the refresh."""
    lease = {"kind": "lease", "term_months": 6, "annual_rate": 0.12, "end_of_term": "fmv_buyout"}
    _, o = _lab({"month": 12, "server": "HGX A100 8x80GB"}, financing=lease)
    c = o.ledger.cash
    _, cash = _lab({"month": 12, "server": "HGX A100 8x80GB"})
    basis = float(cash.ledger.cash["capex"][0])
    assert c["capex"][6] == pytest.approx((basis - INSTALL) * used_market("A40").share(0.5))
    assert c["refresh_sale"].sum() < 0 and "lease_termination" not in c
