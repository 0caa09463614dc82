"""The time a multi-GPU job spends synchronising, as a share of its compute time.

A job's ``comm_share`` is the share of an 8-GPU step it spends syncing over InfiniBand HDR (the
brief's 8 % by default). On another link its comm/compute ratio scales like the link's typical
ratio (``pricing.hardware.interconnects``), and with k GPUs by (k-1)/k relative to 8 (ring
all-reduce moves 2(k-1)/k of the gradients per GPU). A job on one GPU does not sync. One rule for
the speed model (``workload.speed``) and for the calibration of training runs that were measured
on a network (``workload.mfu``), which divides it out.
"""

from __future__ import annotations

import numpy as np

from tco.pricing import hardware
from tco.simulator.core import defaults


def link_factor(link: str) -> float:
    """The comm/compute ratio on ``link`` over the reference link's."""
    share = hardware.interconnect(link).sync_share_8gpu
    ref = hardware.interconnect(defaults.REFERENCE_LINK).sync_share_8gpu
    return (share / (1 - share)) / (ref / (1 - ref))


def sync_term(gpus: np.ndarray, comm_share: np.ndarray, link: np.ndarray) -> np.ndarray:
    """Sync time over compute time per job: ``link`` is each job's :func:`link_factor`."""
    k = gpus.astype(np.float64)
    ratio_ref = comm_share / (1.0 - comm_share)
    return np.where(gpus > 1, ratio_ref * link * ((k - 1) / k) / (7 / 8), 0.0)
