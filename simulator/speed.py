"""How long a job runs on given hardware.

run time (h) = work / k x score(reference GPU) / score(GPU) x (1 + sync) / (1 - virtualization)

*Speed score* of a GPU, relative to an A100 SXM: measured training ratios where they exist
(``MEASURED_SCORES``); otherwise the peak dense FP16 tensor ratio to the nearest measured GPU
raised to an exponent ``ALPHA`` fitted on the measured pairs (measured speedups are well below
peak ratios; a power law keeps chained ratios consistent).
Where the tensor peak is not published (A10G) the memory-bandwidth ratio stands in for it.

*Synchronisation*: a job's ``comm_share`` is the share of an 8-GPU step it spends syncing over
InfiniBand HDR (the brief's 8 % by default). On another link its comm/compute ratio scales like the
link's typical ratio (``pricing.hardware.interconnects``), and with k GPUs by (k-1)/k relative to 8
(ring all-reduce moves 2(k-1)/k of the gradients per GPU). A job on one GPU does not sync. Jobs
that fit inside one server or instance use its internal link; larger jobs the network.

*Virtualization*: cloud VMs lose ``virtualization_overhead`` of their throughput.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tco.pricing import hardware
from tco.simulator import defaults
from tco.simulator.jobs import Jobs

BASE_GPU = "A100 SXM 40GB"

# Measured training speed relative to the A100 (sources in pricing/data/README.md):
# - H100 SXM: geometric mean of MLPerf Training v3.0 H100/A100 ratios 1.85, 1.45, 1.95 (Dell,
#   silvertonconsulting.com 2023-07-12) = 1.736.
# - V100: the founding brief, "Transformer training about 40 % shorter" on A100 -> 0.6.
# - A100 80GB: the same compute as the 40GB part (datasheet); memory only differs.
MEASURED_SCORES: dict[str, float] = {
    "A100 SXM 40GB": 1.0,
    "A100 SXM 80GB": 1.0,
    "H100 SXM": (1.85 * 1.45 * 1.95) ** (1 / 3),
    "V100 SXM2 16GB": 0.6,
    "V100 SXM2 32GB": 0.6,
}


def _peak(name: str, by_bandwidth: bool) -> float:
    g = hardware.gpu(name)
    if by_bandwidth:
        return g.memory_bandwidth_gb_per_s
    assert g.fp16_tensor_tflops is not None
    return g.fp16_tensor_tflops


def _fit_alpha() -> float:
    """Mean of ln(measured)/ln(peak) over the measured pairs H100/A100 and A100/V100."""
    pairs = [("H100 SXM", "A100 SXM 40GB"), ("A100 SXM 40GB", "V100 SXM2 16GB")]
    vals = []
    for new, old in pairs:
        measured = MEASURED_SCORES[new] / MEASURED_SCORES[old]
        peak = _peak(new, False) / _peak(old, False)
        vals.append(math.log(measured) / math.log(peak))
    return sum(vals) / len(vals)


ALPHA = _fit_alpha()


def score(gpu: str) -> float:
    """Training speed of ``gpu`` relative to an A100 SXM (1.0).

    Measured where known; otherwise from the measured GPU nearest in peak throughput:
    score(anchor) x (peak(gpu) / peak(anchor)) ** ALPHA, so an H200 (H100 compute) scores as an
    H100 and a B200 scales from the H100, not from the A100.
    """
    if gpu in MEASURED_SCORES:
        return MEASURED_SCORES[gpu]
    by_bw = hardware.gpu(gpu).fp16_tensor_tflops is None
    mine = _peak(gpu, by_bw)
    anchor = min(MEASURED_SCORES, key=lambda a: (abs(math.log(mine / _peak(a, by_bw))), a))
    return float(MEASURED_SCORES[anchor] * (mine / _peak(anchor, by_bw)) ** ALPHA)


@dataclass(frozen=True)
class Hardware:
    """Where jobs run: a GPU model in units (servers or instances) of ``gpus_per_unit``."""

    gpu: str
    gpu_memory_gb: float
    gpus_per_unit: int
    intra_node: str
    inter_node: str
    virtualization_overhead: float
    speed_score: float | None = None  # None: from the GPU catalog


def _link_factor(link: str) -> float:
    share = hardware.interconnect(link).sync_share_8gpu
    ref = hardware.interconnect(defaults.REFERENCE_LINK).sync_share_8gpu
    return (share / (1 - share)) / (ref / (1 - ref))


def run_hours(jobs: Jobs, hw: Hardware) -> np.ndarray:
    """Run time in hours of every job on ``hw`` (whether it fits is checked elsewhere)."""
    gpu_score = hw.speed_score if hw.speed_score is not None else score(hw.gpu)
    ref_scores = np.array([score(name) for name in jobs.reference_gpus])
    k = jobs.gpus.astype(np.float64)
    base = jobs.work_ref_gpu_h / k * ref_scores[jobs.reference_gpu] / gpu_score
    s = jobs.comm_share
    ratio_ref = s / (1.0 - s)
    link = np.where(
        jobs.gpus <= hw.gpus_per_unit,
        _link_factor(hw.intra_node) if hw.gpus_per_unit > 1 else 0.0,
        _link_factor(hw.inter_node),
    )
    sync = np.where(jobs.gpus > 1, ratio_ref * link * ((k - 1) / k) / (7 / 8), 0.0)
    return np.asarray(base * (1.0 + sync) / (1.0 - hw.virtualization_overhead))
