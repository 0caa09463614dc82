"""The simulation itself, with no advice: a scenario prepared (prices, trace, jobs) and every
option played on the same job stream. ``run`` adds the recommendation and the analyses
that run the engine again (resized clusters, what-ifs), which is why they live apart from it.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from tco.pricing import rental_paths, snapshot
from tco.pricing.book import PriceBook
from tco.simulator.core.calendar import month_edges_h, month_labels
from tco.simulator.core.errors import LimitExceeded, ScenarioError
from tco.simulator.core.fields import OptionModel
from tco.simulator.core.limits import MAX_OPTION_JOBS
from tco.simulator.costs import data as storage
from tco.simulator.costs import rental_path
from tco.simulator.costs.carbon import Carbon
from tco.simulator.costs.finance import break_even_month
from tco.simulator.engine import allowance, existing, model_fit
from tco.simulator.engine.metrics import cannot_run_examples, measure
from tco.simulator.engine.prepared import Prepared, draw_jobs, option_rng
from tco.simulator.engine.result import OptionResult, Result
from tco.simulator.engine.verdicts import choose, verdict
from tco.simulator.kinds import costing, registry
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.runs import JobRuns
from tco.simulator.scenario.model import Scenario, validate
from tco.simulator.scenario.service_level import check_classes
from tco.simulator.workload.replayed import ReadTrace, read_trace


def version() -> str:
    """The installed tco version."""
    try:
        return metadata.version("tco")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def resolve_plans(
    scenario: Scenario, book: PriceBook, file: str = "<scenario>"
) -> tuple[Plan, ...]:
    """Every option resolved into its plan: the run's only price look-ups (``tco validate`` calls
    it too, so a price the run would miss is reported there)."""
    plans = tuple(plan_option(scenario, i, o, book, file) for i, o in enumerate(scenario.options))
    w = scenario.workload
    references = {c.work.reference_gpu for _, c in w.stated}
    references |= {w.trace.source_gpu} if w.trace is not None else set()
    _check_speed_paths(scenario, plans, references, file)
    return plans


def plan_option(
    scenario: Scenario, index: int, option: OptionModel, book: PriceBook, file: str
) -> Plan:
    """Option ``index`` (or a variant of it, for the optimiser) resolved by its kind, with the
    scenario's data costs where its data lives, and the sale of the site's existing servers
    when it does not run them (``engine.existing``)."""
    kind = registry.of(option)
    plan: Plan = kind.plan(option, scenario.context(file, index, book))
    site = existing.site_servers(scenario, book, file)
    if site is not None and not kind.keeps_existing(option, {o.name: o for o in scenario.options}):
        plan = existing.sold_at_start(plan, site, scenario.horizon_months)
    if scenario.escalation.rates():
        plan = replace(plan, escalation=scenario.escalation.rates())
    plan = rental_prices(plan, scenario)
    plan = replace(plan, carbon=Carbon.of(scenario.carbon, scenario.region))
    if scenario.after_horizon == "ends":
        plan = replace(plan, project_ends=True)
    if scenario.tax is not None:
        plan = replace(
            plan, tax=scenario.tax.rules(scenario.start, scenario.fiscal_year_start_month)
        )
    data = scenario.data
    if data is None or kind.data_site is None:
        return plan
    months = scenario.horizon_months
    if kind.data_site == "cloud":
        fixed, quotes = storage.cloud(data, months, scenario.region)
        away = kind.providers_of(plan) - {data.home}
        if away and (data.stored_tb or data.stored_tb_added_per_month):
            moved, more = storage.moved_out(data, months, away)
            fixed = {**fixed, "egress": fixed["egress"] + moved}
            quotes = [*quotes, *more]
    else:
        fixed, quotes = storage.owned(data, months, file)
    return replace(plan, fixed_costs=fixed, quotes=(*plan.quotes, *quotes))


def rental_prices(plan: Plan, scenario: Scenario) -> Plan:
    """``plan`` with the scenario's rental price curve (``market.rental_prices.curve``, or
    ``escalation.rentals`` as one: a scenario states one of the two) and the volatility of
    their path (fitted for the GPU the option rents, when the scenario says ``fitted``)."""
    months = scenario.horizon_months
    moves = scenario.market.rental_prices
    curve = scenario.escalation.rental_curve(months)
    if moves is not None and moves.curve:
        curve = rental_path.curve(moves.curve, scenario.start, months)
    sigma = None if moves is None else moves.volatility
    if sigma == "fitted":
        sigma = rental_paths.fitted().volatility(plan.rented_gpu())[0]
    if curve is None and not sigma:
        return plan
    return replace(plan, rental_curve=curve, rental_volatility=float(sigma or 0.0))


def revised(
    base: Prepared, book: PriceBook, change: Callable[[dict[str, Any]], object]
) -> Prepared:
    """``base`` with ``change`` applied to its scenario's data: validated again (a value out of
    its range is an error, never clipped), its plans resolved again from ``book`` (a frozen
    book: no price is fetched), its jobs drawn again; the trace is not read again. What-ifs and
    sweeps re-run the engine through it."""
    data = base.scenario.model_dump()  # Python values: month keys stay integers
    change(data)
    scenario = validate(data, base.file, book, check=False)
    return prepare(scenario, book, base.file, base.sha256, trace=base.trace)


def play_option(
    prepared: Prepared, plan: Plan, rng: np.random.Generator, index: int | None = None
) -> JobRuns:
    """The kind's play of ``plan`` on the prepared jobs; work beyond a limit found while playing
    becomes a ScenarioError naming the file and the option (``index``: its place among the
    scenario's options; by default the option of that name)."""
    option = plan.option
    allowance.charge(len(prepared.jobs))  # the run's plays, bounded (``engine.allowance``)
    try:
        return registry.of(option).play(prepared.jobs, plan, prepared.horizon_h, rng)
    except LimitExceeded as exc:
        names = [o.name for o in prepared.scenario.options]
        i = index if index is not None else names.index(option.name)
        field = f"options[{i}].{exc.field}" if exc.field else f"options[{i}]"
        raise ScenarioError(prepared.file, field, f"{option.name}: {exc.message}") from None


def prepare(
    scenario: Scenario,
    book: PriceBook | None = None,
    file: str = "<scenario>",
    sha256: str = "",
    trace: ReadTrace | None = None,
) -> Prepared:
    """Resolve every option's prices, read the trace (if any; ``trace``: already read) and draw
    the job stream."""
    book = book or PriceBook()
    scenario_dir = Path(file).parent if file != "<scenario>" else Path(".")
    tr = scenario.workload.trace
    if trace is None and tr is not None:
        trace = read_trace(tr, scenario_dir)
    plans = resolve_plans(scenario, book, file)
    snap = snapshot.load()
    jobs = draw_jobs(scenario, trace)
    teams = scenario.workload.teams
    check_classes(scenario.service_level, jobs.class_names, file, teams)  # a trace's, now known
    model_fit.check(scenario, plans, jobs, file)
    held = len(jobs) * len(plans)
    if held > MAX_OPTION_JOBS.value():
        found = f"{len(jobs):,} jobs on {len(plans)} options are {held:,} job runs to hold"
        raise ScenarioError(file, "options", MAX_OPTION_JOBS.exceeded(found))
    return Prepared(
        scenario=scenario,
        file=file,
        sha256=sha256,
        version=version(),
        months=tuple(month_labels(scenario.start, scenario.horizon_months)),
        edges=month_edges_h(scenario.start, scenario.horizon_months),
        plans=plans,
        trace=trace,
        jobs=jobs,
        price_provenance={
            "price_mode": book.mode + (" (offline)" if book.offline else ""),
            "snapshot_as_of": str(snap["as_of"]),
            **{f"snapshot_{k}": str(v) for k, v in snap["provenance"].items()},
        },
        price_warnings=tuple(book.warnings),
    )


def _check_speed_paths(
    scenario: Scenario, plans: tuple[Plan, ...], references: set[str], file: str
) -> None:
    """An uncertain ``speed.<GPU>`` must name a GPU an option runs on, other than one the work
    is stated on (its speed relative to itself is 1): any other would draw a speed no play
    uses, and the odds would look surer than they are."""
    run_on = sorted({g for p in plans for g in registry.of(p.option).gpus_of(p)} - references)
    for i, u in enumerate(scenario.uncertain):
        if u.speed_gpu is not None and u.speed_gpu not in run_on:
            why = "the work is stated on it" if u.speed_gpu in references else "no option runs it"
            valid = ", ".join(f"speed.{g}" for g in run_on) or "none (no other GPU is used)"
            raise ScenarioError(file, f"uncertain[{i}].path", f"{u.path}: {why}; valid: {valid}")


def _play_option(prepared: Prepared, plan: Plan) -> OptionResult:
    """One option: play, ledgers, metrics (break-even is filled in once all are known)."""
    runs = play_option(prepared, plan, option_rng(prepared.scenario.seed, plan.option.name, "play"))
    return _priced(prepared, plan, runs)


def _rents_from(plan: Plan, runs: JobRuns) -> tuple[str, ...]:
    """The providers the option of ``plan`` rents from, its parts' too (a hybrid's burst)."""
    parts = registry.of(plan.option).parts_of(plan, runs)
    return tuple(
        sorted({p for part, _ in parts for p in registry.of(part.option).providers_of(part)})
    )


def _said_nowhere() -> None:
    """Where jobs ran, for a kind that does not say (jobs.csv leaves the columns empty)."""
    return None


def _priced(prepared: Prepared, plan: Plan, runs: JobRuns) -> OptionResult:
    """One option's ledgers and metrics from its runs."""
    kind = registry.of(plan.option)
    sc = prepared.scenario
    ledger = costing.costs(plan, runs, prepared.edges)
    return OptionResult(
        name=plan.option.name,
        kind=kind.name,
        description=plan.description,
        quotes=plan.quotes,
        ledger=ledger,
        runs=runs,
        metrics=measure(
            prepared.jobs,
            runs,
            ledger,
            prepared.horizon_h,
            sc.discount_rate,
            late_after_h=sc.service_level.allowed_h,
            ends=plan.project_ends,
            taxed=None if plan.tax is None else plan.tax.after_tax,
        ),
        cannot_run_examples=cannot_run_examples(prepared.jobs, runs),
        break_even={},
        servers=kind.servers_of(plan),
        rents_from=_rents_from(plan, runs),
        places_of=functools.partial(kind.job_places, plan, runs, ledger)
        if kind.can(Can.PLACES)
        else _said_nowhere,
    )


def play_named(prepared: Prepared, name: str) -> OptionResult:
    """One option of ``prepared``, played and priced alone (a tracked plan replays its own)."""
    plan = next(p for p in prepared.plans if p.option.name == name)
    return _play_option(prepared, plan)


def simulate_options(
    prepared: Prepared,
    seed: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Result:
    """Simulate every option of a prepared model on the same job stream (``seed``: draw the
    jobs from another seed first); pure. ``progress`` is called with each option's name."""
    if seed is not None:
        prepared = prepared.with_seed(seed)
    played = []
    for plan in prepared.plans:
        if progress is not None:
            progress(plan.option.name)
        played.append(_play_option(prepared, plan))
    return _assembled(prepared, played)


def repriced(prepared: Prepared, base: Result) -> Result:
    """``prepared``'s options priced on ``base``'s runs of them: for a change that moves money
    only (a ledger's input), which re-playing would leave the runs of. Pure, and the same
    result as :func:`simulate_options` on those inputs."""
    runs = {o.name: o.runs for o in base.options}
    return _assembled(prepared, [_priced(prepared, p, runs[p.option.name]) for p in prepared.plans])


def replayed(prepared: Prepared, base: Result, names: set[str]) -> Result:
    """``prepared``'s options ``names`` played, the others kept as ``base`` played them (a
    what-if plays again only the options that could be the answer under it)."""
    kept = {o.name: o for o in base.options}
    played = [
        _play_option(prepared, p) if p.option.name in names else kept[p.option.name]
        for p in prepared.plans
    ]
    return _assembled(prepared, played)


def reused(prepared: Prepared, base: Result, names: set[str]) -> Result:
    """What :func:`replayed` gives on the ``prepared`` that ``base`` was played on, without
    playing: the same inputs and seed play the same runs. The options ``names`` are new objects,
    as played ones are (a what-if tells what it played from what it kept by identity)."""
    return _assembled(prepared, [copy.copy(o) if o.name in names else o for o in base.options])


def with_option(
    prepared: Prepared, result: Result, option: OptionModel, book: PriceBook
) -> tuple[Prepared, Result]:
    """``prepared`` and its ``result`` with one more option, played alone on the same jobs (the
    others' runs are kept: an option's play depends on nothing but itself); break-evens,
    verdicts and the recommendation taken again over all of them."""
    sc = prepared.scenario
    scenario = sc.model_copy(update={"options": [*sc.options, option]})
    plan = plan_option(scenario, len(sc.options), option, book, prepared.file)
    grown = replace(prepared, scenario=scenario, plans=(*prepared.plans, plan))
    return grown, _assembled(grown, [*result.options, _play_option(grown, plan)])


def _assembled(prepared: Prepared, played: list[OptionResult]) -> Result:
    """The result of options played on ``prepared``'s jobs: break-evens between them, each
    one's verdict and the recommendation among them."""
    totals = {o.name: o.ledger.cash_total() for o in played}
    options = tuple(
        replace(
            o,
            break_even={
                other: break_even_month(totals[o.name], t)
                for other, t in totals.items()
                if other != o.name
            },
        )
        for o in played
    )
    level = prepared.scenario.service_level
    verdicts = {o.name: verdict(level, o) for o in options}
    return Result(
        verdicts=verdicts,
        recommendation=choose(options, verdicts),
        scenario=prepared.scenario,
        scenario_file=prepared.file,
        scenario_sha256=prepared.sha256,
        version=prepared.version,
        months=prepared.months,
        horizon_h=prepared.horizon_h,
        jobs=prepared.jobs,
        options=options,
        price_provenance=prepared.price_provenance,
        price_warnings=prepared.price_warnings,
    )
