"""Memory a training job needs on each GPU, and the fewest GPUs that hold it.

*Model states* (Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054, Section 3.1), counted as
DeepSpeed's own estimators count them (``estimate_zero2_model_states_mem_needs`` and
``estimate_zero3_model_states_mem_needs``, deepspeed/runtime/zero/stage_1_and_2.py and
stage3.py, without offload: 4 P + 16 P / d bytes at stages 1 and 2, 4 x the largest layer's
parameters + 18 P / d at stage 3, for P parameters over d GPUs): per trained parameter, its
weight and gradient at the training precision (2 bytes each in mixed precision, FP8 and FP4
training keep 16-bit weights too; 4 in FP32) and the optimizer's states: in mixed precision an
FP32 master weight and an FP32 copy of the gradient beside Adam's momentum and variance (16
bytes; SGD with momentum's 12), in FP32 Adam's two moments (8; SGD's 4). A frozen weight (LoRA)
holds its weight alone. Sharded across the data-parallel group of d GPUs as ZeRO stages do:
stage 1 (``optimizer``) and stage 2 (``gradients``) split the optimizer states (the full 16-bit
gradients are held while they are reduced, as DeepSpeed's estimator counts them for both), stage
3 (``full``, PyTorch FSDP's full shard) the weights and gradients too, and gathers its largest
layer whole (its weight and gradient, 4 bytes a parameter at 16 bits).

*Activations* (Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer
Models, arXiv:2205.05198, Section 4): a transformer layer keeps s b h (34 + 5 a s / h) bytes at
16-bit (sequence s, micro-batch b, hidden h, heads a); without the attention scores (FlashAttention
recomputes them) 34 s b h. With full activation checkpointing each layer keeps its input alone,
2 s b h, and one layer's activations are rebuilt at a time. FP32 doubles them. A CNN keeps its
``activation_gb_per_sample`` (FP32) per sample. Tensor, sequence and pipeline parallelism, which
split activations too, are left out; so are the output logits (s x vocabulary) and a data
loader's pinned memory.

*Reserve*: the CUDA context and the allocator's fragmentation (``core.defaults``), an assumption.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tco.simulator.core import defaults
from tco.simulator.training.work import Run

GB = 1e9
MAX_GPUS = 100_000  # the largest job the fit looks for (core.fields.GpuCount's limit)


def _bytes(run: Run) -> tuple[float, float, float]:
    """(weight, gradient, optimizer) bytes per trained parameter held in training: the
    optimizer's states as a checkpoint saves them (``_saved``), and in mixed precision the FP32
    copy of the gradient it steps on (4 bytes; DeepSpeed counts it)."""
    copy = 0.0 if run.precision == "fp32" else 4.0
    w = 4.0 if run.precision == "fp32" else 2.0
    return w, w, _saved(run) + copy


def _saved(run: Run) -> float:
    """The optimizer's state bytes per trained parameter: mixed-precision Adam's FP32 master
    weight, momentum and variance (12), SGD with momentum's master weight and momentum (8); in
    FP32, whose weight is the master, Adam's two moments (8) and SGD's momentum (4)."""
    fp32 = run.precision == "fp32"
    return {"adam": 8.0 if fp32 else 12.0, "sgd": 4.0 if fp32 else 8.0}[run.optimizer]


def largest_layer(run: Run) -> float:
    """Parameters of the run's largest layer, which ZeRO stage 3 gathers whole: as its model's
    configuration gives it (``model_shapes.csv``, a shape's ``largest_layer``), else estimated:
    a transformer's token embeddings (its parameters less its blocks' 12 L h^2: exact for GPT's
    shape, more than the embedding where the MLP is wider or attention grouped, so never fewer
    GPUs than DeepSpeed counts) or one 4 h x h MLP weight, whichever is larger; another model's
    mean layer."""
    if run.largest_layer is not None:
        return run.largest_layer
    if run.architecture != "transformer" or not run.hidden:
        return run.parameters / max(run.layers, 1)
    h = float(run.hidden)
    return max(run.parameters - 12.0 * run.layers * h * h, 4.0 * h * h)


@dataclass(frozen=True)
class Memory:
    """GB per GPU: model states (after sharding), activations, reserve."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    reserve: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.reserve

    def words(self) -> str:
        return (
            f"{self.total:.1f} GB a GPU (weights {self.weights:.1f}, gradients"
            f" {self.gradients:.1f}, optimizer {self.optimizer:.1f}, activations"
            f" {self.activations:.1f}, reserve {self.reserve:.1f})"
        )


