"""Which GPU can train a model, how many per job, how long, and what the run costs: ``tco fit``.

For each GPU of the catalogue: whether the run fits and the fewest data-parallel GPUs that hold
it (``training.memory``). For each instance shape of every provider (``pricing.offers_view``:
each shape in its cheapest region) and each server of the catalogue: the job on the fewest GPUs
rounded up to whole instances or servers (a 1-GPU instance for a run that needs six: six
instances on their network), its wall-clock hours by the speed model (``workload.speed``: the
calibrated utilisation, the precision, the links, a VM's virtualization), and its cost: on demand
and on spot (the spot price alone: interruptions not counted) for rentals; for owned servers at a
floor rate per GPU-hour (:func:`owned_rate`). Cheapest first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tco.pricing import hardware, offers_view, training_data
from tco.pricing.book import PriceBook
from tco.pricing.used_market import used_market
from tco.simulator.core import defaults
from tco.simulator.training import compute, memory
from tco.simulator.training.work import REFERENCE_GPU, Run
from tco.simulator.workload import mfu
from tco.simulator.workload.calibration import ALL_FAMILIES, speed_of
from tco.simulator.workload.jobs import INDEX, Jobs
from tco.simulator.workload.speed import Hardware, run_hours

# The owned floor rate's life: the financing term (defaults: 36 months, the short end of GPU
# sale-leasebacks), the shortest life the project's sources give a GPU server.
OWNED_YEARS = defaults.FINANCING_TERM_MONTHS / 12


@dataclass(frozen=True)
class GpuFit:
    """One catalogue GPU: the fewest GPUs that hold the run and what each then holds."""

    gpu: str
    memory_gb: float
    fewest: int | None
    need_gb: float  # per GPU at ``fewest`` (at 1 when it never fits)
    score: float  # the speed model's, at the run's precision, against an A100 SXM 40GB


@dataclass(frozen=True)
class Row:
    """Where the run could train: a provider's shape or a server to own."""

    where: str
    region: str  # a rental's cheapest region
    kind: str  # rent or own
    gpu: str
    gpus_per_unit: int
    gpus: int | None  # the job's GPUs: fewest, rounded up to whole units
    units: int | None
    hours: float | None  # wall clock
    # The range that holds it with 80 % odds, from the calibration's leave-one-out errors
    # (``workload.mfu.hours_range``): a run's utilisation scatters about the fit.
    hours_p10: float | None
    hours_p90: float | None
    on_demand_usd: float | None
    spot_usd: float | None
    owned_usd: float | None
    usd_per_gpu_hour: float
    as_of: str
    confidence: str
    why: str  # why it cannot run, else ""

    @property
    def cheapest_usd(self) -> float | None:
        costs = [c for c in (self.on_demand_usd, self.owned_usd) if c is not None]
        return min(costs) if costs else None


@dataclass(frozen=True)
class FitTable:
    run: Run
    flops: float
    reference_hours: float  # A100 SXM 80GB GPU-hours before sync
    mfu_spread: float
    gpus: tuple[GpuFit, ...]
    rows: tuple[Row, ...]
    notes: tuple[str, ...]


def owned_rate(server: hardware.ServerModel) -> float:
    """USD per GPU-hour of a catalogue server kept busy: its price less its used-market value
    after ``OWNED_YEARS`` spread over those years' hours, power at the busy fraction through the
    PUE, and colocation per kW. Staff, support, financing and idle time left out: a floor."""
    resale = used_market(server.gpu).share(OWNED_YEARS)
    capital = server.price_usd * (1 - resale) / (OWNED_YEARS * defaults.HOURS_PER_YEAR)
    power = server.max_kw * defaults.BUSY_POWER_FRACTION * defaults.PUE
    energy = power * defaults.ELECTRICITY_USD_PER_KWH
    space = server.max_kw * defaults.COLOCATION_USD_PER_KW_MONTH / defaults.HOURS_PER_MONTH
    return (capital + energy + space) / server.gpus_per_server


