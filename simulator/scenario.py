"""The scenario: what work is expected and which options are weighed, read from YAML.

Input is checked in stages (as Ciw does): parse the YAML (syntax, duplicate keys), validate the
shape and ranges with pydantic (unknown keys, wrong types, negative prices), then check the names
it refers to (GPU models, servers, instance types) against the catalogs and the price book. Any
problem becomes one :class:`~simulator.errors.ScenarioError` naming the file, the field path,
what is valid and the closest match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tco.pricing import catalog
from tco.pricing.book import PriceBook
from tco.pricing.errors import PricingError, closest
from tco.simulator import defaults
from tco.simulator.errors import ScenarioError
from tco.simulator.trace import CsvColumns

NonNeg = Annotated[float, Field(ge=0)]
Pos = Annotated[float, Field(gt=0)]
Fraction = Annotated[float, Field(ge=0, lt=1)]


class Strict(BaseModel):
    """Base for every scenario section: unknown keys are errors, models are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------- workload


class GpuChoice(Strict):
    """GPUs per job drawn from ``choices`` with relative ``weights`` (equal when omitted)."""

    choices: list[Annotated[int, Field(ge=1)]] = Field(min_length=1)
    weights: list[NonNeg] | None = None

    @model_validator(mode="after")
    def _same_length(self) -> GpuChoice:
        if self.weights is not None:
            if len(self.weights) != len(self.choices):
                raise ValueError(
                    f"weights has {len(self.weights)} entries but choices has {len(self.choices)}"
                )
            if sum(self.weights) <= 0:
                raise ValueError("weights must not all be zero")
        return self


class Work(Strict):
    """Work per job in GPU-hours on ``reference_gpu`` (total over the job's GPUs).

    ``gpu_hours`` is the mean; ``distribution`` fixed, exponential or lognormal (``sigma`` is the
    standard deviation of the logarithm).
    """

    reference_gpu: str
    gpu_hours: Pos
    distribution: Literal["fixed", "exponential", "lognormal"] = "exponential"
    sigma: Pos = 1.0


class JobClass(Strict):
    """One kind of training job and how often it arrives."""

    name: str = Field(min_length=1)
    arrivals_per_month: NonNeg
    growth_per_month: Annotated[float, Field(gt=-1)] = 0.0  # compounding, 0.02 = +2 %/month
    seasonality: dict[Annotated[int, Field(ge=1, le=12)], NonNeg] = {}  # calendar month -> x
    gpus: Annotated[int, Field(ge=1)] | GpuChoice = 1
    work: Work
    memory_gb: NonNeg = 0.0  # per GPU
    comm_share: Fraction = defaults.COMM_SHARE  # on 8 GPUs over InfiniBand HDR


class Trace(Strict):
    """A recorded workload replayed on every option.

    Durations were measured on ``source_gpu`` (in servers of ``source_gpus_per_node`` joined by
    ``source_inter_node``); the speed model converts them for each option. ``file`` is relative to
    the scenario file. Filters apply first, then the time window, then scaling, repetition and
    growth.
    """

    file: str = Field(min_length=1)
    format: Literal["csv", "sacct", "xdmod"] = "csv"
    columns: CsvColumns = CsvColumns()
    timestamps: bool = False  # CSV: submit is an ISO timestamp, not seconds
    utc_offset_hours: Annotated[float, Field(ge=-14, le=14)] = 0.0  # of timestamps without one
    source_gpu: str
    source_gpus_per_node: Annotated[int, Field(ge=1)] = 8
    source_intra_node: str = "pcie4"
    source_inter_node: str = defaults.REFERENCE_LINK
    comm_share: Fraction = defaults.COMM_SHARE
    memory_gb: NonNeg = 0.0
    clusters: list[str] | None = None
    status: list[str] | None = None
    min_gpus: Annotated[int, Field(ge=1)] | None = None
    max_gpus: Annotated[int, Field(ge=1)] | None = None
    start_day: NonNeg | None = None  # window in days from the first (kept) submit
    end_day: Pos | None = None
    scale_arrivals: Pos = 1.0  # 2 = the same jobs arriving twice as fast
    growth_per_month: Annotated[float, Field(gt=-1)] = 0.0
    repeat: bool = False  # repeat the trace back to back to cover the horizon


class Workload(Strict):
    """The expected training work: job classes, a recorded trace, or both."""

    job_classes: list[JobClass] = []
    trace: Trace | None = None

    @model_validator(mode="after")
    def _unique_names(self) -> Workload:
        if not self.job_classes and self.trace is None:
            raise ValueError("give job_classes, a trace, or both")
        _unique([c.name for c in self.job_classes], "job class")
        return self


