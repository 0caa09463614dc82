"""The scenario: what work is expected and which options are weighed, read from YAML.

Input is checked in stages (as Ciw does): parse the YAML (syntax, duplicate keys,
``scenario.yaml_input``); validate the top level, then each option by its registered kind
(``simulator.kinds``), with pydantic (unknown keys, wrong types, negative prices); then check the
names it refers to (GPU models, servers, instance types) against the catalogs and the price book.
Any problem becomes one :class:`~tco.simulator.core.errors.ScenarioError` naming the file, the field
path, what is valid and the closest match (``scenario.explain``).
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SerializeAsAny, ValidationError, model_validator

from tco.pricing import hardware, providers
from tco.pricing.book import PriceBook
from tco.pricing.errors import PricingError
from tco.pricing.providers import user_file
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Month, Name, OptionModel, Strict
from tco.simulator.core.input_files import InputFileError, read_input
from tco.simulator.core.limits import MAX_JOBS
from tco.simulator.costs.carbon import CarbonSpec
from tco.simulator.costs.chargeback import ChargebackSpec, check_shares
from tco.simulator.costs.data import DataSpec
from tco.simulator.costs.escalation import Escalation
from tco.simulator.costs.money import USD, Currency, CurrencyCode, ExchangeRate
from tco.simulator.costs.tax import Tax
from tco.simulator.kinds import registry
from tco.simulator.kinds.market import Market
from tco.simulator.kinds.site import Site
from tco.simulator.scenario.candidates import Candidates
from tco.simulator.scenario.explain import explain, unknown_kind, wrong_branch
from tco.simulator.scenario.service_level import ServiceLevel, check_classes
from tco.simulator.scenario.uncertainty import Odds, Uncertain, get_path, set_path
from tco.simulator.scenario.yaml_input import parse_yaml
from tco.simulator.workload.arrivals import monthly_rates
from tco.simulator.workload.spec import Sharing, SpeedOverrides, Workload, check_sharing, unique
from tco.simulator.workload.traces import read as read_trace_file

__all__ = ["Scenario", "load_scenario", "loads_scenario", "parse_yaml", "validate"]


class Scenario(Strict):
    """A whole scenario file. ``options`` hold each option kind's own model."""

    name: Name
    description: str = ""
    start: Month  # first month, YYYY-MM
    horizon_months: Annotated[int, Field(ge=1, le=120)]
    # What the horizon is: a window on an operation that continues ("continues": a commitment,
    # lease or loan running past it is the next window's cost, reported apart), or the end of
    # a project ("ends": what is contracted for after it is spent, and counted in the totals).
    after_horizon: Literal["continues", "ends"] = "continues"
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = 0
    region: str = "us-east-1"
    # Reports show money in this ISO 4217 currency at ``exchange_rate`` (simulator/costs/money.py).
    currency: CurrencyCode = "USD"
    exchange_rate: ExchangeRate | None = None
    discount_rate: Annotated[float, Field(ge=0, lt=1)] = 0.0  # per year
    fiscal_year_start_month: Annotated[int, Field(ge=1, le=12)] = 1  # the spreadsheet, tax years
    workload: Workload
    speed: SpeedOverrides | None = None  # overrides of calibrated GPU speeds, with a source
    service_level: ServiceLevel = Field(default_factory=ServiceLevel)
    data: DataSpec | None = None  # data kept and moved (simulator.storage)
    site: Site | None = None  # what the site can power (kinds.site): servers beyond it not bought
    escalation: Escalation = Field(default_factory=lambda: Escalation())
    # Income tax (costs.tax): None, figures before tax (a university or non-profit pays none).
    tax: Tax | None = None
    # Carbon (costs.carbon): always reported; priced into cash when given a price per tonne.
    carbon: CarbonSpec | None = None
    # How each team's bill charges capacity no job used (costs.chargeback); teams are named on
    # job classes, one-off runs and a trace.
    chargeback: ChargebackSpec = Field(default_factory=ChargebackSpec)
    # How the teams share owned servers: first come, first served, or by the teams' priority.
    sharing: Sharing = Field(default_factory=Sharing)
    price_files: list[str] = Field(default_factory=list)  # a user's prices as providers
    uncertain: list[Uncertain] = Field(default_factory=list)  # for tco sweep and the odds
    market: Market = Field(default_factory=Market)  # spot interruptions and capacity, as taken
    odds: Odds = Field(default_factory=Odds)  # how many futures the answer's odds are drawn from
    # What the recommendation chooses from: "portfolio", the options as listed and the mixes the
    # portfolio search composes of them (advice.portfolio); "given", the options as listed only
    # (the answer still says what the search would have saved); "none", the options as listed
    # and no search (the quickest run: the answer cannot say whether a mix would be cheaper).
    search: Literal["portfolio", "given", "none"] = "portfolio"
    # Options the search may propose beyond those listed, from the catalog and the price data
    # (scenario.candidates; advice.candidates proposes and prunes them).
    candidates: Candidates | None = None
    options: list[SerializeAsAny[OptionModel]] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_options(self) -> Scenario:
        unique([o.name for o in self.options], "option")
        return self

    @model_validator(mode="after")
    def _rental_trend_once(self) -> Scenario:
        moves = self.market.rental_prices
        if moves is not None and moves.curve and self.escalation.rentals:
            raise ValueError(
                "rental prices move by escalation.rentals or by market.rental_prices.curve, not"
                " both: state the trend once (a curve, or a yearly rate)"
            )
        return self

    @model_validator(mode="after")
    def _rate_for_the_currency(self) -> Scenario:
        if self.currency != "USD" and self.exchange_rate is None:
            raise ValueError(
                f"currency {self.currency} needs exchange_rate: {{per_usd: <{self.currency} one"
                " USD buys>, as_of: YYYY-MM-DD, source: <where the rate comes from>}"
            )
        if self.currency == "USD" and self.exchange_rate is not None:
            raise ValueError("exchange_rate is for a currency other than USD: remove it")
        return self

    @property
    def money(self) -> Currency:
        """The currency reports show money in."""
        r = self.exchange_rate
        return USD if r is None else Currency(self.currency, r.per_usd, r.as_of, r.source)

    def option(self, name: str) -> OptionModel:
        """The option called ``name`` as the scenario gives it (KeyError if none)."""
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(name)

    def context(self, file: str, index: int, book: PriceBook) -> registry.Context:
        """What option ``index`` is checked and resolved with."""
        return registry.Context(
            file=file,
            where=f"options[{index}]",
            start=self.start,
            horizon_months=self.horizon_months,
            region=self.region,
            book=book.converting(self.money.quote_rates()),
            speed_overrides=dict(self.speed.scores) if self.speed else {},
            speed_source=self.speed.source if self.speed else "",
            options={o.name: (i, o) for i, o in enumerate(self.options)},
            market=self.market,
            data=self.data,
            site=self.site,
        )