def _job(run: Run, gpus: int) -> Jobs:
    family = mfu.family_of(run.precision)
    return Jobs(
        arrival_h=np.zeros(1),
        gpus=np.array([gpus], dtype=np.int64),
        work_ref_gpu_h=np.array([mfu.reference_hours(run)]),
        memory_gb=np.array([memory.per_gpu(run, gpus).total]),
        comm_share=np.array([defaults.COMM_SHARE]),
        job_class=np.zeros(1, dtype=INDEX),
        reference_gpu=np.zeros(1, dtype=INDEX),
        class_names=(run.name,),
        reference_gpus=(REFERENCE_GPU,),
        family=np.array([ALL_FAMILIES.index(family)], dtype=INDEX),
        families=ALL_FAMILIES,
    )


def most_gpus() -> int:
    """The most GPUs a run is spread over to meet a deadline: the largest of the published runs
    the speed model is calibrated on (Llama 3.1's 16,384 H100s); beyond, its sync is a guess."""
    return max(r.gpus for r in training_data.published_runs())


def _place(
    run: Run, hw: Hardware, wanted: int, within_h: float | None = None
) -> tuple[int | None, int | None, float | None, str]:
    """(GPUs, units, wall-clock hours, why not) of the run on ``hw``, on at least ``wanted``
    GPUs and, with ``within_h``, on the fewest whole units that finish it in that many hours
    (the speed model's sync grows with the GPUs: a run that no count up to ``most_gpus``
    finishes in time says so)."""
    fewest = memory.fewest_gpus(run, hw.gpu_memory_gb)
    if fewest is None:
        need = memory.per_gpu(run, 1)
        return None, None, None, f"needs {need.total:.0f} GB a GPU on any count"
    per, units = hw.gpus_per_unit, math.ceil(max(fewest, wanted) / hw.gpus_per_unit)

    def hours(u: int) -> float:
        return float(run_hours(_job(run, u * per), hw)[0])

    h = hours(units)
    if within_h is None or h <= within_h:
        return units * per, units, h, ""
    most = max(units, most_gpus() // per)
    low = units  # too slow on ``low`` units; the fewest that finish in time is above it
    high = min(most, math.ceil(units * h / within_h))  # time falls at best as 1 / GPUs
    while (h := hours(high)) > within_h:  # on more GPUs the sync's share grows: widen
        if high >= most:
            days = within_h / 24
            up_to = f"{most * per:,} GPUs"
            return None, None, None, f"cannot finish in {days:,g} days on up to {up_to}"
        low, high = high, min(most, 2 * high)
    while high - low > 1:  # the fewest units in time, by halving (time falls as units grow)
        mid = (low + high) // 2
        if (m := hours(mid)) <= within_h:
            high, h = mid, m  # ``h`` stays the hours of ``high``: not computed again
        else:
            low = mid
    return high * per, high, h, ""


def _range(hours: float | None) -> tuple[float | None, float | None]:
    return (None, None) if hours is None else mfu.hours_range(hours)


def _gpu_fits(run: Run) -> tuple[GpuFit, ...]:
    out = []
    family = mfu.family_of(run.precision)
    for g in hardware.gpus().values():
        fewest = memory.fewest_gpus(run, g.memory_gb)
        need = memory.per_gpu(run, fewest or 1).total
        out.append(GpuFit(g.name, g.memory_gb, fewest, need, speed_of(g.name).score(family, 8)))
    return tuple(sorted(out, key=lambda f: (f.fewest is None, f.fewest or 0, -f.score)))


def _rentals(
    run: Run,
    book: PriceBook,
    provider: str | None,
    doubtful: bool,
    wanted: int,
    within_h: float | None,
) -> list[Row]:
    out = []
    for o in offers_view.rows(None, provider, doubtful=doubtful):
        spec = book.spec(o.instance_type, o.region)
        if spec.gpu_model is None or spec.gpu_model not in hardware.gpus():
            continue
        virt = 0.0 if spec.bare_metal else defaults.VIRTUALIZATION_OVERHEAD
        hw = Hardware.of_instance(spec, virt)
        gpus, units, hours, why = _place(run, hw, wanted, within_h)
        p10, p90 = _range(hours)
        cost = None if hours is None or units is None else hours * units
        out.append(
            Row(
                where=o.instance_type,
                region=o.region,
                kind="rent",
                gpu=spec.gpu_model,
                gpus_per_unit=spec.gpu_count,
                gpus=gpus,
                units=units,
                hours=hours,
                hours_p10=p10,
                hours_p90=p90,
                on_demand_usd=None if cost is None else cost * o.on_demand,
                spot_usd=None if cost is None or o.spot is None else cost * o.spot,
                owned_usd=None,
                usd_per_gpu_hour=o.per_gpu,
                as_of=o.as_of,
                confidence=o.confidence,
                why=why,
            )
        )
    return out


def _servers(run: Run, wanted: int, within_h: float | None) -> list[Row]:
    out = []
    for s in hardware.servers().values():
        g = hardware.gpu(s.gpu)
        hw = Hardware(s.gpu, g.memory_gb, s.gpus_per_server, s.intra_node, s.inter_node, 0.0)
        gpus, units, hours, why = _place(run, hw, wanted, within_h)
        p10, p90 = _range(hours)
        rate = owned_rate(s)
        out.append(
            Row(
                where=f"owned {s.name}",
                region="",
                kind="own",
                gpu=s.gpu,
                gpus_per_unit=s.gpus_per_server,
                gpus=gpus,
                units=units,
                hours=hours,
                hours_p10=p10,
                hours_p90=p90,
                on_demand_usd=None,
                spot_usd=None,
                owned_usd=None if hours is None or gpus is None else hours * gpus * rate,
                usd_per_gpu_hour=rate,
                as_of=s.price_date,
                confidence=s.price_basis,
                why=why,
            )
        )
    return out


def table(
    run: Run,
    book: PriceBook,
    provider: str | None = None,
    doubtful: bool = False,
    gpus: int = 1,
    days: float | None = None,
) -> FitTable:
    """Every GPU's fit and every place's time and cost for ``run`` on at least ``gpus`` GPUs
    (more where the memory needs them, rounded up to whole instances or servers; with ``days``,
    more again until the run finishes within them), cheapest first."""
    within = None if days is None else days * 24.0
    rows = _rentals(run, book, provider, doubtful, gpus, within) + (
        [] if provider else _servers(run, gpus, within)
    )
    rows.sort(key=lambda r: (r.cheapest_usd is None, r.cheapest_usd or 0.0, r.where))
    notes = [
        f"MFU fitted on {len(mfu.observations())} published runs (workload.mfu); a run's time"
        f" and cost lie within x{math.exp(-mfu.spread_ln()):.2f} to"
        f" x{math.exp(mfu.spread_ln()):.2f} of the figures with 80 % odds (the published runs'"
        " leave-one-out errors: days P10-P90)",
        f"owned: a floor of {OWNED_YEARS:g} years at full use (price less used-market value,"
        " power, colocation; no staff, support or idle time)",
        "spot: the spot price alone, interruptions not counted",
    ]
    if days is not None:
        notes.append(
            f"each place on the fewest GPUs that finish in {days:,g} days at the median (the"
            " P90 may be later); owned: days from delivery, the servers' lead time not counted"
        )
    if run.method == "lora":
        notes.append(f"LoRA trains {run.trainable_share:.2%} of the parameters")
    return FitTable(
        run=run,
        flops=compute.total_flops(run),
        reference_hours=mfu.reference_hours(run),
        mfu_spread=mfu.fit().spread,
        gpus=_gpu_fits(run),
        rows=tuple(rows),
        notes=tuple(notes),
    )
