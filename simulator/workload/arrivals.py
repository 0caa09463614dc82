"""Jobs drawn from the scenario's job classes.

Arrivals of each job class are a Poisson process whose intensity is constant within a month:
``arrivals_per_month / 730 h x (1 + growth)^m x seasonality[calendar month]`` per hour, 730 h
being the average month (8,760 h / 12). A 31-day month thus expects a little more than a 28-day
one, and with no growth or seasonality the process is homogeneous (what queueing theory assumes).
For such a piecewise constant intensity the count in a month is Poisson and the times within it
are uniform, which is how they are drawn (exact, and vectorised). Each class draws from its own
generator seeded from the scenario seed and the class's position, so every option sees the
identical stream and adding a class does not change the others.
"""

from __future__ import annotations

import numpy as np

from tco.simulator.core.calendar import calendar_months, month_edges_h
from tco.simulator.training import memory
from tco.simulator.training.work import ModelWork
from tco.simulator.workload import mfu
from tco.simulator.workload.calibration import ALL_FAMILIES
from tco.simulator.workload.jobs import INDEX, Jobs
from tco.simulator.workload.spec import GpuChoice, JobClass, OneOff

HOURS_PER_AVERAGE_MONTH = 730.0


def _gpus(spec: int | GpuChoice, n: int, rng: np.random.Generator) -> np.ndarray:
    if isinstance(spec, int):
        return np.full(n, spec, dtype=np.int64)
    weights = np.ones(len(spec.choices)) if spec.weights is None else np.asarray(spec.weights)
    return rng.choice(np.asarray(spec.choices, dtype=np.int64), size=n, p=weights / weights.sum())


def _model_work(
    cls: JobClass | OneOff, gpus: np.ndarray, scale: float = 1.0
) -> tuple[float, np.ndarray, str, np.ndarray | None]:
    """(mean work in reference GPU-hours, memory per GPU of each job, family, checkpoint GB of
    each job or None) of a class or run: stated, or derived from its model (``training``; the
    memory at each job's GPU count, sharded; a checkpoint one copy of its model state; its
    hours times ``scale``, the workload's ``model_hours_scale``)."""
    w = cls.work
    if not isinstance(w, ModelWork):
        return w.gpu_hours, np.full(len(gpus), cls.memory_gb), cls.workload_family, None
    run = w.run()
    need = {int(k): memory.per_gpu(run, int(k)).total for k in np.unique(gpus)}
    per_job = np.array([need[int(k)] for k in gpus], dtype=np.float64)
    state = np.full(len(gpus), memory.checkpoint_gb(run))
    return mfu.reference_hours(run) * scale, per_job, mfu.family_of(run.precision), state


def _work(cls: JobClass, mean: float, n: int, rng: np.random.Generator) -> np.ndarray:
    if cls.work.distribution == "fixed":
        return np.full(n, mean)
    if cls.work.distribution == "exponential":
        return rng.exponential(mean, size=n)
    sigma = cls.work.sigma  # lognormal with this mean: mu = ln(mean) - sigma^2 / 2
    return rng.lognormal(np.log(mean) - sigma**2 / 2, sigma, size=n)


def monthly_rates(cls: JobClass, start: str, months: int) -> np.ndarray:
    """Expected arrivals of a class in each simulated month."""
    cal = calendar_months(start, months)
    season = np.array([cls.seasonality.get(int(c), 1.0) for c in cal])
    growth = (1.0 + cls.growth_per_month) ** np.arange(months)
    hours = np.diff(month_edges_h(start, months)) / HOURS_PER_AVERAGE_MONTH
    return np.asarray(cls.arrivals_per_month * growth * season * hours)


def draw(
    cls: JobClass,
    index: int,
    seed: int,
    start: str,
    months: int,
    class_names: tuple[str, ...],
    reference_gpus: tuple[str, ...],
    model_scale: float = 1.0,
) -> Jobs:
    """The jobs of class number ``index`` over the horizon, sorted by arrival (a class stated
    as a model: its hours times ``model_scale``)."""
    rng = np.random.default_rng([seed, index])
    edges = month_edges_h(start, months)
    counts = rng.poisson(monthly_rates(cls, start, months))
    n = int(counts.sum())
    month_of = np.repeat(np.arange(months), counts)
    lengths = np.diff(edges).astype(np.float64)
    arrival = edges[month_of] + rng.random(n) * lengths[month_of]
    order = np.argsort(arrival, kind="stable")
    gpus = _gpus(cls.gpus, n, rng)
    mean, memory_gb, family, state = _model_work(cls, gpus, model_scale)
    work = _work(cls, mean, n, rng)
    names = (class_names, reference_gpus)
    return _jobs(arrival[order], gpus, work, memory_gb, cls, index, names, family, state)


def one_off(
    run: OneOff,
    index: int,
    start: str,
    months: int,
    class_names: tuple[str, ...],
    reference_gpus: tuple[str, ...],
    model_scale: float = 1.0,
) -> Jobs:
    """The one job of a one-off run, numbered ``index`` among the classes and runs; none when
    its month is past the horizon (the scenario's check refuses that before); a run stated as
    a model: its hours times ``model_scale``."""
    edges = month_edges_h(start, months)
    n = 1 if run.month < months else 0
    gpus = np.full(n, run.gpus, dtype=np.int64)
    mean, memory_gb, family, state = _model_work(run, gpus, model_scale)
    arrival = np.full(n, edges[min(run.month, months - 1)] + run.day * 24.0)
    names = (class_names, reference_gpus)
    return _jobs(arrival, gpus, np.full(n, mean), memory_gb, run, index, names, family, state)


def _jobs(
    arrival: np.ndarray,
    gpus: np.ndarray,
    work: np.ndarray,
    memory_gb: np.ndarray,
    stated: JobClass | OneOff,
    index: int,
    names: tuple[tuple[str, ...], tuple[str, ...]],
    family: str,
    state: np.ndarray | None,
) -> Jobs:
    """The jobs of class or run number ``index`` (``names``: the classes' and runs' names and
    the reference GPUs, for the columns that index them)."""
    n = len(arrival)
    class_names, reference_gpus = names
    return Jobs(
        arrival_h=arrival,
        gpus=gpus,
        work_ref_gpu_h=work,
        memory_gb=memory_gb,
        comm_share=np.full(n, stated.comm_share),
        job_class=np.full(n, index, dtype=INDEX),
        reference_gpu=np.full(n, reference_gpus.index(stated.work.reference_gpu), dtype=INDEX),
        family=np.full(n, ALL_FAMILIES.index(family), dtype=INDEX),
        families=ALL_FAMILIES,
        class_names=class_names,
        reference_gpus=reference_gpus,
        state_gb=state,
    )