def _options(raw: list[Any]) -> tuple[list[OptionModel], list[dict[str, Any]]]:
    """Each option validated by the model of its kind; errors located under options[i]."""
    options: list[OptionModel] = []
    errors: list[dict[str, Any]] = []
    for i, item in enumerate(raw):
        loc: tuple[int | str, ...] = ("options", i)
        if not isinstance(item, dict):
            msg = "Input should be a valid dictionary or object to extract fields from"
            errors.append({"type": "model_type", "loc": loc, "msg": msg, "input": item})
        elif item.get("kind") not in registry.names():
            errors.append({"type": "unknown_kind", "loc": loc, "msg": unknown_kind(item)})
        else:
            try:
                options.append(registry.get(item["kind"]).model.model_validate(item))
            except ValidationError as exc:
                errors += [{**e, "loc": (*loc, *e["loc"])} for e in exc.errors()]
    return options, errors


def validate(data: Any, file: str, book: PriceBook | None = None, check: bool = True) -> Scenario:
    """Python data -> Scenario; the first problem becomes a ScenarioError. Instance types are
    checked against ``book`` (the bundled snapshot by default); ``check=False`` skips the checks
    of named things (for a scenario already checked, with drawn values in it)."""
    if not isinstance(data, dict):
        raise ScenarioError(file, "", "a scenario must be a YAML mapping (key: value lines)")
    _price_files(data.get("price_files"), file)  # their providers, before the options name them
    raw = data.get("options")
    options, option_errors = _options(raw) if isinstance(raw, list) else ([], [])
    top: list[dict[str, Any]] = []
    try:
        scenario = Scenario.model_validate({**data, "options": options} if options else data)
    except ValidationError as exc:
        top = [dict(e) for e in exc.errors()]
        if option_errors:  # the options' own errors say more than "list too short"
            top = [e for e in top if tuple(e["loc"])[:1] != ("options",)]
    if top or option_errors:
        fields = [e for e in top if e["loc"]]
        errors = fields + option_errors + [e for e in top if not e["loc"]]
        # An unknown key is usually a typo of a required one: report it first, with the fix.
        errors.sort(key=lambda e: (e["type"] != "extra_forbidden", wrong_branch(e)))
        field, msg = explain(Scenario, errors[0], data)
        others = [e for e in errors[1:] if not wrong_branch(e)]  # (not the other branch's)
        more = f" (and {len(others)} more problem(s))" if others else ""
        raise ScenarioError(file, field, msg + more) from None
    if check:
        check_references(scenario, file, book or PriceBook())
    return scenario


def _price_files(given: Any, file: str) -> None:
    """Register each price file the scenario names (tco's CSV, as `tco prices import` writes
    it; relative to the scenario file) as a provider for the run."""
    if given is None:
        return
    if not isinstance(given, list) or not all(isinstance(f, str) for f in given):
        raise ScenarioError(file, "price_files", "a list of CSV files `tco prices import` wrote")
    for i, name in enumerate(given):
        path = Path(file).parent / name
        try:
            text = read_input(path, "a price file").decode("utf-8-sig")  # a BOM is text
            providers.register_user(user_file.load(text, str(name)))
        except InputFileError as exc:
            raise ScenarioError(file, f"price_files[{i}]", str(exc)) from None
        except (UnicodeDecodeError, ValueError, PricingError) as exc:
            raise ScenarioError(file, f"price_files[{i}]", f"{name}: {exc}") from None


