"""What one option achieved, as a compact record a sweep can aggregate without job arrays: cash,
accounting and NPV totals, waits, work delivered, utilisation and the work that cannot run."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from tco.simulator.costs.finance import npv
from tco.simulator.costs.ledger import Ledger
from tco.simulator.kinds.runs import JobRuns, declared_measures
from tco.simulator.scenario.service_level import Miss, ServiceLevel
from tco.simulator.workload.jobs import Jobs

EXAMPLES_PER_REASON = 5


@dataclass(frozen=True)
class Waits:
    """Queue waits in hours, from arrival to first start, of every job that can run: a job still
    queued at the horizon (``censored`` of them) counts with horizon - arrival, the least it will
    have waited, so a queue that never drains (or a cluster that never arrives) shows in the
    statistics instead of dropping out of them. ``started``: the jobs that started."""

    mean_h: float
    p50_h: float
    p95_h: float
    max_h: float
    started: int
    censored: int

    @staticmethod
    def of(waits: np.ndarray, censored: int, started: int) -> Waits:
        """``waits`` of the jobs that started and, at their lower bound, of the ``censored``."""
        if len(waits) == 0:
            return Waits(0.0, 0.0, 0.0, 0.0, started, censored)
        p50, p95 = np.percentile(waits, [50, 95])
        return Waits(
            float(waits.mean()), float(p50), float(p95), float(waits.max()), started, censored
        )


def job_delays(jobs: Jobs, runs: JobRuns, horizon_h: float, ends: bool = False) -> np.ndarray:
    """Each job's delay: finish - arrival - how long it runs on the option uninterrupted, so it
    holds the queue, capacity waits, interruptions, lost work and restarts (equal to the wait
    when nothing interrupts it). A job still queued at the horizon counts at its least,
    horizon - arrival; a started job at the finish the model gives it (past the horizon too);
    NaN for a job that cannot run there.

    ``ends`` (``after_horizon: ends``): the project stops at the horizon, so a job unfinished
    there is never delivered. Its delay is at least horizon - arrival + what remains of it
    (a running job's hours past the horizon, a queued job's whole run): a run that needs
    longer than the project on an option is late there however soon it started."""
    ok = runs.runnable
    started = ok & ~np.isnan(runs.start_h)
    queued = ok & np.isnan(runs.start_h)
    out = np.full(len(jobs), np.nan)
    start = runs.start_h[started]
    # The wait, plus what the run took beyond its uninterrupted length: the rounding of
    # end = start + run is no delay (so the two are equal where nothing interrupts a job).
    extra = runs.end_h[started] - start - runs.uninterrupted_h[started]
    extra[extra < 1e-9 * np.maximum(1.0, runs.uninterrupted_h[started])] = 0.0
    out[started] = start - jobs.arrival_h[started] + extra
    out[queued] = np.maximum(horizon_h - jobs.arrival_h[queued], 0.0)
    if ends:
        # Running past the end: horizon - arrival + (end - horizon) = end - arrival.
        running = started & (runs.end_h > horizon_h)
        out[running] = np.maximum(out[running], runs.end_h[running] - jobs.arrival_h[running])
        out[queued] += runs.uninterrupted_h[queued]
    return out


def unfinished(runs: JobRuns, horizon_h: float) -> np.ndarray:
    """Per job, whether it can run on the option but is not finished at the horizon (running
    or still queued there)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(runs.runnable & ~(runs.end_h <= horizon_h))


@dataclass(frozen=True)
class WorkBalance:
    """Reference GPU-hours: demanded = delivered + cannot run + unfinished at the horizon.

    ``overdue`` (a part of ``unfinished``): the work of jobs late whatever happens after the
    horizon. When the operation continues, those that never started although they arrived
    longer before the horizon than the service level lets a job wait (one that arrived within
    that wait is not late yet, and counts only as a censored wait). When the project ends
    there, every job unfinished at the horizon whose delay (``job_delays``: at least horizon
    - arrival + what remains) is over that wait: work the project never gets.

    ``finished``: the work of the jobs finished by the horizon, whole (a job half done counts
    in ``delivered`` by half and here not at all): what a project that ends there receives."""

    demanded: float
    delivered: float
    cannot_run: float
    unfinished: float
    overdue: float = 0.0
    finished: float = 0.0

    @property
    def cannot_run_share(self) -> float:
        return self.cannot_run / self.demanded if self.demanded > 0 else 0.0

    @property
    def overdue_share(self) -> float:
        return self.overdue / self.demanded if self.demanded > 0 else 0.0

    @property
    def finished_share(self) -> float:
        """The share of the work demanded that was finished by the horizon (1 with none)."""
        return self.finished / self.demanded if self.demanded > 0 else 1.0


