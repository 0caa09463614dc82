"""The job stream: every training job that arrives over the horizon, as numpy arrays.

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

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tco.simulator.calendar import calendar_months, month_edges_h
from tco.simulator.scenario import GpuChoice, JobClass, Scenario


@dataclass(frozen=True)
class Jobs:
    """One row per job, sorted by arrival time (ties keep class order).

    ``arrival_h`` hours since the start; ``gpus`` per job (gang-scheduled); ``work_ref_gpu_h`` the
    job's total work in GPU-hours on its class's reference GPU; ``memory_gb`` per GPU;
    ``comm_share`` share of an 8-GPU step spent syncing over InfiniBand HDR; ``job_class`` index
    into ``class_names``; ``reference_gpu`` index into ``reference_gpus``.
    """

    arrival_h: np.ndarray
    gpus: np.ndarray
    work_ref_gpu_h: np.ndarray
    memory_gb: np.ndarray
    comm_share: np.ndarray
    job_class: np.ndarray
    reference_gpu: np.ndarray
    class_names: tuple[str, ...]
    reference_gpus: tuple[str, ...]
    names: np.ndarray | None = None  # recorded job ids (trace jobs), '' for drawn jobs
    notes: tuple[str, ...] = ()  # what reading a trace found

    def __len__(self) -> int:
        return int(self.arrival_h.shape[0])

    def job_ids(self) -> list[str]:
        """Readable ids: the recorded id of a trace job, else '<class>#<n>' numbered within the
        class in arrival order."""
        counters = [0] * len(self.class_names)
        names = self.names.tolist() if self.names is not None else [""] * len(self)
        out = []
        for c, name in zip(self.job_class.tolist(), names, strict=True):
            counters[c] += 1
            out.append(name or f"{self.class_names[c]}#{counters[c]}")
        return out


def _gpus(spec: int | GpuChoice, n: int, rng: np.random.Generator) -> np.ndarray:
    if isinstance(spec, int):
        return np.full(n, spec, dtype=np.int64)
    weights = np.ones(len(spec.choices)) if spec.weights is None else np.asarray(spec.weights)
    return rng.choice(np.asarray(spec.choices, dtype=np.int64), size=n, p=weights / weights.sum())


def _work(cls: JobClass, n: int, rng: np.random.Generator) -> np.ndarray:
    mean = cls.work.gpu_hours
    if cls.work.distribution == "fixed":
        return np.full(n, mean)
    if cls.work.distribution == "exponential":
        return rng.exponential(mean, size=n)
    sigma = cls.work.sigma  # lognormal with this mean: mu = ln(mean) - sigma^2 / 2
    return rng.lognormal(np.log(mean) - sigma**2 / 2, sigma, size=n)


HOURS_PER_AVERAGE_MONTH = 730.0


def monthly_rates(cls: JobClass, start: str, months: int) -> np.ndarray:
    """Expected arrivals of a class in each simulated month."""
    cal = calendar_months(start, months)
    season = np.array([cls.seasonality.get(int(c), 1.0) for c in cal])
    growth = (1.0 + cls.growth_per_month) ** np.arange(months)
    hours = np.diff(month_edges_h(start, months)) / HOURS_PER_AVERAGE_MONTH
    return np.asarray(cls.arrivals_per_month * growth * season * hours)


def generate(scenario: Scenario, base_dir: Path | None = None) -> Jobs:
    """Draw the job stream of a scenario from its seed (and read its trace, if any).

    ``base_dir`` is where a trace file's relative path starts (the scenario file's folder).
    """
    months = scenario.horizon_months
    edges = month_edges_h(scenario.start, months)
    classes = scenario.workload.job_classes
    tr = scenario.workload.trace
    refs = tuple(
        dict.fromkeys(
            [c.work.reference_gpu for c in classes] + ([tr.source_gpu] if tr is not None else [])
        )
    )
    parts: list[tuple[np.ndarray, ...]] = []
    names: list[np.ndarray] = []  # recorded ids, kept only when a trace is replayed
    notes: list[str] = []
    for idx, cls in enumerate(classes):
        rng = np.random.default_rng([scenario.seed, idx])
        counts = rng.poisson(monthly_rates(cls, scenario.start, months))
        n = int(counts.sum())
        month_of = np.repeat(np.arange(months), counts)
        lengths = np.diff(edges).astype(np.float64)
        arrival = edges[month_of] + rng.random(n) * lengths[month_of]
        order = np.argsort(arrival, kind="stable")
        parts.append(
            (
                arrival[order],
                _gpus(cls.gpus, n, rng),
                _work(cls, n, rng),
                np.full(n, cls.memory_gb),
                np.full(n, cls.comm_share),
                np.full(n, idx, dtype=np.int64),
                np.full(n, refs.index(cls.work.reference_gpu), dtype=np.int64),
            )
        )
        if tr is not None:
            names.append(np.full(n, "", dtype=object))
    class_names = [c.name for c in classes]
    if tr is not None:
        from tco.simulator.trace_workload import trace_part

        part, ids, note = trace_part(
            tr,
            scenario,
            base_dir or Path("."),
            len(classes),
            refs.index(tr.source_gpu),
            float(edges[-1]),
        )
        parts.append(part)
        names.append(ids)
        notes.append(note)
        class_names.append("trace")
    cols = [np.concatenate([p[i] for p in parts]) for i in range(7)]
    order = np.lexsort((cols[5], cols[0]))  # by arrival, then class
    cols = [c[order] for c in cols]
    return Jobs(
        arrival_h=cols[0],
        gpus=cols[1].astype(np.int64),
        work_ref_gpu_h=cols[2],
        memory_gb=cols[3],
        comm_share=cols[4],
        job_class=cols[5].astype(np.int64),
        reference_gpu=cols[6].astype(np.int64),
        class_names=tuple(class_names),
        reference_gpus=refs,
        names=np.concatenate(names)[order] if tr is not None else None,
        notes=tuple(notes),
    )