def check_references(scenario: Scenario, file: str, book: PriceBook) -> None:
    """Check that every GPU, server, interconnect and instance type named exists."""

    def guard(field: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except PricingError as exc:
            raise ScenarioError(file, field, str(exc)) from None

    for where, c in scenario.workload.stated:
        guard(f"{where}.work.reference_gpu", hardware.gpu, c.work.reference_gpu)
    for i, r in enumerate(scenario.workload.runs):
        if r.month >= scenario.horizon_months:
            raise ScenarioError(
                file,
                f"workload.runs[{i}].month",
                f"{r.month} is past the horizon: give 0 to {scenario.horizon_months - 1}"
                " (months from the start)",
            )
    for name in scenario.speed.scores if scenario.speed else {}:
        guard(f"speed.scores.{name}", hardware.gpu, name)
    tr = scenario.workload.trace
    if tr is not None:
        guard("workload.trace.source_gpu", hardware.gpu, tr.source_gpu)
        guard("workload.trace.source_intra_node", hardware.interconnect, tr.source_intra_node)
        guard("workload.trace.source_inter_node", hardware.interconnect, tr.source_inter_node)
        path = Path(file).parent / tr.file
        if not path.exists() and Path(file).exists():
            raise ScenarioError(
                file,
                "workload.trace.file",
                f"no such file {tr.file!r} (relative to the scenario file)",
            )
        if path.exists():  # read the header and first rows: what simulate would refuse, now
            read_trace_file(
                path,
                tr.format,
                tr.columns,
                tr.timestamps,
                tr.utc_offset_hours,
                max_rows=200,
                sacct_format=tr.sacct_format,
                keep_unfinished=tr.keeps_unfinished,
            )
    _check_job_count(scenario, file)
    if tr is None:  # (a trace's classes are known once it is read: prepare checks them)
        names = scenario.workload.names
        check_classes(scenario.service_level, names, file, scenario.workload.teams)
    check_shares(scenario.chargeback, scenario.workload.teams, file)
    check_sharing(scenario.sharing, scenario.workload, file)
    for i, o in enumerate(scenario.options):
        registry.of(o).check(o, scenario.context(file, i, book))
    data = scenario.model_dump(mode="json")
    for i, u in enumerate(scenario.uncertain):
        if not u.is_price_group and u.speed_gpu is None:  # (speed: engine.simulate.prepare)
            try:  # on a copy: the path must lead to an existing number or text
                set_path(copy.deepcopy(data), u.path, 0)
            except (KeyError, IndexError) as exc:
                raise ScenarioError(file, f"uncertain[{i}].path", str(exc.args[0])) from None
            value = get_path(data, u.path)
            if isinstance(value, str) and value in {o.name for o in scenario.options}:
                raise ScenarioError(
                    file,
                    f"uncertain[{i}].path",
                    f"{u.path} names another option: which options make up an option is the"
                    " scenario's, not a quantity to draw",
                )


def _check_job_count(scenario: Scenario, file: str) -> None:
    """Refuse a workload whose expected job count is beyond the limit (before drawing it)."""
    for i, c in enumerate(scenario.workload.job_classes):
        expected = float(monthly_rates(c, scenario.start, scenario.horizon_months).sum())
        if expected > MAX_JOBS.value():
            found = f"about {expected:,.3g} jobs of this class are expected over the horizon"
            raise ScenarioError(
                file, f"workload.job_classes[{i}].arrivals_per_month", MAX_JOBS.exceeded(found)
            )


def read_scenario_file(path: str | Path) -> tuple[str, str]:
    """A scenario file's text and the SHA-256 of its bytes (read once: a regular file within
    ``TCO_MAX_INPUT_MB``, never a device or a pipe)."""
    p = Path(path)
    try:
        data = read_input(p, "a scenario file (YAML)")
        text = data.decode("utf-8")
    except InputFileError as exc:
        raise ScenarioError(str(p), "", exc.reason) from None
    except UnicodeDecodeError as exc:
        msg = f"not UTF-8 text (byte {exc.start}); give a YAML file"
        raise ScenarioError(str(p), "", msg) from None
    return text, hashlib.sha256(data).hexdigest()


def load_scenario(path: str | Path, book: PriceBook | None = None) -> Scenario:
    """Read, validate and check a scenario file."""
    text, _ = read_scenario_file(path)
    return validate(parse_yaml(text, str(path)), str(path), book)


def loads_scenario(text: str, file: str = "<string>") -> Scenario:
    """Validate a scenario given as YAML text (for notebooks and tests)."""
    return validate(parse_yaml(text, file), file)
