"""How fast each GPU trains, relative to an A100 SXM 40GB, from published measurements.

*Measured* GPUs (``pricing.speed_data``: Lambda's PyTorch FP16 training tables): per workload,
the throughput ratio to the A100 40GB, chained through the A100 80GB for the 2024 tables; a score
is the geometric mean over a workload family's workloads, at 1 GPU and at 8 GPUs in one server,
and its spread the geometric standard deviation over those workloads. The L40S and AWS's A10G are
measured through cards on the same chip (RTX 6000 Ada, A10). The H200 and B200 are measured
against the H100 SXM in Lambda's 2025 (v2) table, which lacks the Transformer-XL pair: their score
is their speed-up over the H100 on the workloads it has times the H100's score.

*Modelled* GPUs (no measurement): a training step's time splits into a share that scales with the
FP16 tensor peak, one that scales with memory bandwidth, and one that scales with neither (host
work, kernel launches, the input pipeline), an additive roofline. The three shares are fitted per
family by non-negative least squares on the relative error of the measured GPUs' step times
(proxies left out), and a GPU is scaled from the nearest measured one (in log peak and log
bandwidth) by the model's ratio between the two. The fixed share is what makes a GPU with 2.3x
the H100's peak (the B200) train 1.5x as fast, as measured; the power law this replaces (0.10.0)
extrapolated the older GPUs' exponents and made it 2.1x.

A modelled GPU's 8-GPU score is its 1-GPU score times the 8-GPU scaling (8-GPU over 1-GPU
score) of the nearest measured GPU with the same kind of link between GPUs (NVLink/NVSwitch or
PCIe only); no PCIe-only card has an 8-GPU table, so theirs is their 1-GPU score (0.10.0 did this
for every modelled GPU, which made an 8x H200 slower than an 8x H100).

The model's error is its leave-one-out error on the measured GPUs (:func:`leave_one_out`), and a
modelled score's spread is that error. :func:`held_out` checks the modelled path on the newest
GPUs, fitted as if the 2025 table did not exist: within 2 % at one GPU and 3-15 % at eight.

Families: ``all`` (the 8 workloads), ``transformer`` (BERT base and large, Transformer-XL base and
large), ``cnn`` (ResNet-50, SSD). A scenario may override a GPU's score (e.g. the founding brief's
V100 = 0.6 of an A100) with its source: :func:`speed_of` applies it to every family and mode.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from tco.pricing import hardware
from tco.pricing.speed_data import PROXIES, lambda_measurements, lambda_v2_measurements
from tco.simulator.workload import mfu

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
# Every family a job may have: the measured ones, and large models' per precision (workload.mfu).
ALL_FAMILIES: tuple[str, ...] = (*FAMILIES, *mfu.LLM_FAMILIES)


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


NEWEST_BASE = "H100 SXM"  # the 2025 (v2) table's baseline
BRIDGES = (BASE_GPU, BRIDGE_GPU, NEWEST_BASE)  # the tables' baselines: 2022, 2024, 2025


@functools.cache
def _table(gpus: int) -> dict[tuple[str, str], dict[str, float]]:
    """(base, GPU) -> {workload: throughput ratio}, every Lambda table, at ``gpus`` per run."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    for m in (*lambda_measurements(), *lambda_v2_measurements()):
        if m.gpus == gpus and m.workload != "geomean":
            out.setdefault((m.base, m.gpu), {})[m.workload] = m.ratio
    return out


@functools.cache
def _ratios(gpu: str, gpus: int) -> dict[str, float]:
    """Per workload: throughput of ``gpu`` over the A100 40GB (empty if never measured), chained
    through a table's own baseline where ``gpu`` was measured against another GPU."""
    if gpu == BASE_GPU:
        return dict.fromkeys(FAMILIES["all"], 1.0)
    table = _table(gpus)
    for base in BRIDGES:
        if (base, gpu) in table:
            via = _ratios(base, gpus)
            return {w: r * via[w] for w, r in table[(base, gpu)].items() if w in via}
    return {}


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _family_score(ratios: Mapping[str, float], family: str) -> float:
    """Geometric mean over the family's workloads the table has (the 2025 table lacks the
    Transformer-XL pair: its transformer score rests on BERT base and large)."""
    return geomean([ratios[w] for w in FAMILIES[family] if w in ratios])


def _newest(gpu: str, gpus: int) -> dict[str, float]:
    """Per workload: ``gpu`` over the H100 SXM in the 2025 table (empty if not in it)."""
    return _table(gpus).get((NEWEST_BASE, gpu), {})


