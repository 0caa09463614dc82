"""The workload section of a scenario: job classes drawn at random, and recorded traces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import AfterValidator, Discriminator, Field, Tag, model_validator

from tco.simulator.core import defaults
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import Fraction, GpuCount, Growth, Name, NonNeg, Pos, Strict
from tco.simulator.training.work import ModelWork
from tco.simulator.workload.calibration import FAMILIES
from tco.simulator.workload.jobs import teams_named
from tco.simulator.workload.traces import CsvColumns, TraceFormat


def _family(name: str) -> str:
    if name not in FAMILIES:
        raise ValueError(f"unknown workload family {name!r}; valid: {', '.join(FAMILIES)}")
    return name


Family = Annotated[str, AfterValidator(_family)]


class SpeedOverrides(Strict):
    """GPU speed scores (relative to an A100 SXM 40GB) that replace the calibrated ones, with
    their source; e.g. the founding brief's V100 = 0.6 ("A100 shortens Transformer training by
    40 %"), one workload where published benchmarks give 0.43-0.45."""

    scores: dict[str, Annotated[float, Field(gt=0, le=100)]] = Field(min_length=1)
    source: str = Field(min_length=1)


class GpuChoice(Strict):
    """GPUs per job drawn from ``choices`` with relative ``weights`` (equal when omitted)."""

    choices: list[GpuCount] = Field(min_length=1)
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
    sigma: Annotated[float, Field(gt=0, le=10)] = 1.0


def _work_kind(value: object) -> str | None:
    if isinstance(value, ModelWork) or (isinstance(value, dict) and "model" in value):
        return "Model"
    return "Hours" if isinstance(value, Work | dict) else None


AnyWork = Annotated[
    Annotated[Work, Tag("Hours")] | Annotated[ModelWork, Tag("Model")],
    Discriminator(
        _work_kind,
        custom_error_type="work",
        custom_error_message="give {reference_gpu, gpu_hours} or {model, tokens, ...}",
    ),
]


class JobClass(Strict):
    """One kind of training job and how often it arrives. ``work`` in GPU-hours on a reference
    GPU, or as a model to train (``training.work``), whose memory per GPU and speed on each GPU
    then follow from the model (``memory_gb`` and ``workload_family`` are not given)."""

    name: Name
    arrivals_per_month: NonNeg
    growth_per_month: Growth = 0.0  # compounding, 0.02 = +2 %/month
    # calendar month -> multiplier
    seasonality: dict[Annotated[int, Field(ge=1, le=12)], NonNeg] = Field(default_factory=dict)
    gpus: GpuCount | GpuChoice = 1
    work: AnyWork
    memory_gb: NonNeg = 0.0  # per GPU
    comm_share: Fraction = defaults.COMM_SHARE  # on 8 GPUs over InfiniBand HDR
    workload_family: Family = "all"  # whose measured GPU speeds apply (simulator.calibration)
    team: Name | None = None  # whose jobs they are: their waits and their bill (costs.chargeback)

    @model_validator(mode="after")
    def _model_says(self) -> JobClass:
        _model_fields(self.work, self.memory_gb, self.workload_family)
        return self


class OneOff(Strict):
    """One run at a known month: "a 7B model on 2T tokens from month 3". It arrives at the start
    of ``month`` (0 is the first month of the horizon) plus ``day`` days, once; its work and
    memory as a job class's, its work taken as stated (no distribution)."""

    name: Name
    month: Annotated[int, Field(ge=0, le=119)]
    day: Annotated[float, Field(ge=0, lt=31)] = 0.0
    gpus: GpuCount = 1
    work: AnyWork
    memory_gb: NonNeg = 0.0  # per GPU; from the model when work is a model
    comm_share: Fraction = defaults.COMM_SHARE
    workload_family: Family = "all"
    team: Name | None = None

    @model_validator(mode="after")
    def _model_says(self) -> OneOff:
        _model_fields(self.work, self.memory_gb, self.workload_family)
        return self


