"""The compute a training run does, in model FLOPs.

A dense transformer's training step does, per token, 6N FLOPs in its weights (2N forward, 4N
backward: gradients of the activations and of the weights) and 12 L s h in attention (L layers,
sequence s, hidden size h): the count of PaLM's model-FLOPs utilisation (Chowdhery et al. 2022,
PaLM, arXiv:2204.02311, Appendix B), which Kaplan et al. 2020 (arXiv:2001.08361, Table 1) also
derive. Recomputed activations are not counted: they are part of the utilisation, as in PaLM.

LoRA (Hu et al. 2021, arXiv:2106.09685) freezes the weights: their backward pass still
propagates the activations' gradients (2N) but computes no weight gradients, so 4N per token, plus
6 per trained adapter parameter; the paper measured 25 % more throughput than full fine-tuning
on GPT-3 175B (Section 4.2), where this count gives 33 % fewer FLOPs.

Left out: mixture-of-experts (only the active parameters compute), pipeline bubbles and
long-context attention variants; the time they cost is the utilisation's.
"""

from __future__ import annotations

from tco.simulator.training.work import Run


def flops_per_token(run: Run) -> float:
    """Model FLOPs per trained token (or sample)."""
    attention = 0.0
    if run.architecture == "transformer" and run.hidden and run.sequence:
        attention = 12.0 * run.layers * run.sequence * run.hidden
    if run.method == "lora":
        return 4.0 * run.parameters + 6.0 * run.trainable + attention
    return 6.0 * run.parameters + attention


def total_flops(run: Run) -> float:
    return flops_per_token(run) * run.tokens
