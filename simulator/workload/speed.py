"""How long a job runs on given hardware.

run time (h) = work / k x score(reference GPU) / score(GPU) x (1 + sync) / (1 - virtualization)

*Speed score* of a GPU, relative to an A100 SXM 40GB, for the job's workload family, at 1 GPU for
one-GPU jobs and at 8 GPUs in one server for multi-GPU jobs (``workload.calibration``: measured
where published, modelled from peak compute and memory bandwidth elsewhere, or a scenario's
override). The work of a job is stated on its reference GPU, so a multi-GPU job's reference score
is also the 8-GPU one.

*Synchronisation* (``workload.sync``): a job's ``comm_share`` is the share of an 8-GPU step it
spends syncing over InfiniBand HDR, scaled to its link and GPU count. Jobs that fit inside one
server or instance use its internal link; larger jobs the network. (The 8-GPU
scores were measured in servers whose links already sync: the two overlap a little; the model
keeps the sync term so that slow links still cost what the brief measured.)

*Virtualization*: cloud VMs lose ``virtualization_overhead`` of their throughput.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tco.pricing.records import InstanceSpec
from tco.simulator.workload.calibration import BASE_GPU, GpuSpeed, speed_of
from tco.simulator.workload.jobs import INDEX, Jobs
from tco.simulator.workload.sync import link_factor, sync_term

__all__ = ["BASE_GPU", "Hardware", "run_hours", "score"]


def score(gpu: str, family: str = "all", gpus: int = 1) -> float:
    """Training speed of ``gpu`` relative to an A100 SXM 40GB (measured, else modelled)."""
    return speed_of(gpu).score(family, gpus)


@dataclass(frozen=True)
class Hardware:
    """Where jobs run: a GPU model in units (servers or instances) of ``gpus_per_unit``."""

    gpu: str
    gpu_memory_gb: float
    gpus_per_unit: int
    intra_node: str
    inter_node: str
    virtualization_overhead: float
    speed: GpuSpeed | None = None  # None: the calibrated speed of ``gpu``

    @classmethod
    def of_instance(
        cls, spec: InstanceSpec, virtualization: float, speed: GpuSpeed | None = None
    ) -> Hardware:
        """An instance type's GPUs and links (its GPU a catalog one)."""
        assert spec.gpu_model is not None, spec.instance_type
        return cls(
            spec.gpu_model,
            spec.gpu_memory_gib,
            spec.gpu_count,
            spec.intra_node,
            spec.inter_node,
            virtualization_overhead=virtualization,
            speed=speed,
        )


def run_hours(jobs: Jobs, hw: Hardware) -> np.ndarray:
    """Run time in hours of every job on ``hw`` (whether it fits is checked elsewhere)."""
    mine = hw.speed or speed_of(hw.gpu)
    refs = jobs.reference_speeds or tuple(speed_of(n) for n in jobs.reference_gpus)
    families = jobs.families
    family = jobs.family if jobs.family is not None else np.zeros(len(jobs), dtype=INDEX)
    multi = (jobs.gpus > 1).astype(np.int64)
    # ref score / own score for each (reference GPU, family, one or many GPUs): a small table.
    table = np.array(
        [
            [[refs[r].score(f, n) / mine.score(f, n) for n in (1, 8)] for f in families]
            for r in range(len(refs))
        ]
    )
    k = jobs.gpus.astype(np.float64)
    base = jobs.work_ref_gpu_h / k * table[jobs.reference_gpu, family, multi]
    link = np.where(
        jobs.gpus <= hw.gpus_per_unit,
        link_factor(hw.intra_node) if hw.gpus_per_unit > 1 else 0.0,
        link_factor(hw.inter_node),
    )
    sync = sync_term(jobs.gpus, jobs.comm_share, link)
    return np.asarray(base * (1.0 + sync) / (1.0 - hw.virtualization_overhead))
