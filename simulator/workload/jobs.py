"""The job stream every option plays: one row per training job, as numpy arrays.

Drawn job classes (``workload.arrivals``) and replayed traces (``workload.replayed``) both become
:class:`Jobs`; the speed model, the options and the reports read nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from tco.simulator.workload.calibration import GpuSpeed

# The type of a job's class, reference GPU and family: indices into short tuples, 4 bytes a job
# each rather than numpy's default 8 (at 5 M jobs, 60 MB of the run's peak).
INDEX = np.int32


def teams_named(class_teams: tuple[str, ...]) -> tuple[str, ...]:
    """The teams the classes name ('' where none), in the order first named."""
    return tuple(dict.fromkeys(t for t in class_teams if t))


@dataclass(frozen=True)
class FairTerms:
    """Fair share among the teams (``sharing: {policy: fair_share}``): each team's shares, in
    the order of ``Jobs.team_of_jobs``, and the half-life of their usage (h)."""

    shares: tuple[float, ...]
    half_life_h: float


@dataclass(frozen=True, kw_only=True)
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
    family: np.ndarray | None = None  # index into ``families``; None: every job "all"
    families: tuple[str, ...] = ("all",)  # workload families (simulator.calibration.FAMILIES)
    reference_speeds: tuple[GpuSpeed, ...] | None = None  # per reference GPU; None: calibrated
    # GB one checkpoint of the job holds: its model state (weights and optimizer, one copy
    # however many GPUs share it) where the work is stated as a model; None: one GPU's memory,
    # ``memory_gb``, the most one data-parallel replica holds (activations are not saved).
    state_gb: np.ndarray | None = None
    # The team of each class, parallel to ``class_names`` ('' where none is named; empty: no
    # team anywhere): whose jobs they are (``costs.chargeback``, the level by team).
    class_teams: tuple[str, ...] = ()
    # Each class's rank in an owned cluster's queue, parallel to ``class_names`` (lower first:
    # ``sharing: {policy: priority}``); empty: first come, first served.
    class_priority: tuple[int, ...] = ()
    fair_terms: FairTerms | None = None  # the teams share owned servers by fair share

    @property
    def checkpoint_gb(self) -> np.ndarray:
        return self.memory_gb if self.state_gb is None else self.state_gb

    def __len__(self) -> int:
        return int(self.arrival_h.shape[0])

    def __repr__(self) -> str:
        return f"Jobs({len(self):,} jobs of {', '.join(self.class_names)})"

    def take(self, idx: np.ndarray, arrival_h: np.ndarray) -> Jobs:
        """The jobs at ``idx`` (in that order), arriving at ``arrival_h`` instead."""

        def pick(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else a[idx]

        return replace(
            self,
            arrival_h=np.asarray(arrival_h, dtype=np.float64),
            gpus=self.gpus[idx],
            work_ref_gpu_h=self.work_ref_gpu_h[idx],
            memory_gb=self.memory_gb[idx],
            comm_share=self.comm_share[idx],
            job_class=self.job_class[idx],
            reference_gpu=self.reference_gpu[idx],
            names=pick(self.names),
            family=pick(self.family),
            state_gb=pick(self.state_gb),
        )

    def team_of_jobs(self) -> tuple[tuple[str, ...], np.ndarray]:
        """The teams named and, per job, its team's index among them (-1: none)."""
        teams = teams_named(self.class_teams)
        if not teams:
            return (), np.full(len(self), -1, dtype=INDEX)
        of_class = np.array([teams.index(t) if t else -1 for t in self.class_teams], dtype=INDEX)
        return teams, of_class[self.job_class]

    def priority_of_jobs(self) -> np.ndarray | None:
        """Each job's rank in an owned queue (lower first); None: by arrival alone."""
        if not self.class_priority or len(set(self.class_priority)) < 2:
            return None
        ranks: np.ndarray = np.asarray(self.class_priority, dtype=INDEX)[self.job_class]
        return ranks

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

    def job_id(self, index: int) -> str:
        """The readable id of one job (as :meth:`job_ids`), without building every id."""
        if self.names is not None and self.names[index]:
            return str(self.names[index])
        c = int(self.job_class[index])
        n = int(np.count_nonzero(self.job_class[: index + 1] == c))
        return f"{self.class_names[c]}#{n}"
