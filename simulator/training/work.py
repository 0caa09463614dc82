"""A training job described by its model: what a scenario's ``work: {model: ...}`` says, and
the run it resolves to.

The model is a bundled name (``pricing/data/model_shapes.csv``: Llama 2 and 3.1, Mistral, GPT-2,
BERT, ResNet-50, each with its source) or a shape (parameters, layers, hidden size, heads,
sequence length). Tokens are ``tokens``, or a fine-tune's ``dataset_tokens`` x ``epochs``.
``method``: ``pretrain`` and ``full`` train every weight; ``lora`` freezes them and trains
``trainable_share`` of the parameters (0.6 % by default: rank-16 adapters on every linear layer
of Llama 2 7B, 32 x 16 x (4 x (4,096 + 4,096) + 3 x (4,096 + 11,008)) = 40.0M of 6.74B).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag, field_validator, model_validator

from tco.pricing import training_data
from tco.pricing.errors import PricingError
from tco.pricing.training_data import Architecture
from tco.simulator.core.fields import Count, Strict

# The GPU a model's work is stated on inside the simulation: Llama 2's, on which the
# model-FLOPs utilisation is calibrated (workload.mfu); the speed model carries it elsewhere.
REFERENCE_GPU = "A100 SXM 80GB"
LORA_SHARE = 0.006  # the module docstring's rank-16 count
PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "fp4")
SHARDING = {"none": 0, "optimizer": 1, "gradients": 2, "full": 3}  # ZeRO stages

Precision = Literal["fp32", "bf16", "fp16", "fp8", "fp4"]
SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


def _amount(v: object) -> object:
    """``7e9``, ``7B`` or ``2T`` as a number: YAML reads ``7e9`` (no dot) as text, and people
    count parameters and tokens in billions and trillions."""
    if isinstance(v, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBtT]?)\s*", v)
        if m is None:
            raise ValueError(f"{v!r} is not an amount: give a number, e.g. 7e9, 7B or 2T")
        return float(m.group(1)) * SUFFIX.get(m.group(2).lower(), 1.0)
    return v


def short(n: float) -> str:
    """7e9 -> '7B', 1.3e9 -> '1.3B', 125e6 -> '125M'."""
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return f"{n / div:.3g}{suffix}"
    return f"{n:.3g}"


Amount = Annotated[float, BeforeValidator(_amount), Field(gt=0, le=1e16)]


class ModelSize(Strict):
    """A model's shape: ``parameters``; a transformer's ``layers``, ``hidden`` size, attention
    ``heads`` and training ``sequence`` length (their activations and attention compute)."""

    parameters: Amount
    layers: Count
    hidden: Count
    heads: Count
    sequence: Count
    # Its largest layer's parameters (the token embedding: vocabulary x hidden), which ZeRO
    # stage 3 gathers whole; None: estimated (``training.memory.largest_layer``).
    largest_layer: Amount | None = None


@dataclass(frozen=True, kw_only=True)
class Run(Architecture):
    """A training run resolved: its shape (``Architecture``), tokens and how it trains."""

    tokens: float  # trained tokens (samples for a CNN), epochs included
    method: str
    precision: str
    optimizer: str
    sharding: int  # ZeRO stage 0-3
    micro_batch: int
    checkpointing: bool
    flash_attention: bool
    trainable_share: float  # of the parameters; 1 unless LoRA
    largest_layer: float | None = None  # parameters (None: not known, estimated)

    @property
    def trainable(self) -> float:
        return self.parameters * self.trainable_share


def _name_or_shape(value: object) -> str | None:
    if isinstance(value, str):
        return "Name"
    return "Shape" if isinstance(value, dict | ModelSize) else None


class ModelWork(Strict):
    """Work per job stated as a model to train; see the module docstring."""

    model: Annotated[
        Annotated[Annotated[str, Field(min_length=1)], Tag("Name")]
        | Annotated[ModelSize, Tag("Shape")],
        Discriminator(
            _name_or_shape,
            custom_error_type="model",
            custom_error_message="give a bundled model's name (tco fit lists them) or its shape:"
            " {parameters, layers, hidden, heads, sequence}",
        ),
    ]
    tokens: Amount | None = None
    dataset_tokens: Amount | None = None
    epochs: Annotated[float, Field(gt=0, le=1000)] = 1.0
    method: Literal["pretrain", "full", "lora"] = "pretrain"
    precision: Precision = "bf16"
    optimizer: Literal["adam", "sgd"] = "adam"
    sharding: Literal["none", "optimizer", "gradients", "full"] = "full"
    micro_batch: Count = 1
    sequence: Count | None = None  # replaces the model's
    checkpointing: bool = True  # activation checkpointing (full recomputation)
    flash_attention: bool = True  # attention scores not kept for the backward pass
    trainable_share: Annotated[float, Field(gt=0, le=1)] | None = None  # LoRA only
    distribution: Literal["fixed", "exponential", "lognormal"] = "fixed"
    sigma: Annotated[float, Field(gt=0, le=10)] = 1.0

    @field_validator("model")
    @classmethod
    def _known(cls, v: str | ModelSize) -> str | ModelSize:
        if isinstance(v, str):
            try:
                training_data.model_shape(v)
            except PricingError as exc:
                raise ValueError(str(exc)) from None
        return v

    @model_validator(mode="after")
    def _tokens(self) -> ModelWork:
        if (self.tokens is None) == (self.dataset_tokens is None):
            raise ValueError("give tokens, or dataset_tokens (and epochs) for a fine-tune")
        if self.tokens is not None and self.epochs != 1.0:
            raise ValueError("epochs go with dataset_tokens; tokens already counts every epoch")
        if self.trainable_share is not None and self.method != "lora":
            raise ValueError("trainable_share is for method: lora (the others train every weight)")
        if self.method == "pretrain" and self.dataset_tokens is not None:
            raise ValueError("dataset_tokens and epochs are a fine-tune's: pretrain takes tokens")
        self._one_sequence_at_least()
        return self

    def _one_sequence_at_least(self) -> None:
        """Fewer tokens than one training sequence is no run: most likely a unit left out ("2"
        for 2T), which would price a run of seconds as the answer."""
        m = self.model
        shape_seq = training_data.model_shape(m).sequence if isinstance(m, str) else m.sequence
        seq = self.sequence or shape_seq or 1
        tokens = self.tokens if self.tokens is not None else (self.dataset_tokens or 0.0)
        if tokens < seq:
            which = "tokens" if self.tokens is not None else "dataset_tokens"
            raise ValueError(
                f"{which} {tokens:g} is fewer than one sequence of {seq:,} tokens; give the"
                " run's tokens with their unit, e.g. 2T, 7e9 or 15M"
            )

    @property
    def reference_gpu(self) -> str:
        return REFERENCE_GPU

    def run(self) -> Run:
        m = self.model
        if isinstance(m, str):
            s = training_data.model_shape(m)
            name, arch, act = s.name, s.architecture, s.activation_gb_per_sample
            p, layers, hidden, heads, seq = s.parameters, s.layers, s.hidden, s.heads, s.sequence
            largest: float | None = s.largest_layer
        else:
            name, arch, act = f"a {short(m.parameters)}-parameter model", "transformer", None
            p, layers, hidden, heads, seq = m.parameters, m.layers, m.hidden, m.heads, m.sequence
            largest = m.largest_layer
        tokens = self.tokens if self.tokens is not None else self.dataset_tokens * self.epochs  # type: ignore[operator]
        return Run(
            name=name,
            parameters=p,
            layers=layers,
            hidden=hidden,
            heads=heads,
            sequence=self.sequence or seq,
            architecture=arch,
            activation_gb_per_sample=act,
            tokens=tokens,
            method=self.method,
            precision=self.precision,
            optimizer=self.optimizer,
            sharding=SHARDING[self.sharding],
            micro_batch=self.micro_batch,
            checkpointing=self.checkpointing,
            flash_attention=self.flash_attention,
            trainable_share=(self.trainable_share or LORA_SHARE) if self.method == "lora" else 1.0,
            largest_layer=largest,
        )
