"""A job class stated as a model whose jobs fit no option's GPU: refused before the play, with
the numbers, since every option would leave its work undone (``training.memory``)."""

from __future__ import annotations

import numpy as np

from tco.pricing import hardware
from tco.simulator.core.errors import ScenarioError
from tco.simulator.kinds import registry
from tco.simulator.kinds.plan import Plan
from tco.simulator.scenario.model import Scenario
from tco.simulator.training import memory
from tco.simulator.training.work import ModelWork
from tco.simulator.workload.jobs import Jobs


def check(scenario: Scenario, plans: tuple[Plan, ...], jobs: Jobs, file: str) -> None:
    """Raise a ScenarioError for the first model class or run none of whose jobs fits any
    option."""
    gpus = {g for p in plans for g in registry.of(p.option).gpus_of(p)}
    roomiest = max(
        [p.hardware.gpu_memory_gb for p in plans] + [hardware.gpu(g).memory_gb for g in gpus]
    )
    for where, cls in scenario.workload.stated:
        if not isinstance(cls.work, ModelWork):
            continue
        mine = jobs.job_class == jobs.class_names.index(cls.name)
        if not mine.any() or float(np.min(jobs.memory_gb[mine])) <= roomiest:
            continue
        run = cls.work.run()
        k = int(jobs.gpus[mine].min())
        fewest = memory.fewest_gpus(run, roomiest)
        more = (
            f"it fits on {fewest:,} GPUs of {roomiest:g} GB (sharded: {cls.work.sharding})"
            if fewest
            else "no count of them holds it: shard it (sharding: full) or cut micro_batch"
        )
        raise ScenarioError(
            file,
            f"{where}.gpus",
            f"{cls.name}: {run.name} on {k} GPU{'s' if k > 1 else ''} needs"
            f" {memory.per_gpu(run, k).words()}; the options' GPUs have at most {roomiest:g} GB;"
            f" {more}",
        )