@dataclass(frozen=True)
class Taxed:
    """An option's cash and NPV before and after income tax (USD), and which one it is decided
    on (``after_tax``: its cash_usd is after tax)."""

    before_usd: float
    after_usd: float
    npv_before_usd: float
    npv_after_usd: float
    after_tax: bool

    @property
    def saved_usd(self) -> float:
        return self.before_usd - self.after_usd

    @property
    def beside(self) -> tuple[float, float]:
        """Cash and NPV on the other side of tax from those decided on."""
        if self.after_tax:
            return self.before_usd, self.npv_before_usd
        return self.after_usd, self.npv_after_usd

    @classmethod
    def of(cls, ledger: Ledger, cash: float, npv_usd: float, rate: float, after_tax: bool) -> Taxed:
        tax = np.sum(list(ledger.tax.values()), axis=0) if ledger.tax else np.zeros(1)
        total, pv = float(tax.sum()), npv(rate, tax)
        if after_tax:
            return cls(cash - total, cash, npv_usd - pv, npv_usd, True)
        return cls(cash, cash + total, npv_usd, npv_usd + pv, False)


@dataclass(frozen=True, kw_only=True)
class Metrics:
    """One option's figures over the horizon (USD, hours, fractions)."""

    cash_usd: float
    accounting_usd: float
    npv_usd: float
    gpu_utilisation: float  # busy / available (owned) or billed (cloud) GPU-hours; NaN if none
    work: WorkBalance
    waits: Waits
    delays: Waits  # finish - arrival - uninterrupted run (``job_delays``)
    class_p95_delay_h: Mapping[str, float] = field(default_factory=dict)  # per job class
    # Per job class, the share of its work that cannot run: a class none of whose jobs runs
    # has no delay to judge (0.13.0 showed 0 and let it meet its level).
    class_cannot_run_share: Mapping[str, float] = field(default_factory=dict)
    jobs_completed: int
    jobs_running_at_horizon: int
    jobs_queued_at_horizon: int
    cannot_run: dict[str, int]  # reason text -> jobs
    paid_gpu_hours: float = 0.0  # in service (owned) or billed (cloud)
    busy_gpu_hours: float = 0.0  # used by jobs (lost work included)
    # Every declared measure of the run (``runs.Measure``): interruptions, failures, ...
    measures: Mapping[str, float] = field(default_factory=dict)
    # The project ends at the horizon: work unfinished there is never delivered (and not paid
    # to finish); else the cash includes finishing it (``kinds.after_horizon``).
    project_ends: bool = False
    # Income tax over the horizon (USD, negative: saved) and its present value, when the
    # scenario has a tax: section (``costs.tax``); ``tax_in_cash``: the decision is on cash
    # after tax, so cash_usd and npv_usd include it.
    tax: Taxed | None = None
    # Per team (``Jobs.class_teams``): its jobs' p95 delay, as a class's (none: no team named).
    team_p95_delay_h: Mapping[str, float] = field(default_factory=dict)
    # tCO2e over the horizon, finishing its unfinished work included (``costs.carbon``; 0: a
    # ledger without a footprint), for a level with a carbon ceiling.
    carbon_t: float = 0.0

    @property
    def work_paid_for(self) -> float:
        """Reference GPU-hours the cash pays for: all the work that can run when the operation
        continues (the cash includes finishing it), the work finished by the end when the
        project ends there."""
        w = self.work
        return w.finished if self.project_ends else w.demanded - w.cannot_run

    def misses(self, level: ServiceLevel) -> list[Miss]:
        """Why these figures miss ``level`` (empty: they meet it): the one verdict the
        recommendation, the optimiser, sweeps and the comparison all use."""
        return level.misses(
            self.waits.p95_h,
            self.work.cannot_run_share,
            self.work.overdue_share,
            p95_delay_h=self.delays.p95_h,
            class_p95_delay_h=self.class_p95_delay_h,
            class_cannot_run_share=self.class_cannot_run_share,
            carbon_t=self.carbon_t,
            team_p95_delay_h=self.team_p95_delay_h,
        )


