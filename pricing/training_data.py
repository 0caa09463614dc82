"""Published facts about training runs, as typed rows (``pricing/data``).

- ``training_runs.csv``: runs whose GPU-hours, model shape and tokens were published (LLaMA,
  Llama 2 and 3.1, BLOOM, Pythia, Granite 3.0), each with its source: what the model-FLOPs
  utilisation is calibrated on.
- ``model_shapes.csv``: well-known open models' published shapes (parameters, layers, hidden size,
  heads, sequence length; a CNN's activations a sample; the largest layer's parameters, from
  the model's configuration), what ``tco fit llama-2-7b`` reads.
- ``precision_speed.csv``: a precision's end-to-end speed over BF16 per GPU architecture, measured
  where published, else derived or assumed as the row says.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from tco.pricing.errors import PricingError, closest
from tco.pricing.hardware import data_rows


def _opt(text: str) -> float | None:
    return float(text) if text.strip() else None


@dataclass(frozen=True)
class PublishedRun:
    """One published training run: its model, tokens, GPUs and GPU-hours."""

    run: str
    gpu: str
    gpus: int
    parameters: float
    tokens: float
    layers: int
    hidden: int
    sequence: int
    precision: str
    gpu_hours: float
    link: str
    source: str
    note: str


@dataclass(frozen=True, kw_only=True)
class Architecture:
    """What a model is, as a published shape and a training run both say it (the run's
    ``training.work.Run`` adds how it trains); ``activation_gb_per_sample`` only for a CNN."""

    name: str
    parameters: float
    layers: int
    hidden: int | None
    heads: int | None
    sequence: int | None
    architecture: str  # transformer or cnn
    activation_gb_per_sample: float | None  # a CNN's, in FP32


@dataclass(frozen=True, kw_only=True)
class ModelShape(Architecture):
    """A model's published shape, with its source."""

    largest_layer: float  # parameters of its largest layer (ZeRO-3 gathers it whole)
    source: str


@dataclass(frozen=True)
class PrecisionSpeed:
    architecture: str
    precision: str
    speedup: float
    basis: str  # measured, datasheet, derived, assumed
    source: str


@functools.cache
def published_runs() -> tuple[PublishedRun, ...]:
    return tuple(
        PublishedRun(
            run=r["run"],
            gpu=r["gpu"],
            gpus=int(r["gpus"]),
            parameters=float(r["parameters"]),
            tokens=float(r["tokens"]),
            layers=int(r["layers"]),
            hidden=int(r["hidden"]),
            sequence=int(r["sequence"]),
            precision=r["precision"],
            gpu_hours=float(r["gpu_hours"]),
            link=r["link"],
            source=r["source"],
            note=r["note"],
        )
        for r in data_rows("training_runs.csv")
    )


@functools.cache
def model_shapes() -> dict[str, ModelShape]:
    out = {}
    for r in data_rows("model_shapes.csv"):
        opt = {k: _opt(r[k]) for k in ("hidden", "heads", "sequence")}
        out[r["name"]] = ModelShape(
            name=r["name"],
            parameters=float(r["parameters"]),
            layers=int(r["layers"]),
            hidden=None if opt["hidden"] is None else int(opt["hidden"]),
            heads=None if opt["heads"] is None else int(opt["heads"]),
            sequence=None if opt["sequence"] is None else int(opt["sequence"]),
            architecture=r["architecture"],
            activation_gb_per_sample=_opt(r["activation_gb_per_sample"]),
            largest_layer=float(r["largest_layer"]),
            source=r["source"],
        )
    return out


def model_shape(name: str) -> ModelShape:
    """The bundled model called ``name``, or a PricingError listing the valid names."""
    table = model_shapes()
    if name not in table:
        raise PricingError(
            f"no bundled model is called {name!r}{closest(name, table)}; valid: {', '.join(table)}"
        )
    return table[name]


@functools.cache
def precision_speeds() -> dict[tuple[str, str], PrecisionSpeed]:
    return {
        (r["architecture"], r["precision"]): PrecisionSpeed(
            r["architecture"],
            r["precision"],
            float(r["speedup_over_bf16"]),
            r["basis"],
            r["source"],
        )
        for r in data_rows("precision_speed.csv")
    }