def _model_fields(work: Work | ModelWork, memory_gb: float, family: str) -> None:
    """A model's memory and speed follow from it: refuse them given beside it, and a CNN."""
    if not isinstance(work, ModelWork):
        return
    # Values, not the keys written: a scenario re-validated from its dump has them all.
    said = [
        k for k, v in (("memory_gb", memory_gb != 0.0), ("workload_family", family != "all")) if v
    ]
    if said:
        raise ValueError(
            f"{' and '.join(said)} follow from work.model; remove {' and '.join(said)}"
        )
    if work.run().architecture != "transformer":
        raise ValueError(
            "work.model: tco derives a transformer's training time from its shape, not a CNN's;"
            " state its work as gpu_hours on a reference GPU (`tco fit` gives its memory)"
        )


class Trace(Strict):
    """A recorded workload replayed on every option.

    Durations were measured on ``source_gpu`` (in servers of ``source_gpus_per_node`` joined by
    ``source_inter_node``); the speed model converts them for each option. ``file`` is relative to
    the scenario file. Filters apply first, then the time window, then scaling, repetition and
    growth.
    """

    file: str = Field(min_length=1)
    format: TraceFormat = "csv"
    # sacct: the --format list a headerless export was written with, in sacct's syntax
    sacct_format: Annotated[str, Field(min_length=1, max_length=4000)] | None = None
    columns: CsvColumns = CsvColumns()
    timestamps: bool = False  # CSV: submit is an ISO timestamp, not seconds
    utc_offset_hours: Annotated[float, Field(ge=-14, le=14)] = 0.0  # of timestamps without one
    source_gpu: str
    source_gpus_per_node: GpuCount = 8
    source_intra_node: str = "pcie4"
    source_inter_node: str = defaults.REFERENCE_LINK
    comm_share: Fraction = defaults.COMM_SHARE
    memory_gb: NonNeg = 0.0
    workload_family: Family = "all"
    clusters: list[str] | None = None
    status: list[str] | None = None
    # sacct: jobs PENDING or RUNNING at the export are demand the cluster had not served yet;
    # kept by default (a pending one for its time limit, a running one for its time so far).
    unfinished: Literal["keep", "drop"] = "keep"
    min_gpus: GpuCount | None = None
    max_gpus: GpuCount | None = None
    start_day: NonNeg | None = None  # window in days from the first (kept) submit
    end_day: Pos | None = None
    scale_arrivals: Pos = 1.0  # 2 = the same jobs arriving twice as fast
    growth_per_month: Growth = 0.0
    repeat: bool = False  # repeat the trace back to back to cover the horizon
    team: Name | None = None  # the team every replayed job belongs to

    @property
    def keeps_unfinished(self) -> bool:
        return self.unfinished == "keep"


class Sharing(Strict):
    """How the teams share owned servers (issue 57, item 2): ``fifo`` (first come, first served:
    the default); ``priority``: the queue ordered by the teams' rank in ``order`` (first first;
    teams not listed, and jobs without a team, after them), by arrival within a rank; or
    ``fair_share``: ordered by Slurm's classic fair-share factor from each team's ``shares``
    and its usage decaying with ``half_life_days`` (``cluster.fair_share``). Never stopping a
    running job for a better-placed one (non-preemptive)."""

    policy: Literal["fifo", "priority", "fair_share"] = "fifo"
    order: list[Name] = Field(default_factory=list)
    # fair_share: each team's shares (any positive numbers; normalised) and how fast its usage
    # is forgotten (Slurm's PriorityDecayHalfLife, 7 days by default).
    shares: dict[Name, Annotated[float, Field(gt=0, le=1e6)]] = Field(default_factory=dict)
    half_life_days: Annotated[float, Field(gt=0, le=3650)] = 7.0

    @model_validator(mode="after")
    def _order_with_priority(self) -> Sharing:
        if self.policy == "priority" and not self.order:
            raise ValueError("policy: priority needs order: [team, ...], the first served first")
        if self.order and self.policy != "priority":
            raise ValueError("order ranks teams for policy: priority; say policy: priority")
        if self.policy == "fair_share" and not self.shares:
            raise ValueError("policy: fair_share needs shares: {team: share, ...}, every team's")
        if self.shares and self.policy != "fair_share":
            raise ValueError("shares weigh teams for policy: fair_share; say policy: fair_share")
        unique(self.order, "team", "order")
        return self

    def ranks(self, class_teams: tuple[str, ...]) -> tuple[int, ...]:
        """Each class's rank (lower first): its team's place in ``order``, else after them;
        none under fifo."""
        if self.policy != "priority":
            return ()
        last = len(self.order)
        return tuple(self.order.index(t) if t in self.order else last for t in class_teams)


