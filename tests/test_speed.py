"""The speed model reproduces the figures it was built from (founding brief, MLPerf)."""

from __future__ import annotations

import numpy as np
import pytest

from tco.pricing import hardware
from tco.simulator import speed
from tco.simulator.jobs import Jobs
from tco.simulator.speed import Hardware, run_hours


def _jobs(gpus: int, work: float, ref: str, comm: float = 0.08) -> Jobs:
    one = np.ones(1)
    return Jobs(
        arrival_h=one * 0,
        gpus=np.array([gpus]),
        work_ref_gpu_h=one * work,
        memory_gb=one * 0,
        comm_share=one * comm,
        job_class=np.zeros(1, dtype=np.int64),
        reference_gpu=np.zeros(1, dtype=np.int64),
        class_names=("c",),
        reference_gpus=(ref,),
    )


def _hw(
    gpu: str, intra: str, inter: str = "ib_hdr", per_unit: int = 8, virt: float = 0.0
) -> Hardware:
    return Hardware(gpu, hardware.gpu(gpu).memory_gb, per_unit, intra, inter, virt)


@pytest.mark.parametrize(("link", "share"), [("eth_1g", 0.35), ("ib_hdr", 0.08)])
def test_brief_sync_shares(link: str, share: float) -> None:
    # Brief: 8-GPU DDP spends 35 % of its time synchronising on 1 GbE and 8 % on IB HDR.
    # An 8-GPU job over one-GPU nodes uses the network for everything.
    t = run_hours(_jobs(8, 80, "A100 SXM 40GB"), _hw("A100 SXM 40GB", "none", link, per_unit=1))
    compute = 80 / 8
    assert (t[0] - compute) / t[0] == pytest.approx(share)


def test_sync_shrinks_with_bandwidth_and_vanishes_for_one_gpu() -> None:
    shares = [
        hardware.interconnect(n).sync_share_8gpu
        for n in ("eth_1g", "eth_10g", "ib_hdr", "pcie4", "nvswitch_a100", "nvswitch_h100")
    ]
    assert shares == sorted(shares, reverse=True)
    t = run_hours(_jobs(1, 10, "A100 SXM 40GB"), _hw("A100 SXM 40GB", "none", "eth_1g", 1))
    assert t[0] == pytest.approx(10.0)


def test_a100_vs_v100_brief() -> None:
    # Brief: Transformer training about 40 % shorter on an A100 than on a V100.
    v = run_hours(_jobs(1, 100, "V100 SXM2 32GB"), _hw("V100 SXM2 32GB", "none"))
    a = run_hours(_jobs(1, 100, "V100 SXM2 32GB"), _hw("A100 SXM 40GB", "none"))
    assert a[0] / v[0] == pytest.approx(0.6)


def test_h100_vs_a100_mlperf() -> None:
    # MLPerf Training v3.0 (Dell): ResNet-50 1.85x, 3D-UNet 1.45x, DLRM 1.95x; the model uses
    # their geometric mean, inside the measured range.
    ratio = speed.score("H100 SXM") / speed.score("A100 SXM 80GB")
    assert ratio == pytest.approx((1.85 * 1.45 * 1.95) ** (1 / 3))
    assert 1.45 <= ratio <= 1.95


def test_unmeasured_gpus_sit_below_their_peak_ratio() -> None:
    # Measured speedups are well below peak-spec ratios (shared throughput_ratios.csv).
    peak = 2250 / 989.4  # B200 / H100 dense FP16 tensor
    got = speed.score("B200 (HGX 1000W)") / speed.score("H100 SXM")
    assert 1.0 < got < peak
    assert speed.score("H200 SXM") == speed.score("H100 SXM")  # same compute (datasheet)


@pytest.mark.parametrize("virt", [0.05, 0.075, 0.10])
def test_virtualization_overhead(virt: float) -> None:
    # Brief: cloud VMs lose 5-10 % to virtualization; bare metal none.
    vm = run_hours(_jobs(1, 10, "A100 SXM 40GB"), _hw("A100 SXM 40GB", "none", virt=virt))
    assert vm[0] * (1 - virt) == pytest.approx(10.0)