# ---------------------------------------------------------------- owned


class Tranche(Strict):
    """``servers`` ordered in month ``month`` (0 = the first month of the horizon)."""

    month: Annotated[int, Field(ge=0)] = 0
    servers: Annotated[int, Field(ge=1)]


class Depreciation(Strict):
    """How capex is spread in the accounting view. Salvage is a fraction of the purchase price."""

    method: Literal["straight_line", "declining_balance", "sum_of_years_digits"] = "straight_line"
    months: Annotated[int, Field(ge=1, le=240)] = defaults.DEPRECIATION_MONTHS
    salvage_fraction: Fraction = defaults.SALVAGE_FRACTION
    declining_factor: Annotated[float, Field(gt=0, le=4)] = defaults.DECLINING_BALANCE_FACTOR


class Power(Strict):
    """Electricity: draw (fractions of the server's maximum) x PUE x $/kWh."""

    pue: Annotated[float, Field(ge=1, le=3)] = defaults.PUE
    usd_per_kwh: NonNeg = defaults.ELECTRICITY_USD_PER_KWH
    busy_fraction: Annotated[float, Field(ge=0, le=1)] = defaults.BUSY_POWER_FRACTION
    idle_fraction: Annotated[float, Field(ge=0, le=1)] = defaults.IDLE_POWER_FRACTION


class Facility(Strict):
    """Space and cooling: colocation billed per provisioned kW per month, or an own room."""

    kind: Literal["colocation", "own"] = "colocation"
    usd_per_kw_month: NonNeg = defaults.COLOCATION_USD_PER_KW_MONTH


class Staff(Strict):
    """Share of staff time spent running the servers."""

    fte: NonNeg = 0.0
    usd_per_fte_year: NonNeg = 0.0


class Owned(Strict):
    """A purchased cluster of identical servers."""

    kind: Literal["owned"]
    name: str = Field(min_length=1)
    server: str
    price_usd: NonNeg | None = None  # per server; default from the catalog
    max_kw: NonNeg | None = None  # per server; default from the catalog
    servers: Annotated[int, Field(ge=1)] | None = None  # shortcut: all ordered in month 0
    tranches: list[Tranche] | None = None
    lead_time_months: NonNeg = 0.0
    network_usd: NonNeg = 0.0  # one-off, with the first tranche
    installation_usd_per_server: NonNeg = 0.0
    depreciation: Depreciation = Depreciation()
    sell_at_horizon: bool = True
    power: Power = Power()
    facility: Facility = Facility()
    support_pct_per_year: Annotated[float, Field(ge=0, le=100)] = 0.0
    staff: Staff = Staff()
    scheduler: Literal["fifo", "backfill"] = "fifo"
    backfill_depth: Annotated[int, Field(ge=1)] = defaults.BACKFILL_DEPTH

    @model_validator(mode="after")
    def _one_purchase_plan(self) -> Owned:
        if (self.servers is None) == (self.tranches is None):
            raise ValueError("give either servers (all bought in month 0) or tranches, not both")
        return self

    def purchase_plan(self) -> list[Tranche]:
        """The tranches, with the ``servers`` shortcut expanded."""
        if self.tranches is not None:
            return list(self.tranches)
        assert self.servers is not None
        return [Tranche(month=0, servers=self.servers)]


# ---------------------------------------------------------------- cloud


class CustomInstance(Strict):
    """A rented machine not in the AWS price book (e.g. another provider's bare metal)."""

    gpu: str
    gpus: Annotated[int, Field(ge=1)]
    usd_per_hour: NonNeg
    price_source: str = Field(min_length=1)
    price_as_of: str = Field(pattern=r"^\d{4}-\d{2}(-\d{2})?$")
    intra_node: str = "nvswitch_a100"
    inter_node: str = "ib_hdr"


class CloudBase(Strict):
    name: str = Field(min_length=1)
    instance_type: str | None = None
    instance: CustomInstance | None = None
    usd_per_hour: NonNeg | None = None  # overrides the price book
    price_source: str | None = None  # required with usd_per_hour
    quota_instances: Annotated[int, Field(ge=1)] | None = None
    provisioning_delay_minutes: NonNeg = 0.0
    virtualization_overhead: Fraction | None = None
    billing_increment_s: Annotated[float, Field(ge=1)] | None = None
    billing_minimum_s: NonNeg | None = None

    @model_validator(mode="after")
    def _one_machine(self) -> CloudBase:
        if (self.instance_type is None) == (self.instance is None):
            raise ValueError("give either instance_type (priced from AWS) or instance, not both")
        if self.usd_per_hour is not None and not self.price_source:
            raise ValueError("usd_per_hour needs price_source: say where the price comes from")
        return self


