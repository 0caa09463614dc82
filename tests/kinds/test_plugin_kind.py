"""An option kind is a plug-in: this file defines one, registers it, and runs a scenario with it
end to end (summary.json, report.html, budget.xlsx) without changing any project module.

The toy kind, ``flat_rental``: a provider rents a fixed pool of GPUs for a flat monthly fee; jobs
queue for the pool, and each waits a random set-up time drawn from the kind's own random stream.
It declares what others may ask of it, and they pick it up: a knob its search turns (the GPUs
rented, which ``tco optimize`` and frontier.csv show), an input the what-ifs change (the set-up
time), and a measure of its own that summary.json and its schema list (the mean set-up time).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import jsonschema
import numpy as np
import openpyxl
import pandas as pd
import pytest
from pydantic import Field

from tco.pricing import hardware
from tco.reports import summary
from tco.reports.build import write_report
from tco.simulator.cluster.scheduler import QueueInput, simulate
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import NonNeg, OptionModel
from tco.simulator.core.quote import Quote
from tco.simulator.costs import ledger
from tco.simulator.costs.ledger import Category, Ledger
from tco.simulator.kinds import Context, Kind, registered
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.registry import KnownInput, WhatIfInput
from tco.simulator.kinds.runs import JobRuns, Measure, count, declare_measure, feasibility
from tco.simulator.run import run
from tco.simulator.scenario.model import loads_scenario
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware, run_hours

FEE_USD_PER_MONTH = 9_000.0


class FlatRental(OptionModel):
    kind: Literal["flat_rental"]
    name: str = Field(min_length=1)
    gpu: str
    gpus: int = Field(ge=1)
    usd_per_month: NonNeg
    setup_hours_mean: NonNeg = 2.0


@dataclass(frozen=True, kw_only=True)
class FlatRentalPlan(Plan):
    option: FlatRental


def _setup(o: dict[str, Any], change: float | str) -> bool:
    o["setup_hours_mean"] = o["setup_hours_mean"] * (1.0 + float(change))
    return True


class FlatRentalKind(Kind[FlatRental, FlatRentalPlan]):
    name = "flat_rental"
    model = FlatRental
    label = "flat-rate GPU rental"
    knobs = ("gpus",)
    sizes = ("gpus",)
    can_do = frozenset({Can.SEARCH, Can.WHAT_IFS, Can.TABLES})  # beyond play and price
    data_site = "cloud"  # its data lives where it rents (the kind contract asks every kind)

    def __init__(self) -> None:
        # Declared when registered, not at import, so that it lives only while it is.
        declare_measure(
            Measure("mean_setup_hours", "the toy's mean set-up time", count("mean_setup_hours"))
        )

    def what_ifs(self) -> tuple[WhatIfInput, ...]:
        return (WhatIfInput("set-up time", (-0.5, 3.0), _setup),)

    # What every kind is asked (abstract in Kind): the toy answers each, if only "nothing".
    def providers_of(self, plan: FlatRentalPlan) -> set[str]:
        # The toy's provider is none of the price book's: no egress to it is priced, and the
        # kind says so here rather than by forgetting (tests/kinds/test_kind_contract.py).
        return set()

    def gpus_of(self, plan: FlatRentalPlan) -> set[str]:
        return {plan.hardware.gpu}

    def servers_of(self, plan: FlatRentalPlan) -> tuple[int, int] | None:
        return None  # rents

    def keeps_existing(self, option: FlatRental, options: Mapping[str, OptionModel]) -> bool:
        return False

    def check(self, option: FlatRental, ctx: Context) -> None:
        """It refers to no other option or price: nothing to check."""

    def caveats(
        self,
        option: FlatRental,
        options: tuple[OptionModel, ...],
        quotes: tuple[Any, ...],
        drawn: tuple[Any, ...] = (),
    ) -> list[str]:
        return [f"{option.name}'s fee is the scenario's own figure (a toy)."]

    def uncertainties(self, plan: FlatRentalPlan, where: str) -> list[KnownInput]:
        return []

    def resale_basis(self, option: FlatRental, options: tuple[OptionModel, ...]) -> str | None:
        return None

    def remarks(self, name: str, metrics: Any) -> list[str]:
        return []

    def search(
        self, option: FlatRental, prepared: Any, index: int, evaluate: Callable[..., Any]
    ) -> list[Any]:
        return [evaluate(option.model_copy(update={"gpus": n}), {"gpus": n}) for n in (4, 16)]

    def plan(self, option: FlatRental, ctx: Context) -> FlatRentalPlan:
        g = hardware.gpu(option.gpu)
        fee = Quote("monthly fee", option.usd_per_month, "USD/month", "scenario", "undated", "toy")
        return FlatRentalPlan(
            option=option,
            hardware=Hardware(g.name, g.memory_gb, option.gpus, "nvswitch_a100", "ib_hdr", 0.0),
            quotes=(fee,),
            description=f"{option.gpus} x {g.name}, flat fee",
        )

    def play(
        self, jobs: Jobs, plan: FlatRentalPlan, horizon_h: float, rng: np.random.Generator
    ) -> JobRuns:
        run_h = run_hours(jobs, plan.hardware)
        reason, text = feasibility(jobs, plan.hardware, plan.option.gpus, "GPUs rented")
        setup = rng.exponential(plan.option.setup_hours_mean, len(jobs))
        start = np.full(len(jobs), np.nan)
        ok = np.nonzero(reason == "")[0]
        capacity = [(0.0, plan.option.gpus)]
        got = simulate(
            QueueInput(
                jobs.arrival_h[ok], jobs.gpus[ok], run_h[ok] + setup[ok], capacity, horizon_h
            )
        )
        start[ok] = got + setup[ok]
        start[start >= horizon_h] = np.nan
        return JobRuns(
            run_h=run_h,
            gpus=jobs.gpus,
            units=jobs.gpus,
            start_h=start,
            end_h=start + run_h,
            reason=reason,
            reason_text=text,
            counts={"mean_setup_hours": float(setup.mean()) if len(setup) else 0.0},
        )

    def ledger(self, plan: FlatRentalPlan, runs: JobRuns, edges: np.ndarray) -> Ledger:
        # Declared here, not at import, so that it lives only while the kind is registered.
        ledger.declare(Category("rental", "flat rental fee", "cloud prices", "#17becf"))
        months = len(edges) - 1
        fee = np.full(months, plan.option.usd_per_month * plan.option.gpus / 8)  # per 8 GPUs
        month_h = np.diff(edges)
        return Ledger(
            cash={"rental": fee},
            accounting={"rental": fee.copy()},
            gpu_hours_paid=month_h * plan.option.gpus,
            gpu_hours_busy=np.zeros(months),
        )

    def report_tables(
        self, months: tuple[str, ...], ledger: Ledger
    ) -> list[tuple[str, pd.DataFrame]]:
        fees = pd.DataFrame({"month": list(months), "flat fee (USD)": ledger.cash["rental"]})
        return [("Flat fees of the toy rental", fees)]


SCENARIO = """
name: plugin-kind
start: 2027-01
horizon_months: 6
seed: 5
workload:
  job_classes:
    - {name: train, arrivals_per_month: 40, gpus: 2,
       work: {reference_gpu: A100 SXM 40GB, gpu_hours: 6}}