def measure(
    jobs: Jobs,
    runs: JobRuns,
    ledger: Ledger,
    horizon_h: float,
    discount_rate: float,
    late_after_h: float = math.inf,
    ends: bool = False,
    taxed: bool | None = None,
) -> Metrics:
    """The metrics of one option from its job runs and ledger (``late_after_h``: the wait the
    service level allows, after which a job never started is overdue; ``ends``: the project
    ends at the horizon, so work unfinished there is never delivered, ``job_delays``;
    ``taxed``: the scenario has a tax: section, True when the decision is on cash after tax)."""
    ok = runs.runnable
    started = ok & ~np.isnan(runs.start_h)
    queued = ok & np.isnan(runs.start_h)
    frac = np.zeros(len(jobs))
    frac[started] = np.clip((horizon_h - runs.start_h[started]) / runs.run_h[started], 0.0, 1.0)
    work = jobs.work_ref_gpu_h
    censored = np.maximum(horizon_h - jobs.arrival_h[queued], 0.0)
    waits = Waits.of(
        np.concatenate([runs.start_h[started] - jobs.arrival_h[started], censored]),
        int(queued.sum()),
        int(started.sum()),
    )
    delays = job_delays(jobs, runs, horizon_h, ends)
    open_ = unfinished(runs, horizon_h)
    if ends:
        late = open_ & (np.nan_to_num(delays) > late_after_h)
    else:
        late = np.zeros(len(jobs), dtype=bool)
        late[queued] = censored > late_after_h
    paid = float(ledger.gpu_hours_paid.sum())
    cannot_run = {
        runs.reason_text[code]: int((runs.reason == code).sum()) for code in _reasons(runs)
    }
    cash, npv_usd = float(ledger.cash_total().sum()), npv(discount_rate, ledger.cash_total())
    return Metrics(
        cash_usd=cash,
        accounting_usd=float(ledger.accounting_total().sum()),
        npv_usd=npv_usd,
        gpu_utilisation=float(ledger.gpu_hours_busy.sum()) / paid if paid > 0 else float("nan"),
        work=WorkBalance(
            demanded=float(work.sum()),
            delivered=float((work * frac).sum()),
            cannot_run=float(work[~ok].sum()),
            unfinished=float((work * (1.0 - frac))[ok].sum()),
            overdue=float(work[late].sum()),
            finished=float(work[ok & ~open_].sum()),
        ),
        waits=waits,
        delays=Waits.of(delays[~np.isnan(delays)], waits.censored, waits.started),
        class_p95_delay_h=_class_p95_delays(jobs, delays),
        class_cannot_run_share=_class_cannot_run(jobs, ok),
        jobs_completed=int((started & (runs.end_h <= horizon_h)).sum()),
        jobs_running_at_horizon=int((started & (runs.end_h > horizon_h)).sum()),
        jobs_queued_at_horizon=waits.censored,
        cannot_run=cannot_run,
        paid_gpu_hours=paid,
        busy_gpu_hours=float(ledger.gpu_hours_busy.sum()),
        measures={m.name: m.of(runs, paid) for m in declared_measures()},
        project_ends=ends,
        tax=None if taxed is None else Taxed.of(ledger, cash, npv_usd, discount_rate, taxed),
        carbon_t=0.0 if ledger.footprint is None else ledger.footprint.total_t,
        team_p95_delay_h=_team_p95_delays(jobs, delays),
    )


def _class_p95_delays(jobs: Jobs, delays: np.ndarray) -> dict[str, float]:
    """Each job class's p95 delay, of its jobs that can run (``_p95_by``)."""
    return _p95_by(jobs.class_names, jobs.job_class, delays)


def _team_p95_delays(jobs: Jobs, delays: np.ndarray) -> dict[str, float]:
    """Each team's p95 delay, of its jobs that can run; none when no team is named."""
    teams, team = jobs.team_of_jobs()
    return _p95_by(teams, team, delays)


def _p95_by(names: tuple[str, ...], of: np.ndarray, delays: np.ndarray) -> dict[str, float]:
    """Each group's p95 delay (``of``: each job's group, an index into ``names``), of its jobs
    that can run: 0 when it has no job; NaN, not known, when none of its jobs can run."""
    out = {}
    for k, name in enumerate(names):
        mine = of == k
        d = delays[mine & ~np.isnan(delays)]
        out[name] = float(np.percentile(d, 95)) if len(d) else (math.nan if mine.any() else 0.0)
    return out


def _class_cannot_run(jobs: Jobs, runnable: np.ndarray) -> dict[str, float]:
    """Each job class's share of its work that cannot run (0 when it has none)."""
    work = jobs.work_ref_gpu_h
    total = np.bincount(jobs.job_class, weights=work, minlength=len(jobs.class_names))
    lost = np.bincount(
        jobs.job_class[~runnable], weights=work[~runnable], minlength=len(jobs.class_names)
    )
    return {
        name: float(lost[k] / total[k]) if total[k] > 0 else 0.0
        for k, name in enumerate(jobs.class_names)
    }


def _reasons(runs: JobRuns) -> list[str]:
    """Codes of the reasons jobs cannot run, in the order of the first job with each."""
    return list(dict.fromkeys(runs.reason[~runs.runnable].tolist()))


def cannot_run_examples(jobs: Jobs, runs: JobRuns) -> dict[str, list[str]]:
    """Reason text -> ids of the first few jobs that cannot run for it (ids built only for
    these, not for every job)."""
    return {
        runs.reason_text[code]: [
            jobs.job_id(int(i)) for i in np.nonzero(runs.reason == code)[0][:EXAMPLES_PER_REASON]
        ]
        for code in _reasons(runs)
    }
