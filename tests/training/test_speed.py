"""The speed model against published measurements (tests/fixtures/speed: MLPerf, Lambda) and the
founding brief; checked through run_hours, not by restating the model's constants."""

from __future__ import annotations

import csv
import dataclasses
import re

import numpy as np
import pytest

from tco.pricing import hardware, speed_data
from tco.simulator.core.errors import ScenarioError
from tco.simulator.run import run
from tco.simulator.scenario.model import loads_scenario
from tco.simulator.workload import calibration, speed
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware, run_hours
from tests.conftest import FIXTURES, ROOT

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


def test_the_brief_v100_is_a_documented_override_not_the_default() -> None:
    """Brief: Transformer training about 40 % shorter on an A100 than on a V100 (V100 = 0.6).
    Lambda's eight workloads give 0.446, the default; a scenario may still say 0.6, sourced."""
    jobs = _jobs(1, 100, "V100 SXM2 32GB")
    v = run_hours(jobs, _hw("V100 SXM2 32GB", "none"))
    a = run_hours(jobs, _hw("A100 SXM 40GB", "none"))
    assert a[0] / v[0] == pytest.approx(0.446, abs=0.0005)
    brief = calibration.speed_of("V100 SXM2 32GB", {"V100 SXM2 32GB": 0.6}, "founding brief")
    overridden = dataclasses.replace(jobs, reference_speeds=(brief,))
    a = run_hours(overridden, _hw("A100 SXM 40GB", "none"))
    v = run_hours(overridden, dataclasses.replace(_hw("V100 SXM2 32GB", "none"), speed=brief))
    assert a[0] / v[0] == pytest.approx(0.6) and brief.basis == "scenario"


def test_every_published_geometric_mean_is_reproduced() -> None:
    """For each Lambda pair and mode, the geometric mean of its eight workload rows equals the
    published geometric-mean row (to its three decimals)."""
    rows = speed_data.lambda_measurements()
    pairs = {(m.base, m.gpu, m.gpus) for m in rows}
    assert len(pairs) == 15
    for pair in pairs:
        mine = [m for m in rows if (m.base, m.gpu, m.gpus) == pair]
        workloads = [m.ratio for m in mine if m.workload != "geomean"]
        published = [m.ratio for m in mine if m.workload == "geomean"]
        assert len(workloads) == 8 and len(published) == 1
        assert calibration.geomean(workloads) == pytest.approx(published[0], abs=0.0006), pair


@pytest.mark.parametrize("n", [1, 8])
def test_measured_scores_are_the_published_ratios_chained_to_the_a100_40gb(n: int) -> None:
    rows = speed_data.lambda_measurements()
    geo = {(m.base, m.gpu, m.gpus): m.ratio for m in rows if m.workload == "geomean"}
    bridge = geo[("A100 SXM 40GB", "A100 SXM 80GB", n)]
    for (base, gpu, gpus), ratio in geo.items():
        if gpus != n:
            continue
        want = ratio if base == "A100 SXM 40GB" else ratio * bridge
        assert speed.score(gpu, "all", n) == pytest.approx(want, rel=0.002), gpu


def test_h100_vs_a100_lies_within_the_independent_mlperf_results() -> None:
    """Lambda's H100/A100 (fitted) against MLPerf Training v3.0 (not used in the calibration)."""
    mlperf = [m.ratio for m in speed_data.mlperf_measurements()]
    a = run_hours(_jobs(1, 100, "A100 SXM 80GB"), _hw("A100 SXM 80GB", "none"))
    h = run_hours(_jobs(1, 100, "A100 SXM 80GB"), _hw("H100 SXM", "none"))
    assert min(mlperf) <= float(a[0] / h[0]) <= max(mlperf)


def test_a100_vs_v100_within_published_estimates_and_below_peak() -> None:
    estimates = _published("A100", "V100", "estimate")
    peak = _published("A100", "V100", "spec")[0]
    v = run_hours(_jobs(1, 100, "V100 SXM2 32GB"), _hw("V100 SXM2 32GB", "none"))
    a = run_hours(_jobs(1, 100, "V100 SXM2 32GB"), _hw("A100 SXM 40GB", "none"))
    assert min(estimates) <= float(v[0] / a[0]) < peak