@functools.cache
def _measured(gpu: str) -> GpuSpeed | None:
    single = _ratios(gpu, 1)
    if not single:
        return None
    newest = bool(_newest(gpu, 1))
    if newest:
        # The 2025 table lacks two of the family's workloads: its GPUs' speed-up over the H100
        # on the workloads it has, times the H100's score on the whole family, keeps every
        # GPU's score on the same mix of workloads.
        h100 = _measured(NEWEST_BASE)
        assert h100 is not None
        scores = {
            (f, n): h100.score(f, n) * _family_score(_newest(gpu, n) or _newest(gpu, 1), f)
            for f in FAMILIES
            for n in MODES
        }
    else:
        multi = _ratios(gpu, 8) or single  # no 8-GPU table: the 1-GPU ratios
        scores = {
            (f, n): _family_score(single if n == 1 else multi, f) for f in FAMILIES for n in MODES
        }
    logs = np.log([single[w] for w in FAMILIES["all"] if w in single])
    proxy = PROXIES.get(gpu)
    return GpuSpeed(
        gpu=gpu,
        scores=scores,
        basis=f"measured on {proxy}" if proxy else "measured",
        spread=float(math.exp(logs.std())),
        source=(
            "Lambda deeplearning-benchmark v2 (2025-12), 6 workloads, against the H100 SXM"
            if newest
            else "Lambda deeplearning-benchmark, PyTorch FP16 training, 8 workloads"
        )
        + ("" if _ratios(gpu, 8) else "; no 8-GPU table: 1-GPU ratios for multi-GPU runs"),
    )


def _features(gpu: str) -> tuple[float, float] | None:
    """(tensor-peak ratio, bandwidth ratio) to the base, or None without a published peak."""
    g, base = hardware.gpu(gpu), hardware.gpu(BASE_GPU)
    if g.fp16_tensor_tflops is None or base.fp16_tensor_tflops is None:
        return None
    return (
        g.fp16_tensor_tflops / base.fp16_tensor_tflops,
        g.memory_bandwidth_gb_per_s / base.memory_bandwidth_gb_per_s,
    )


