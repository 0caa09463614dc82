"""What a job class or one-off run stated as a model comes to in the simulation's units: its
work in reference GPU-hours, its memory per GPU and the utilisation behind them, each with where
it comes from (for ``tco validate`` and the report's inputs table)."""

from __future__ import annotations

from dataclasses import dataclass

from tco.simulator.training import compute, memory
from tco.simulator.training.work import REFERENCE_GPU, ModelWork, short
from tco.simulator.workload import mfu
from tco.simulator.workload.spec import Workload


@dataclass(frozen=True)
class Derived:
    key: str  # the scenario path of the class or run
    name: str
    gpus: int  # the fewest GPUs a job of it runs on
    reference_gpu_hours: float  # a job's mean work on the reference GPU
    memory_gb: float  # per GPU at ``gpus``
    mfu: float  # on the reference GPU, for its size
    flops: float
    words: str  # the run in a line

    def rows(self) -> list[tuple[str, str, str]]:
        """(setting, value, source) for the report's inputs table."""
        f = mfu.fit()
        fitted = (
            f"derived from the model: utilisation {self.mfu:.3f} fitted on"
            f" {len(mfu.observations())} published runs (workload.mfu; one standard deviation"
            f" x{f.spread:.2f})"
        )
        return [
            (
                "work from the model: FLOPs a job",
                f"{self.flops:.4g}",
                "6N + 12 L s h a token (PaLM, Appendix B; LoRA 4N + 6 x adapters)",
            ),
            (
                f"work from the model: {REFERENCE_GPU} GPU-hours a job",
                f"{self.reference_gpu_hours:,.1f}",
                fitted,
            ),
            (
                f"memory from the model: GB a GPU on {self.gpus}",
                f"{self.memory_gb:.1f}",
                "ZeRO model states sharded by stage, activations (Korthikanti et al. 2022),"
                " reserve (training.memory)",
            ),
        ]


def derived(workload: Workload) -> list[Derived]:
    out = []
    for key, c in workload.stated:
        if not isinstance(c.work, ModelWork):
            continue
        run = c.work.run()
        k = c.gpus if isinstance(c.gpus, int) else min(c.gpus.choices)
        hours = mfu.reference_hours(run)
        need = memory.per_gpu(run, k).total
        out.append(
            Derived(
                key=key,
                name=c.name,
                gpus=k,
                reference_gpu_hours=hours,
                memory_gb=need,
                mfu=mfu.fit().mfu(mfu.BASE_ARCHITECTURE, run.parameters),
                flops=compute.total_flops(run),
                words=f"{c.name}: {run.name}, {run.method}, {short(run.tokens)} tokens,"
                f" {run.precision}: {hours:,.1f} {REFERENCE_GPU} GPU-hours a job (mean), on {k}"
                f" GPU{'s' if k > 1 else ''} {need:.1f} GB a GPU",
            )
        )
    return out
