"""How fast each GPU trains, relative to an A100 SXM 40GB, from published measurements.

*Measured* GPUs (``pricing.speed_data``: Lambda's PyTorch FP16 training tables): per workload,
the throughput ratio to the A100 40GB, chained through the A100 80GB for the 2024 tables; a score
is the geometric mean over a workload family's workloads, at 1 GPU and at 8 GPUs in one server,
and its spread the geometric standard deviation over those workloads. The L40S and AWS's A10G are
measured through cards on the same chip (RTX 6000 Ada, A10).

*Modelled* GPUs (no measurement): scaled from the nearest measured GPU (in log peak and log
bandwidth) by (FP16 tensor peak ratio)^a x (memory bandwidth ratio)^b, with a and b fitted per
family by least squares in log space on the measured GPUs' ratios to the A100 40GB (GPUs with
datasheet figures; proxies left out). An H200 thus scales from the H100, not from the A100.
Measured speedups follow neither peak alone: compute-bound pairs above the A100 and
memory-bound cards below it pull differently, which one exponent could not fit. The model's error
is its leave-one-out error on the measured GPUs (:func:`leave_one_out`), and a modelled score's
spread is that error. A modelled GPU's 8-GPU score
is its 1-GPU score (no 8-GPU data to fit).

Families: ``all`` (the 8 workloads), ``transformer`` (BERT base and large, Transformer-XL base and
large), ``cnn`` (ResNet-50, SSD). A scenario may override a GPU's score (e.g. the founding brief's
V100 = 0.6 of an A100) with its source: :func:`speed_of` applies it to every family and mode.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from tco.pricing import hardware
from tco.pricing.speed_data import PROXIES, lambda_measurements

BASE_GPU = "A100 SXM 40GB"
BRIDGE_GPU = "A100 SXM 80GB"  # the 2024 tables' baseline, measured against the base in 2022
FAMILIES: dict[str, tuple[str, ...]] = {
    "all": (
        "ssd",
        "bert_base_squad",
        "bert_large_squad",
        "gnmt",
        "resnet50",
        "transformerxlbase",
        "transformerxllarge",
        "waveglow",
    ),
    "transformer": (
        "bert_base_squad",
        "bert_large_squad",
        "transformerxlbase",
        "transformerxllarge",
    ),
    "cnn": ("ssd", "resnet50"),
}
MODES = (1, 8)  # GPUs per run: one GPU, and eight in one server (any multi-GPU job)


@dataclass(frozen=True)
class GpuSpeed:
    """Training speed of one GPU relative to an A100 SXM 40GB, per family and mode.

    ``scores[(family, gpus)]``; ``basis``: measured, measured through a proxy card, modelled, or
    set in the scenario; ``spread``: the factor one standard deviation spans (1.2 = +-20 %).
    """

    gpu: str
    scores: Mapping[tuple[str, int], float]
    basis: str
    spread: float
    source: str

    def score(self, family: str = "all", gpus: int = 1) -> float:
        return self.scores[(family, 1 if gpus <= 1 else 8)]


def _ratios(gpu: str, gpus: int) -> dict[str, float]:
    """Per workload: throughput of ``gpu`` over the A100 40GB (empty if never measured)."""
    table = {
        (m.base, m.gpu, m.workload): m.ratio
        for m in lambda_measurements()
        if m.gpus == gpus and m.workload != "geomean"
    }
    if gpu == BASE_GPU:
        return dict.fromkeys(FAMILIES["all"], 1.0)
    direct = {w: r for (b, g, w), r in table.items() if b == BASE_GPU and g == gpu}
    if direct:
        return direct
    bridge = {w: r for (b, g, w), r in table.items() if b == BASE_GPU and g == BRIDGE_GPU}
    return {w: r * bridge[w] for (b, g, w), r in table.items() if b == BRIDGE_GPU and g == gpu}


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _measured(gpu: str) -> GpuSpeed | None:
    single = _ratios(gpu, 1)
    if not single:
        return None
    multi = _ratios(gpu, 8) or single  # no 8-GPU table: the 1-GPU ratios
    scores = {
        (f, n): geomean([(single if n == 1 else multi)[w] for w in ws])
        for f, ws in FAMILIES.items()
        for n in MODES
    }
    logs = np.log([single[w] for w in FAMILIES["all"]])
    proxy = PROXIES.get(gpu)
    return GpuSpeed(
        gpu=gpu,
        scores=scores,
        basis=f"measured on {proxy}" if proxy else "measured",
        spread=float(math.exp(logs.std())),
        source="Lambda deeplearning-benchmark, PyTorch FP16 training, 8 workloads"
        + ("" if _ratios(gpu, 8) else "; no 8-GPU table: 1-GPU ratios for multi-GPU runs"),
    )


def _features(gpu: str) -> tuple[float, float] | None:
    """(log tensor-peak ratio, log bandwidth ratio) to the base, or None without a peak."""
    g, base = hardware.gpu(gpu), hardware.gpu(BASE_GPU)
    if g.fp16_tensor_tflops is None or base.fp16_tensor_tflops is None:
        return None
    return (
        math.log(g.fp16_tensor_tflops / base.fp16_tensor_tflops),
        math.log(g.memory_bandwidth_gb_per_s / base.memory_bandwidth_gb_per_s),
    )


@functools.cache
def fit_points() -> tuple[str, ...]:
    """The measured GPUs the model is fitted on: datasheet peaks known, not a proxy."""
    return tuple(
        sorted(
            g
            for g in hardware.gpus()
            if g != BASE_GPU and g not in PROXIES and _features(g) and _ratios(g, 1)
        )
    )


def fit(family: str = "all", leave_out: str | None = None) -> tuple[float, float]:
    """(a, b): log score = a log(peak ratio) + b log(bandwidth ratio), least squares."""
    names = [g for g in fit_points() if g != leave_out]
    x = np.array([_features(g) for g in names])
    y = np.log([geomean([_ratios(g, 1)[w] for w in FAMILIES[family]]) for g in names])
    (a, b), *_ = np.linalg.lstsq(x, y, rcond=None)
    return float(a), float(b)


def _predict(gpu: str, family: str, leave_out: str | None = None) -> tuple[float, str]:
    """(score, anchor): from the nearest measured GPU with datasheet peaks (not ``leave_out``)."""
    a, b = fit(family, leave_out)
    mine = _features(gpu)
    assert mine is not None
    anchors = [g for g in (*fit_points(), BASE_GPU) if g not in (gpu, leave_out)]
    features = {g: _features(g) for g in anchors}
    anchor = min(
        anchors,
        key=lambda g: (math.dist(mine, features[g]), g),  # type: ignore[arg-type]
    )
    fa = features[anchor]
    assert fa is not None
    base = _measured(anchor)
    assert base is not None
    return base.score(family) * math.exp(a * (mine[0] - fa[0]) + b * (mine[1] - fa[1])), anchor


@functools.cache
def leave_one_out(family: str = "all") -> tuple[tuple[str, float, float], ...]:
    """(GPU, measured, predicted with the model fitted and anchored without it) for each
    fitted GPU: the model's error on GPUs it was not fitted on."""
    out = []
    for g in fit_points():
        measured = _measured(g)
        assert measured is not None
        out.append((g, measured.score(family), _predict(g, family, leave_out=g)[0]))
    return tuple(out)


