"""The speed model against published measurements (tests/fixtures/speed: MLPerf, Lambda) and the
founding brief; checked through run_hours, not by restating the model's constants."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from tco.pricing import hardware
from tco.simulator import speed
from tco.simulator.jobs import Jobs
from tco.simulator.speed import Hardware, run_hours
from tests.conftest import FIXTURES

RATIOS = list(
    csv.DictReader((FIXTURES / "speed" / "throughput_ratios.csv").read_text().splitlines())
)


def _published(newer: str, older: str, kind: str) -> list[float]:
    """Published ratios of a pair (ranges like '1.95-2.5' give both ends)."""
    out = []
    for r in RATIOS:
        if (r["newer_gpu"], r["older_gpu"]) == (newer, older) and r["measured_or_estimate"] == kind:
            out += [float(x) for x in r["ratio_newer_over_older"].split("-")]
    assert out, (newer, older, kind)
    return out


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


def test_h100_vs_a100_is_the_mlperf_geometric_mean() -> None:
    """Through run_hours: one job's run time on an A100 over that on an H100 is the geometric
    mean of the published MLPerf v3.0 ratios, inside their range."""
    measured = _published("H100 SXM5 80GB", "A100 SXM4 80GB", "measured")
    a = run_hours(_jobs(1, 100, "A100 SXM 80GB"), _hw("A100 SXM 80GB", "none"))
    h = run_hours(_jobs(1, 100, "A100 SXM 80GB"), _hw("H100 SXM", "none"))
    ratio = float(a[0] / h[0])
    assert ratio == pytest.approx(math.prod(measured) ** (1 / len(measured)), rel=1e-9)
    assert min(measured) <= ratio <= max(measured)


def test_a100_vs_v100_within_published_estimates_and_below_peak() -> None:
    estimates = _published("A100", "V100", "estimate")
    peak = _published("A100", "V100", "spec")[0]
    v = run_hours(_jobs(1, 100, "V100 SXM2 32GB"), _hw("V100 SXM2 32GB", "none"))
    a = run_hours(_jobs(1, 100, "V100 SXM2 32GB"), _hw("A100 SXM 40GB", "none"))
    assert min(estimates) <= float(v[0] / a[0]) < peak


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