def activations_gb(run: Run) -> float:
    """Activations one GPU keeps for its micro-batch."""
    scale = 2.0 if run.precision == "fp32" else 1.0  # the formula counts 16-bit values
    if run.architecture != "transformer":  # a CNN's figure is FP32's
        return (run.activation_gb_per_sample or 0.0) * run.micro_batch * scale / 2.0
    s, b, h = run.sequence or 0, run.micro_batch, run.hidden or 0
    a = run.heads or 1
    layer = s * b * h * (34.0 + (0.0 if run.flash_attention else 5.0 * a * s / h))
    kept = run.layers * 2.0 * s * b * h + layer if run.checkpointing else run.layers * layer
    return kept * scale / GB


def states_gb(run: Run, gpus: int) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) GB per GPU, sharded over ``gpus`` as the run says (at
    stage 3 with the largest layer's weight and gradient gathered whole)."""
    w, g, o = _bytes(run)
    trained, frozen = run.trainable, run.parameters - run.trainable
    d = max(gpus, 1)
    full = run.sharding >= 3
    weights = (trained * w + frozen * w) / (d if full else 1)
    grads = trained * g / (d if full else 1)
    optimizer = trained * o / (d if run.sharding >= 1 else 1)
    if full:  # one layer gathered whole: its weight, and its gradient where it is trained
        weights += largest_layer(run) * w
        grads += largest_layer(run) * g * run.trainable_share
    return weights / GB, grads / GB, optimizer / GB


def _reserve(used_gb: float) -> float:
    return defaults.TRAINING_CONTEXT_GB + defaults.TRAINING_FRAGMENTATION * used_gb


def per_gpu(run: Run, gpus: int) -> Memory:
    """What each of ``gpus`` data-parallel GPUs holds."""
    weights, grads, opt = states_gb(run, gpus)
    act = activations_gb(run)
    return Memory(weights, grads, opt, act, _reserve(weights + grads + opt + act))


def fewest_gpus(run: Run, memory_gb: float) -> int | None:
    """The fewest data-parallel GPUs of ``memory_gb`` each that hold the run; None when no count
    does (unsharded states, or what no sharding splits too large alone)."""
    if per_gpu(run, 1).total <= memory_gb:
        return 1
    if run.sharding == 0:
        return None
    # What sharding splits over d GPUs (the states' part that falls as 1/d), and what it does
    # not: from one GPU's figure and a very large group's, which keeps only the rest.
    one = sum(states_gb(run, 1))
    rest = sum(states_gb(run, MAX_GPUS)) - one / MAX_GPUS
    sharded = (one - rest) * MAX_GPUS / (MAX_GPUS - 1)
    fixed = one - sharded + activations_gb(run)
    room = (memory_gb - defaults.TRAINING_CONTEXT_GB) / (1 + defaults.TRAINING_FRAGMENTATION)
    if room <= fixed:
        return None
    d = max(2, math.ceil(sharded / (room - fixed) - 1e-9))
    while d <= MAX_GPUS and per_gpu(run, d).total > memory_gb:  # rounding at the edge
        d += 1
    return d if d <= MAX_GPUS else None


def checkpoint_gb(run: Run) -> float:
    """GB one checkpoint of the run holds: one copy of its model state, however many GPUs share
    it (a data-parallel job writes its replica once; a sharded one each shard once): each
    trained parameter's weight and optimizer states (gradients are not saved); a frozen weight
    is the base model's, read again on restart, not written."""
    w, _, _ = _bytes(run)
    return run.trainable * (w + _saved(run)) / GB