@functools.cache
def model_error(family: str = "all") -> float:
    """Root mean square of the leave-one-out log errors, as a factor (1.2 = +-20 %)."""
    errs = [math.log(p / m) for _, m, p in leave_one_out(family)]
    return math.exp(math.sqrt(sum(e * e for e in errs) / len(errs)))


@functools.cache
def _default(gpu: str) -> GpuSpeed:
    measured = _measured(gpu)
    if measured is not None:
        return measured
    if _features(gpu) is None:
        raise ValueError(f"{gpu}: no measurement and no FP16 tensor peak to model its speed")
    predicted = {f: _predict(gpu, f) for f in FAMILIES}
    return GpuSpeed(
        gpu=gpu,
        scores={(f, n): predicted[f][0] for f in FAMILIES for n in MODES},
        basis=f"modelled from {predicted['all'][1]}",
        spread=model_error(),
        source="FP16 tensor peak and memory bandwidth ratios, exponents fitted on the measured"
        " GPUs (leave-one-out error in the spread)",
    )


def speed_of(gpu: str, overrides: Mapping[str, float] | None = None, source: str = "") -> GpuSpeed:
    """The speed of ``gpu``: a scenario's override (``overrides``, with its ``source``), else
    measured, else modelled."""
    if overrides and gpu in overrides:
        return GpuSpeed(
            gpu=gpu,
            scores=dict.fromkeys(((f, n) for f in FAMILIES for n in MODES), overrides[gpu]),
            basis="scenario",
            spread=1.0,
            source=source or "set in the scenario",
        )
    return _default(gpu)