def test_memory_bound_cards_are_slower_than_their_compute_peak_says() -> None:
    """The old model (tensor peak alone) made the A40, A10(G) and L40S 16-56 % too fast."""
    for gpu, peak_ratio in (("A40", 149.7 / 312), ("L40S", 362.05 / 312)):
        assert speed.score(gpu) < peak_ratio**0.52  # the old exponent on the peak alone


V2 = list(
    csv.DictReader((ROOT / "pricing" / "data" / "speed_lambda_v2.csv").read_text().splitlines())
)


@pytest.mark.parametrize("n", [1, 8])
@pytest.mark.parametrize(
    ("lambda_name", "gpu"), [("B200 192GB", "B200 (HGX 1000W)"), ("H200 141GB SXM", "H200 SXM")]
)
def test_the_newest_gpus_are_their_2025_speed_up_over_the_h100(
    lambda_name: str, gpu: str, n: int
) -> None:
    """Lambda's 2025 table (not in 0.10.0): the B200 trains about 1.5x as fast as an H100 on one
    GPU, far from its 2.3x peak; a score is that speed-up times the H100's own."""
    rows = [
        float(r["ratio_b_over_a"]) for r in V2 if r["gpu_b"] == lambda_name and r["gpus"] == str(n)
    ]
    assert len(rows) == 6
    want = speed.score("H100 SXM", "all", n) * float(np.exp(np.mean(np.log(rows))))
    assert speed.score(gpu, "all", n) == pytest.approx(want, rel=1e-9)
    assert calibration.speed_of(gpu).basis == "measured"


def test_the_newest_gpus_held_out_within_20_percent_at_one_gpu_and_eight() -> None:
    """The modelled path, fitted as if the 2025 table did not exist, against it: 0.10.0's power
    law made the B200 37 % too fast on one GPU and an 8x H200 slower than an 8x H100."""
    checks = calibration.held_out()
    assert len(checks) == 4
    errors = sorted(abs(p / m - 1) for _, _, m, p in checks)
    assert errors[-1] < 0.20 and float(np.median(errors)) < 0.10
    predicted = {(g, n): p for g, n, _, p in checks}
    assert predicted[("H200 SXM", 8)] > speed.score("H100 SXM", "all", 8)
    assert 1.0 < predicted[("B200 (HGX 1000W)", 1)] / speed.score("H100 SXM") < 2250 / 989.4


def test_a_modelled_gpu_scales_to_eight_like_its_nearest_linked_sibling() -> None:
    """MI300X (Infinity Fabric) takes the 8-GPU scaling of a measured NVLink GPU; a PCIe-only
    card, with no 8-GPU table to learn from, keeps its 1-GPU score."""
    mi300 = calibration.speed_of("MI300X")
    assert mi300.basis.startswith("modelled") and mi300.score("all", 8) > mi300.score("all", 1)
    l4 = calibration.speed_of("L4")
    assert l4.score("all", 8) == l4.score("all", 1)


def test_the_step_time_shares_are_a_true_non_negative_least_squares() -> None:
    from scipy.optimize import nnls

    rng = np.random.default_rng(7)
    for _ in range(50):
        a, y = rng.normal(size=(9, 3)), rng.normal(size=9)
        assert calibration._nnls(a, y) == pytest.approx(nnls(a, y)[0], abs=1e-9)


