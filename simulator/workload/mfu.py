"""How fast a GPU trains a large model: model-FLOPs utilisation calibrated on published runs.

A run's time on a GPU is its model FLOPs (``training.compute``) over the GPU's BF16 tensor peak
times a utilisation (MFU). The utilisation is fitted on every published run of
``pricing/data/training_runs.csv`` (LLaMA, Llama 2, BLOOM and Pythia on A100s; Llama 3.1 and
Granite 3.0 on H100s), each observed as its FLOPs over peak x published GPU-hours, with the
synchronisation the speed model charges its job size and network (``workload.sync``) divided
out, so that a job's own size and link are charged once, by the speed model:

    ln MFU = a[architecture] + b log10(parameters / 10^10)

by least squares: one level per GPU architecture (Ampere, Hopper), one slope in model size. The
spread is the residual standard deviation; :func:`leave_one_out` predicts each run from a fit
without it. Published GPU-hours are all-in (restarts, evaluation, stages beyond pre-training where
a model card counts them), so this is the utilisation a budget sees, below the steady state a
paper reports (Llama 3.1 405B: 38-43 %).

Across GPUs the fit gives a *score* per precision, relative to an A100 SXM 40GB at BF16, as the
speed model's workload families do (``workload.calibration``): a GPU of a calibrated
architecture scores its peak over the A100's times its architecture's utilisation over
Ampere's (the size slope is shared, so it cancels); any other GPU is carried from the calibrated
GPU nearest it by the speed model's transformer scores. A precision scales a score by its
measured or derived speed-up over BF16 (``pricing/data/precision_speed.csv``); where the row is
missing the GPU runs the next wider precision (no FP8 on Ampere: BF16 speed), and FP32 on a GPU
without TF32 runs at its FP32 over FP16-tensor peak.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from tco.pricing import hardware, training_data
from tco.pricing.training_data import PublishedRun
from tco.simulator.core import defaults
from tco.simulator.training.compute import total_flops
from tco.simulator.training.work import REFERENCE_GPU, Run
from tco.simulator.workload.sync import link_factor, sync_term

BASE_ARCHITECTURE = "Ampere"
LLM_FAMILIES = {"llm-fp32": "fp32", "llm-bf16": "bf16", "llm-fp8": "fp8", "llm-fp4": "fp4"}
WIDER = {"fp4": "fp8", "fp8": "bf16", "fp16": "bf16"}


def family_of(precision: str) -> str:
    """The speed model's workload family of a run at ``precision`` (FP16 trains as BF16)."""
    return "llm-bf16" if precision == "fp16" else f"llm-{precision}"


def _peak(gpu: str) -> float:
    tflops = hardware.gpu(gpu).fp16_tensor_tflops
    assert tflops is not None, gpu
    return tflops * 1e12


def _shape(r: PublishedRun) -> Run:
    return Run(
        name=r.run,
        parameters=r.parameters,
        layers=r.layers,
        hidden=r.hidden,
        heads=None,
        sequence=r.sequence,
        architecture="transformer",
        activation_gb_per_sample=None,
        tokens=r.tokens,
        method="pretrain",
        precision=r.precision,
        optimizer="adam",
        sharding=3,
        micro_batch=1,
        checkpointing=True,
        flash_attention=True,
        trainable_share=1.0,
    )


def _sync(gpus: int, link: str) -> float:
    one = np.array([gpus])
    return float(sync_term(one, np.array([defaults.COMM_SHARE]), np.array([link_factor(link)]))[0])


@dataclass(frozen=True)
class Observation:
    run: PublishedRun
    architecture: str
    mfu_all_in: float  # FLOPs / (peak x published GPU-hours)
    mfu: float  # with the speed model's sync divided out


@functools.cache
def observations() -> tuple[Observation, ...]:
    out = []
    for r in training_data.published_runs():
        all_in = total_flops(_shape(r)) / (_peak(r.gpu) * r.gpu_hours * 3600.0)
        arch = hardware.gpu(r.gpu).architecture
        out.append(Observation(r, arch, all_in, all_in * (1.0 + _sync(r.gpus, r.link))))
    return tuple(out)


@dataclass(frozen=True)
class Fit:
    levels: dict[str, float]  # architecture -> a
    slope: float  # b, per decade of parameters
    spread: float  # exp(residual sd): one standard deviation as a factor

    def mfu(self, architecture: str, parameters: float) -> float:
        return math.exp(self.levels[architecture] + self.slope * math.log10(parameters / 1e10))


