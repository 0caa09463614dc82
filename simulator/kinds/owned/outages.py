"""An owned cluster's models and their failures, as the queue (``owned.queue``) gives them to the
scheduler: each model's servers (the servers bought, a refresh's successor, servers of other
models beside them), and its GPUs, servers and racks failing at the option's rates while it
serves, with their counts."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import inf

import numpy as np

from tco.simulator.cluster.failures import Failures, Outages, merged, outages, server_outages
from tco.simulator.kinds.owned.generations import Successor
from tco.simulator.kinds.owned.parts import Delivery
from tco.simulator.workload.speed import Hardware


@dataclass(frozen=True)
class Model:
    """Servers of one model: where jobs run (``hardware``), their deliveries within the horizon
    (time h, servers), the GPUs it will ever have (``gpus``, and how the reports name them), and
    the span it serves: from ``from_h`` (a successor: its cutover) until ``until_h``."""

    hardware: Hardware
    slots: list[tuple[float, int]]
    gpus: int
    what: str
    from_h: float = 0.0
    until_h: float = inf

    @staticmethod
    def all_of(
        hws: list[Hardware],
        deliveries: Sequence[Delivery],
        horizon_h: float,
        s: Successor | None,
    ) -> list[Model]:
        """The option's models: ``hws[g]`` for the servers of generation ``g``; with a refresh,
        the servers bought until the cutover and the successor after it."""
        out = []
        for g, hw in enumerate(hws):
            mine = [d for d in deliveries if d.generation == g]
            what = (
                f"GPUs of {hw.gpu} the cluster will ever have"
                if len(hws) > 1
                else "GPUs this cluster will ever have"
            )
            slots = [(d.delivery_h, d.servers) for d in mine if d.delivery_h < horizon_h]
            gpus = sum(d.servers for d in mine) * hw.gpus_per_unit
            out.append(Model(hw, slots, gpus, what))
        if s is not None:
            out[0] = dataclasses.replace(out[0], until_h=s.cutover_h)
            later = [(s.cutover_h, s.servers)] if s.cutover_h < horizon_h else []
            out.append(Model(s.hardware, later, s.gpus, "GPUs of the successor", s.cutover_h))
        return out


@dataclass(frozen=True)
class Changes:
    """One model's failures as the scheduler takes them: on a pool, changes of units (time h,
    +/- units; a server down: its GPUs leave and come back); on servers, changes of one server's
    GPUs (time h, server, +/- GPUs)."""

    pool: list[tuple[float, int]] = field(default_factory=list)
    servers: list[tuple[float, int, int]] = field(default_factory=list)


@dataclass(frozen=True)
class Breakdowns:
    """Each model's failures (GPUs out for repair, servers down whole, servers numbered within
    the model) while it serves, and their counts."""

    gpus: list[Outages | None]
    nodes: list[list[tuple[float, int, float]]]
    models: list[Model]
    failures: int = 0
    node_failures: int = 0
    racks: int = 0
    down_gpu_h: float = 0.0  # GPUs in repair
    # Servers down whole (on servers the scheduler's count replaces it: there a GPU already in
    # repair when its server goes down is not counted twice).
    servers_down_gpu_h: float = 0.0

    @classmethod
    def of(
        cls,
        models: list[Model],
        f: Failures | None,
        horizon_h: float,
        rng: np.random.Generator,
    ) -> Breakdowns:
        """Drawn model by model (GPUs, then servers and racks), while each serves; a model that
        starts after the horizon draws nothing."""
        none: list[list[tuple[float, int, float]]] = [[] for _ in models]
        if f is None:
            return cls([None] * len(models), none, models)
        gpus: list[Outages | None] = []
        nodes: list[list[tuple[float, int, float]]] = []
        failures = node_failures = racks = 0
        down = nodes_down = 0.0
        for m in models:
            if m.from_h >= horizon_h:
                gpus.append(None)
                nodes.append([])
                continue
            until = min(horizon_h, m.until_h)
            gps = m.hardware.gpus_per_unit
            out = outages([(t, n * gps) for t, n in m.slots], f, until, rng, gps)
            spells, n_nodes, n_racks = server_outages(m.slots, f, until, rng)
            if out.swaps:  # a server is down whole while a part is swapped in
                spells = merged([*spells, *out.swaps])
            gpus.append(out)
            nodes.append(spells)
            failures += out.failures
            node_failures += n_nodes
            racks += n_racks
            down += out.down_gpu_h
            nodes_down += sum(gps * (min(b, until) - a) for a, _, b in spells)
        return cls(gpus, nodes, models, failures, node_failures, racks, down, nodes_down)

    def of_model(self, k: int, on_servers: bool) -> tuple[Changes, list[tuple[float, int, float]]]:
        """Model ``k``'s failures for the scheduler, and its servers down whole (on servers)."""
        out, spells = self.gpus[k], self.nodes[k]
        if out is None:
            return Changes(), []
        gps = self.models[k].hardware.gpus_per_unit
        if on_servers:
            return Changes(servers=out.on_servers(gps)), spells
        whole = [c for a, _, b in spells for c in ((a, -gps), (b, gps))]
        return Changes(pool=out.changes + whole), []