class OnDemand(CloudBase):
    """Elastic cloud instances billed per second."""

    kind: Literal["on_demand"]


class BareMetal(CloudBase):
    """Bare-metal instances rented by the hour; no virtualization overhead."""

    kind: Literal["bare_metal"]


class SavingsPlan(CloudBase):
    """On-demand instances under a Savings Plan commitment ($/hour, paid whether used or not)."""

    kind: Literal["savings_plan"]
    plan: Literal["Compute", "EC2Instance"] = "Compute"
    term_years: Literal[1, 3] = 1
    payment: Literal["No Upfront", "Partial Upfront", "All Upfront"] = "No Upfront"
    commitment_usd_per_hour: Pos | None = None
    commitment_instances: Pos | None = None  # commitment = this many instances at the plan rate
    rate_usd_per_hour: Pos | None = None
    discount: Fraction | None = None  # off the on-demand price
    rate_source: str | None = None
    renew: bool = True

    @model_validator(mode="after")
    def _commitment(self) -> SavingsPlan:
        if (self.commitment_usd_per_hour is None) == (self.commitment_instances is None):
            raise ValueError("give either commitment_usd_per_hour or commitment_instances")
        if self.rate_usd_per_hour is not None and self.discount is not None:
            raise ValueError("give rate_usd_per_hour or discount, not both")
        if (
            self.rate_usd_per_hour is not None or self.discount is not None
        ) and not self.rate_source:
            raise ValueError("a Savings Plan rate or discount needs rate_source")
        return self


Option = Annotated[Owned | OnDemand | SavingsPlan | BareMetal, Field(discriminator="kind")]
OPTION_KINDS = ("owned", "on_demand", "savings_plan", "bare_metal")


class Scenario(Strict):
    """A whole scenario file."""

    name: str = Field(min_length=1)
    description: str = ""
    start: str = Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")  # first month, YYYY-MM
    horizon_months: Annotated[int, Field(ge=1, le=120)]
    seed: Annotated[int, Field(ge=0)] = 0
    region: str = "us-east-1"
    currency: Literal["USD"] = "USD"
    discount_rate: Annotated[float, Field(ge=0, lt=1)] = 0.0  # per year
    fiscal_year_start_month: Annotated[int, Field(ge=1, le=12)] = 1  # for the spreadsheet
    workload: Workload
    options: list[Option] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_options(self) -> Scenario:
        _unique([o.name for o in self.options], "option")
        return self


def _unique(names: list[str], what: str) -> None:
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise ValueError(f"two {what}s are named {n!r}; names must be unique")
        seen.add(n)


# ---------------------------------------------------------------- loading


class _UniqueKeyLoader(yaml.SafeLoader):
    """A SafeLoader that rejects duplicate keys instead of silently keeping the last one."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node)
        if key in out:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (line {mark.line + 1})", mark
            )
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# Dates stay text ("2025-03-17"): the scenario validates them by pattern, and a date that YAML
# turned into an object would be reported as a wrong type.
_UniqueKeyLoader.add_constructor(
    "tag:yaml.org,2002:timestamp",
    lambda loader, node: loader.construct_scalar(node),  # type: ignore[arg-type]
)


def parse_yaml(text: str, file: str) -> Any:
    """YAML text -> Python data, with syntax errors as one-line ScenarioErrors."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "?"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScenarioError(file, where, f"YAML syntax error: {problem}") from None


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in OPTION_KINDS:
            continue  # pydantic adds the union tag to the path; the user never wrote it
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _fields_at(loc: tuple[int | str, ...], data: Any) -> list[str]:
    """Valid keys of the mapping at ``loc`` (used to suggest a fix for an unknown key)."""
    model: Any = Scenario
    node = data
    for part in loc:
        if isinstance(part, int):
            node = node[part] if isinstance(node, list) and part < len(node) else None
            continue
        if part in OPTION_KINDS:
            model = {
                "owned": Owned,
                "on_demand": OnDemand,
                "savings_plan": SavingsPlan,
                "bare_metal": BareMetal,
            }[str(part)]
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return []
        field = model.model_fields.get(str(part))
        node = node.get(part) if isinstance(node, dict) else None
        if field is None:
            return list(model.model_fields)
        model = _inner_model(field.annotation)
    return (
        list(model.model_fields) if isinstance(model, type) and issubclass(model, BaseModel) else []
    )