def test_the_model_error_on_gpus_it_was_not_fitted_on() -> None:
    """Leave-one-out: fitted and anchored without each measured GPU, then compared with it."""
    loo = calibration.leave_one_out()
    fitted = set(calibration.fit_points()) - {calibration.BASE_GPU}
    assert {g for g, _, _ in loo} == fitted and len(loo) == 9
    errors = sorted(abs(p / m - 1) for _, m, p in loo)
    assert errors[len(errors) // 2] < 0.10  # median
    assert errors[-1] < 0.5
    assert calibration.speed_of("T4").spread == pytest.approx(calibration.model_error())


def test_a_job_family_and_its_size_pick_the_measured_scores() -> None:
    """V100 vs A100: 0.36 on transformers, 0.62 on CNNs (Lambda); H100 SXM: 1.97 at one GPU,
    2.53 at eight."""

    def ratio(family: str, gpus: int, gpu: str, ref: str = "A100 SXM 40GB") -> float:
        jobs = dataclasses.replace(
            _jobs(gpus, 100, ref, comm=0.0),
            family=np.zeros(1, dtype=np.int64),
            families=(family,),
        )
        return float(
            run_hours(jobs, _hw(ref, "nvswitch_a100"))[0]
            / run_hours(jobs, _hw(gpu, "nvswitch_a100"))[0]
        )

    assert ratio("transformer", 1, "V100 SXM2 32GB") == pytest.approx(
        speed.score("V100 SXM2 32GB", "transformer")
    )
    assert ratio("cnn", 1, "V100 SXM2 32GB") > 1.5 * ratio("transformer", 1, "V100 SXM2 32GB")
    assert ratio("all", 8, "H100 SXM") == pytest.approx(speed.score("H100 SXM", "all", 8))
    assert ratio("all", 8, "H100 SXM") > 1.2 * ratio("all", 1, "H100 SXM")


@pytest.mark.parametrize("virt", [0.05, 0.075, 0.10])
def test_virtualization_overhead(virt: float) -> None:
    # Brief: cloud VMs lose 5-10 % to virtualization; bare metal none.
    vm = run_hours(_jobs(1, 10, "A100 SXM 40GB"), _hw("A100 SXM 40GB", "none", virt=virt))
    assert vm[0] * (1 - virt) == pytest.approx(10.0)


# The lab with its fine-tunes in V100 GPU-hours, as before 0.16.0 stated them as a model: every
# job's work on a V100, which a V100 override then moves.
LAB = re.sub(
    r"work: \{model: mistral-7b[^}]*\}",
    "work: {reference_gpu: V100 SXM2 32GB, gpu_hours: 10, distribution: lognormal, sigma: 1.0}\n"
    "      memory_gb: 16",
    (ROOT / "scenarios" / "lab.yaml").read_text(),
    count=1,
)


def test_a_scenario_override_reaches_the_run_and_its_prices_table() -> None:
    brief = LAB.replace(
        "\noptions:",
        "\nspeed: {scores: {V100 SXM2 32GB: 0.6}, source: founding brief}\noptions:",
        1,
    )
    default, overridden = run(loads_scenario(LAB)), run(loads_scenario(brief))
    od = "p4d-on-demand"
    # The lab's work is in V100 GPU-hours: at 0.6 instead of 0.446 it is more A100 time.
    ratio = overridden.option(od).total_cash_usd / default.option(od).total_cash_usd
    assert ratio == pytest.approx(0.6 / 0.446, rel=0.02)
    # The override is one of the scenario's inputs (the assumptions table lists them); the
    # options' own GPUs keep their measured speeds in the prices table.
    assert overridden.scenario.model_dump()["speed"] == {
        "scores": {"V100 SXM2 32GB": 0.6},
        "source": "founding brief",
    }
    quotes = [q for o in overridden.options for q in o.quotes if "training speed" in q.item]
    # One per GPU model of each option: A40; the hybrid's A40 and its burst fleet's four; A10G,
    # L4, L40S and A100 in each of three fleets; A100 (p4d); A100 80GB (bare metal); the same
    # four in the multi-cloud fleet (Lambda's A100s and Nebius's L40S are the same models).
    assert len(quotes) == 1 + 5 + 3 * 4 + 1 + 1 + 4
    assert all(q.source.startswith(("measured", "modelled")) for q in quotes)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        (
            "memory_gb: 16",
            "memory_gb: 16\n      workload_family: diffusion",
            "valid: all, transformer, cnn",
        ),
        ("\noptions:", "\nspeed: {scores: {V100: 0.6}, source: x}\noptions:", "speed.scores.V100"),
        ("\noptions:", "\nspeed: {scores: {A40: 0.6}}\noptions:", "speed.source"),
    ],
)
def test_bad_speed_input_is_refused_by_name(old: str, new: str, says: str) -> None:
    with pytest.raises(ScenarioError, match=re.escape(says)):
        loads_scenario(LAB.replace(old, new, 1))