def valid_teams(teams: Sequence[str]) -> str:
    """The teams a scenario names, as an error says what is valid."""
    return ", ".join(teams) or "none: name a team: on a job class, run or trace"


def check_sharing(sharing: Sharing, workload: Workload, file: str) -> None:
    """The teams a sharing policy names are the workload's; under fair share every team has a
    share and every class of jobs a team."""
    teams = workload.teams
    valid = valid_teams(teams)
    for k, team in enumerate(sharing.order):
        if team not in teams:
            raise ScenarioError(file, f"sharing.order[{k}]", f"no team {team!r}; valid: {valid}")
    for team in sharing.shares:
        if team not in teams:
            raise ScenarioError(file, f"sharing.shares.{team}", f"no team {team!r}; valid: {valid}")
    if sharing.policy != "fair_share":
        return
    missing = [t for t in teams if t not in sharing.shares]
    if missing:
        raise ScenarioError(file, "sharing.shares", f"no share for {', '.join(missing)}")
    if not all(workload.class_teams):
        raise ScenarioError(
            file,
            "sharing.policy",
            "fair_share weighs teams: give every job class, one-off run and trace a team:",
        )


class Workload(Strict):
    """The expected training work: job classes, one-off runs, a recorded trace, or any of
    them."""

    job_classes: list[JobClass] = Field(default_factory=list)
    runs: list[OneOff] = Field(default_factory=list, max_length=1000)
    trace: Trace | None = None
    # A multiplier on the GPU-hours of every class and run stated as a model: the utilisation
    # a run reaches against the calibration's (workload.mfu). 1: as fitted; the odds draw it
    # from the fit's leave-one-out errors.
    model_hours_scale: Annotated[float, Field(gt=0, le=10)] = 1.0

    @model_validator(mode="after")
    def _unique_names(self) -> Workload:
        if not self.job_classes and not self.runs and self.trace is None:
            raise ValueError("give job_classes, runs, a trace, or any of them")
        unique(self.names, "job class", "job classes or one-off runs")
        return self

    @property
    def names(self) -> list[str]:
        """Job classes' and one-off runs' names, in the order their jobs are numbered."""
        return [c.name for c in self.job_classes] + [r.name for r in self.runs]

    @property
    def class_teams(self) -> tuple[str, ...]:
        """The team of each class of jobs, in the order of ``Jobs.class_names`` (job classes,
        one-off runs, then the trace's): '' where none is named."""
        teams = [c.team for c in self.job_classes] + [r.team for r in self.runs]
        if self.trace is not None:
            teams.append(self.trace.team)
        return tuple(t or "" for t in teams)

    @property
    def teams(self) -> tuple[str, ...]:
        """The teams named, in the order first named (none: no team is named)."""
        return teams_named(self.class_teams)

    @property
    def stated(self) -> list[tuple[str, JobClass | OneOff]]:
        """(field path, entry) of every job class and one-off run."""
        return [(f"workload.job_classes[{i}]", c) for i, c in enumerate(self.job_classes)] + [
            (f"workload.runs[{i}]", r) for i, r in enumerate(self.runs)
        ]


def unique(names: list[str], what: str, plural: str | None = None) -> None:
    """Raise ValueError when two of ``names`` are equal (job classes, options)."""
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise ValueError(f"two {plural or what + 's'} are named {n!r}; names must be unique")
        seen.add(n)