options:
{options}
"""
OWNED = "  - {name: own, kind: owned, server: 8x A40 NVLink server, servers: 1}"
TOY = (
    "  - {name: toy, kind: flat_rental, gpu: A100 SXM 40GB, gpus: 8,"
    f" usd_per_month: {FEE_USD_PER_MONTH}}}"
)


def _scenario(*options: str) -> str:
    return SCENARIO.replace("{options}", "\n".join(options))


def test_a_kind_registered_in_a_test_runs_end_to_end(tmp_path: Path) -> None:
    with registered(FlatRentalKind):
        result = run(loads_scenario(_scenario(OWNED, TOY)))
        write_report(result, tmp_path, ("json", "html", "xlsx"))
        schema = summary.schema()
        assert "flat_rental" in schema["$defs"]["option"]["properties"]["kind"]["enum"]
    doc = json.loads((tmp_path / "summary.json").read_text())
    jsonschema.validate(doc, schema)
    toy = next(o for o in doc["options"] if o["name"] == "toy")
    assert toy["kind"] == "flat_rental"
    assert toy["totals_usd"]["cash"] == pytest.approx(6 * FEE_USD_PER_MONTH)
    assert toy["monthly"]["cash_usd"]["rental"] == [FEE_USD_PER_MONTH] * 6
    assert toy["jobs"]["completed"] > 0
    html = (tmp_path / "report.html").read_text()
    assert "Flat fees of the toy rental" in html and ">rental (USD)</th>" in html
    book = openpyxl.load_workbook(tmp_path / "budget.xlsx")
    cells = {str(c.value) for ws in book.worksheets for row in ws.iter_rows() for c in row}
    assert "Flat fees of the toy rental" in cells
    assert "toy (flat_rental): 8 x A100 SXM 40GB, flat fee" in cells


def test_adding_an_option_leaves_another_options_random_numbers_alone() -> None:
    with registered(FlatRentalKind):
        alone = run(loads_scenario(_scenario(TOY))).option("toy")
        beside = run(loads_scenario(_scenario(OWNED, TOY))).option("toy")
    np.testing.assert_array_equal(alone.runs.start_h, beside.runs.start_h)
    waits = alone.runs.start_h - run(loads_scenario(_scenario(OWNED))).jobs.arrival_h
    assert np.nanmin(waits) > 0  # the random set-up times were drawn and used


def test_a_kind_is_gone_after_its_block() -> None:
    with registered(FlatRentalKind):
        run(loads_scenario(_scenario(TOY)))
    with pytest.raises(ScenarioError, match=r"unknown option kind 'flat_rental'.*valid: .*owned"):
        loads_scenario(_scenario(TOY))
    assert ledger.category("rental").group is None  # its category declaration went with it


def test_a_kind_must_declare_its_own_name_as_the_literal() -> None:
    class Misnamed(FlatRentalKind):
        name = "not_flat_rental"

    with pytest.raises(TypeError, match="Literal\\['not_flat_rental'\\]"), registered(Misnamed):
        pass


def test_what_a_kind_declares_reaches_the_optimiser_the_what_ifs_and_the_summary(
    tmp_path: Path,
) -> None:
    from tco.pricing.book import PriceBook
    from tco.reports.optimize_files import frontier_csv
    from tco.simulator.advice.optimize import optimize
    from tco.simulator.run import prepare

    with registered(FlatRentalKind):
        sc = loads_scenario(_scenario(OWNED, TOY))
        book = PriceBook("snapshot")
        configs = optimize(prepare(sc, book), book)
        result = run(sc)
        write_report(result, tmp_path, ("json",))
        schema = summary.schema()
    toy = [c for c in configs if c.option == "toy"]
    assert {c.knobs.get("gpus") for c in toy} >= {4, 16}  # its search, its knob
    assert "gpus" in frontier_csv(configs).splitlines()[0].split(",")
    asked = {w.input for w in result.what_ifs}
    assert "set-up time" in asked  # its what-if input, beside the workload's and the owned's
    doc = json.loads((tmp_path / "summary.json").read_text())
    jsonschema.validate(doc, schema)
    means = {o["name"]: o["mean_setup_hours"] for o in doc["options"]}
    assert means["toy"] == pytest.approx(2.0, rel=0.3) and means["own"] == 0.0
    assert "mean_setup_hours" not in summary.schema()["$defs"]["option"]["properties"]  # gone