@functools.cache
def fit_points(without: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The measured GPUs the model is fitted on: datasheet peaks known, not a proxy, and not in
    ``without`` (the base, whose score is 1 by definition, is one of them)."""
    return tuple(
        sorted(
            g
            for g in hardware.gpus()
            if g not in PROXIES and g not in without and _features(g) and _ratios(g, 1)
        )
    )


def _nnls(a: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least squares with every coefficient >= 0, exactly, by trying each set of free
    coefficients (3 unknowns: 7 sets); a share of step time cannot be negative."""
    best, best_err = np.zeros(a.shape[1]), float(y @ y)
    for mask in range(1, 2 ** a.shape[1]):
        cols = [j for j in range(a.shape[1]) if mask >> j & 1]
        coef, *_ = np.linalg.lstsq(a[:, cols], y, rcond=None)
        if (coef < 0).any():
            continue
        err = float(np.sum((a[:, cols] @ coef - y) ** 2))
        if err < best_err - 1e-15:
            full = np.zeros(a.shape[1])
            full[cols] = coef
            best, best_err = full, err
    return best


@functools.cache
def fit(family: str = "all", without: frozenset[str] = frozenset()) -> tuple[float, float, float]:
    """(compute, memory, fixed): the shares of the base's step time that scale with the tensor
    peak, with the memory bandwidth, and with neither (host, launches, input), fitted without
    ``without`` on the relative error of each measured GPU's step time."""
    names = fit_points(without)
    x = np.array([(1 / p, 1 / b, 1.0) for p, b in (_features(g) for g in names)])  # type: ignore[misc]
    s = np.array([_measured(g).score(family) for g in names])  # type: ignore[union-attr]
    c, m, f = _nnls(x * s[:, None], np.ones(len(names)))
    return float(c), float(m), float(f)


def _model(gpu: str, shares: tuple[float, float, float]) -> float:
    peak, bandwidth = _features(gpu)  # type: ignore[misc]
    c, m, f = shares
    return 1.0 / (c / peak + m / bandwidth + f)


def _links(gpu: str) -> bool:
    return hardware.gpu(gpu).nvlink_gb_per_s > 0


def _scaling(gpu: str, without: frozenset[str]) -> tuple[float, str | None]:
    """8-GPU over 1-GPU score of the nearest measured GPU with an 8-GPU table and the same kind
    of link between GPUs (NVLink or NVSwitch, or PCIe only), nearest in log peak, bandwidth and
    link bandwidth; 1 and None where no such GPU was measured (PCIe-only cards)."""
    pool = [
        g
        for g in fit_points(without | {gpu})
        if _ratios(g, 8) and _links(g) == _links(gpu) and g != BASE_GPU
    ]
    if not pool:
        return 1.0, None

    def position(g: str) -> tuple[float, float, float]:
        return (*_log_features(g), math.log(max(hardware.gpu(g).nvlink_gb_per_s, 1.0)))

    mine = position(gpu)

    def distance(g: str) -> tuple[float, str]:
        return math.dist(mine, position(g)), g

    near = min(pool, key=distance)
    m = _measured(near)
    assert m is not None
    return m.score("all", 8) / m.score("all", 1), near


def _log_features(gpu: str) -> tuple[float, float]:
    peak, bandwidth = _features(gpu)  # type: ignore[misc]
    return math.log(peak), math.log(bandwidth)


def anchor(gpu: str, without: frozenset[str] = frozenset()) -> str:
    """The measured GPU nearest ``gpu`` in log peak and log bandwidth (not in ``without``)."""
    mine = _log_features(gpu)
    return min(fit_points(without | {gpu}), key=lambda g: (math.dist(mine, _log_features(g)), g))


def predict(
    gpu: str, family: str = "all", gpus: int = 1, without: frozenset[str] = frozenset()
) -> float:
    """The modelled score of ``gpu``, the model fitted without ``without`` (and ``gpu``): the
    nearest measured GPU's score times the model's ratio between the two, so what the model
    misses about a generation is taken from its nearest measured sibling."""
    shares = fit(family, without | {gpu})
    near = anchor(gpu, without)
    measured = _measured(near)
    assert measured is not None
    score = measured.score(family) * _model(gpu, shares) / _model(near, shares)
    return score * (_scaling(gpu, without)[0] if gpus > 1 else 1.0)


@functools.cache
def leave_one_out(family: str = "all") -> tuple[tuple[str, float, float], ...]:
    """(GPU, measured, predicted with the model fitted without it) for each fitted GPU but the
    base: the model's error on GPUs it was not fitted on."""
    out = []
    for g in fit_points():
        if g == BASE_GPU:
            continue
        measured = _measured(g)
        assert measured is not None
        out.append((g, measured.score(family), predict(g, family)))
    return tuple(out)


NEWEST = ("H200 SXM", "B200 (HGX 1000W)")  # measured only in the 2025 table


@functools.cache
def held_out() -> tuple[tuple[str, int, float, float], ...]:
    """(GPU, GPUs per run, measured, predicted) for the newest GPUs, the model fitted on the
    older tables alone (as before the 2025 table): the check of the modelled path on the GPUs
    it is used for, at one GPU and at eight."""
    out = []
    for g in NEWEST:
        measured = _measured(g)
        assert measured is not None
        for n in MODES:
            out.append((g, n, measured.score("all", n), predict(g, "all", n, frozenset(NEWEST))))
    return tuple(out)


@functools.cache
def model_error(family: str = "all") -> float:
    """Root mean square of the leave-one-out log errors, as a factor (1.2 = +-20 %)."""
    errs = [math.log(p / m) for _, m, p in leave_one_out(family)]
    return math.exp(math.sqrt(sum(e * e for e in errs) / len(errs)))


def _nearest_calibrated(gpu: str) -> str:
    """The GPU of a calibrated architecture (``workload.mfu``) nearest ``gpu`` in log peak and
    log bandwidth; the base where ``gpu`` has no published peak."""
    pool = [g for g in hardware.gpus() if mfu.level(g) is not None]
    if _features(gpu) is None:
        return BASE_GPU
    mine = _log_features(gpu)
    return min(pool, key=lambda g: (math.dist(mine, _log_features(g)), g))


def _llm_scores(gpu: str, lambda_speed: GpuSpeed) -> dict[tuple[str, int], float]:
    """Large-model scores per precision: the calibrated utilisation where the architecture has
    published runs, else the nearest calibrated GPU's carried by the transformer scores."""
    level = mfu.level(gpu)
    if level is None:
        near = _nearest_calibrated(gpu)
        there = _lambda_speed(near)
        by_mode = {
            n: (mfu.level(near) or 1.0)
            * lambda_speed.score("transformer", n)
            / there.score("transformer", n)
            for n in MODES
        }
    else:
        by_mode = dict.fromkeys(MODES, level)
    return {
        (family, n): by_mode[n] * mfu.precision_speedup(gpu, precision)[0]
        for family, precision in mfu.LLM_FAMILIES.items()
        for n in MODES
    }


@functools.cache
def _default(gpu: str) -> GpuSpeed:
    s = _lambda_speed(gpu)
    return replace(s, scores={**s.scores, **_llm_scores(gpu, s)})


@functools.cache
def _lambda_speed(gpu: str) -> GpuSpeed:
    measured = _measured(gpu)
    if measured is not None:
        return measured
    if _features(gpu) is None:
        raise ValueError(f"{gpu}: no measurement and no FP16 tensor peak to model its speed")
    scaling, near = _scaling(gpu, frozenset())
    return GpuSpeed(
        gpu=gpu,
        scores={(f, n): predict(gpu, f, n) for f in FAMILIES for n in MODES},
        basis=f"modelled from {anchor(gpu)}",
        spread=model_error(),
        source="step time split into shares that scale with the FP16 tensor peak, with memory"
        " bandwidth and with neither, fitted on the measured GPUs (leave-one-out error in the"
        " spread); 8 GPUs: "
        + (
            f"the scaling of the {near} ({scaling:.2f}x)"
            if near
            else "no 8-GPU measurement of a PCIe-only card, the 1-GPU score"
        ),
    )


def speed_of(gpu: str, overrides: Mapping[str, float] | None = None, source: str = "") -> GpuSpeed:
    """The speed of ``gpu``: a scenario's override (``overrides``, with its ``source``), else
    measured, else modelled."""
    if overrides and gpu in overrides:
        return GpuSpeed(
            gpu=gpu,
            scores=dict.fromkeys(((f, n) for f in ALL_FAMILIES for n in MODES), overrides[gpu]),
            basis="scenario",
            spread=1.0,
            source=source or "set in the scenario",
        )
    return _default(gpu)