def _design(obs: tuple[Observation, ...], archs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array(
        [[o.architecture == a for a in archs] + [math.log10(o.run.parameters / 1e10)] for o in obs],
        dtype=np.float64,
    )
    return x, np.log([o.mfu for o in obs])


@functools.cache
def fit(without: str | None = None) -> Fit:
    """The utilisation fitted on every published run but ``without`` (a run's name)."""
    obs = tuple(o for o in observations() if o.run.run != without)
    archs = sorted({o.architecture for o in obs})
    x, y = _design(obs, archs)
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ coef
    dof = max(len(obs) - x.shape[1], 1)
    return Fit(
        {a: float(c) for a, c in zip(archs, coef[:-1], strict=True)},
        float(coef[-1]),
        float(math.exp(math.sqrt(float(resid @ resid) / dof))),
    )


def predicted_hours(r: PublishedRun, f: Fit) -> float:
    """The run's GPU-hours as the fit predicts them, its sync charged back."""
    arch = hardware.gpu(r.gpu).architecture
    mfu = f.mfu(arch, r.parameters) / (1.0 + _sync(r.gpus, r.link))
    return total_flops(_shape(r)) / (_peak(r.gpu) * mfu * 3600.0)


@functools.cache
def leave_one_out() -> tuple[tuple[str, float, float], ...]:
    """(run, published GPU-hours, predicted by the fit without it) for every run."""
    return tuple(
        (o.run.run, o.run.gpu_hours, predicted_hours(o.run, fit(o.run.run))) for o in observations()
    )


# The share of runs the range of a run's hours holds: P10 to P90.
COVERED = 0.8


@functools.cache
def spread_ln() -> float:
    """Half the width of the range that holds a run's GPU-hours with ``COVERED`` odds, in ln
    (hours x exp(-+ this)): the jackknife's interval (Barber, Candes, Ramdas, Tibshirani 2021,
    Predictive inference with the jackknife+, Annals of Statistics 49(1)), the
    ceil(0.8 (n + 1))-th smallest of the n leave-one-out errors |ln(published / predicted)|:
    each run predicted by a fit without it, so the range is what runs outside the fit show,
    not the fit's own residuals (whose spread a fit shrinks). The errors are heavier-tailed
    than a normal's: the normal quantile on their RMS (0.30) would hold 10 of 15."""
    errors = sorted(abs(math.log(pub / pred)) for _, pub, pred in leave_one_out())
    k = math.ceil(COVERED * (len(errors) + 1))
    return errors[min(k, len(errors)) - 1]


def hours_range(hours: float) -> tuple[float, float]:
    """(P10, P90) of a run's ``hours`` as the calibration predicts them (``spread_ln``)."""
    q = spread_ln()
    return hours * math.exp(-q), hours * math.exp(q)


def precision_speedup(gpu: str, precision: str) -> tuple[float, str]:
    """(speed-up over BF16, the words for it) of ``precision`` on ``gpu``."""
    g = hardware.gpu(gpu)
    table = training_data.precision_speeds()
    p = "bf16" if precision == "fp16" else precision
    while p != "bf16":
        row = table.get((g.architecture, p))
        if row is not None:
            return row.speedup, f"{p.upper()} on {g.architecture}: x{row.speedup:g} ({row.basis})"
        if p == "fp32":
            if g.fp16_tensor_tflops is None:
                return 1.0, "FP32: no tensor peak published, taken as BF16"
            r = g.fp32_tflops / g.fp16_tensor_tflops
            return r, f"FP32 without TF32: x{r:.3f} (FP32 peak over the FP16 tensor peak)"
        p = WIDER[p]
    return 1.0, "BF16"


def reference_hours(run: Run) -> float:
    """GPU-hours of ``run`` on the reference GPU (A100 SXM 80GB) at BF16, before the sync its
    job size and link add: the work a job class states, in the speed model's units."""
    mfu = fit().mfu(BASE_ARCHITECTURE, run.parameters)
    return total_flops(run) / (_peak(REFERENCE_GPU) * mfu * 3600.0)


def level(gpu: str) -> float | None:
    """BF16 score of ``gpu`` against an A100 SXM 40GB when its architecture is calibrated and its
    peak published; None otherwise (the speed model carries it: ``workload.calibration``)."""
    g = hardware.gpu(gpu)
    f = fit()
    if g.fp16_tensor_tflops is None or g.architecture not in f.levels:
        return None
    base = "A100 SXM 40GB"
    ratio = math.exp(f.levels[g.architecture] - f.levels[BASE_ARCHITECTURE])
    return _peak(gpu) / _peak(base) * ratio