def _inner_model(annotation: Any) -> Any:
    """The BaseModel inside list[X] / X | None / Annotated[...] annotations, if any."""
    stack = [annotation]
    while stack:
        a = stack.pop()
        if isinstance(a, type) and issubclass(a, BaseModel):
            return a
        stack.extend(getattr(a, "__args__", ()))
        origin = getattr(a, "__origin__", None)
        if origin is not None and origin is not list:
            stack.extend(getattr(origin, "__args__", ()))
    return None


def _explain(err: dict[str, Any], data: Any) -> tuple[str, str]:
    loc = tuple(err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        valid = _fields_at((*loc[:-1], "__nope__"), data) or _fields_at(loc[:-1], data)
        valid = [v for v in valid if v != "kind"] if valid else valid
        return _path(loc), (
            f"unknown key {key!r}{closest(key, valid)}; valid keys: {', '.join(valid)}"
        )
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        tag = err.get("input", {}).get("kind") if isinstance(err.get("input"), dict) else None
        return _path(loc) + ".kind", (
            f"unknown option kind {tag!r}{closest(str(tag), OPTION_KINDS)};"
            f" valid: {', '.join(OPTION_KINDS)}"
            if tag is not None
            else f"missing kind; valid: {', '.join(OPTION_KINDS)}"
        )
    msg = str(err["msg"]).removeprefix("Value error, ")
    if kind == "missing":
        msg = "required field is missing"
    elif "input" in err and kind not in ("model_type",):
        shown = repr(err["input"])
        if len(shown) < 60:
            msg += f" (got {shown})"
    return _path(loc), msg


def validate(data: Any, file: str, book: PriceBook | None = None) -> Scenario:
    """Python data -> Scenario; the first problem becomes a ScenarioError. Instance types are
    checked against ``book`` (the bundled snapshot by default)."""
    if not isinstance(data, dict):
        raise ScenarioError(file, "", "a scenario must be a YAML mapping (key: value lines)")
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        # An unknown key is usually a typo of a required one: report it first, with the fix.
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        field, msg = _explain(dict(errors[0]), data)
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise ScenarioError(file, field, msg + more) from None
    check_references(scenario, file, book or PriceBook())
    return scenario


def check_references(scenario: Scenario, file: str, book: PriceBook) -> None:
    """Check that every GPU, server, interconnect and instance type named exists."""

    def guard(field: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except PricingError as exc:
            raise ScenarioError(file, field, str(exc)) from None

    for i, c in enumerate(scenario.workload.job_classes):
        guard(f"workload.job_classes[{i}].work.reference_gpu", catalog.gpu, c.work.reference_gpu)
    tr = scenario.workload.trace
    if tr is not None:
        guard("workload.trace.source_gpu", catalog.gpu, tr.source_gpu)
        guard("workload.trace.source_intra_node", catalog.interconnect, tr.source_intra_node)
        guard("workload.trace.source_inter_node", catalog.interconnect, tr.source_inter_node)
        if not (Path(file).parent / tr.file).exists() and Path(file).exists():
            raise ScenarioError(
                file,
                "workload.trace.file",
                f"no such file {tr.file!r} (relative to the scenario file)",
            )
    for i, o in enumerate(scenario.options):
        where = f"options[{i}]"
        if isinstance(o, Owned):
            guard(f"{where}.server", catalog.server, o.server)
            continue
        if o.instance is not None:
            guard(f"{where}.instance.gpu", catalog.gpu, o.instance.gpu)
            guard(f"{where}.instance.intra_node", catalog.interconnect, o.instance.intra_node)
            guard(f"{where}.instance.inter_node", catalog.interconnect, o.instance.inter_node)
            continue
        assert o.instance_type is not None
        spec = guard(f"{where}.instance_type", book.spec, o.instance_type, scenario.region)
        if spec.gpu_model is None:
            raise ScenarioError(
                file,
                f"{where}.instance_type",
                f"{o.instance_type} has {spec.aws_gpu_name} accelerators, which have no speed data"
                " in the GPU catalog; choose a GPU instance or describe the machine with instance:",
            )
    month = int(scenario.start[5:])
    if not 1 <= month <= 12:  # pragma: no cover - the pattern already checks it
        raise ScenarioError(file, "start", "month must be 01-12")


def load_scenario(path: str | Path, book: PriceBook | None = None) -> Scenario:
    """Read, validate and check a scenario file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(str(p), "", "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(str(p), "", f"cannot read the file: {exc}") from None
    return validate(parse_yaml(text, str(p)), str(p), book)


def loads_scenario(text: str, file: str = "<string>") -> Scenario:
    """Validate a scenario given as YAML text (for notebooks and tests)."""
    return validate(parse_yaml(text, file), file)
