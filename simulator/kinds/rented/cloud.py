"""What every rented-instance kind shares: the instances (one EC2 type, a fleet of types, or a
custom machine), their prices, billing by increments with a minimum, and elastic play with an
optional quota.

Each job runs on the instance type that finishes it for the least money (``rented.fleet``).
Cloud options without a quota start every job on arrival (plus any provisioning delay) and need
no events; with a quota, jobs queue for instances (``cluster.scheduler``). Each job rents whole
instances, unless ``shared_instances`` packs small jobs onto shared ones (``rented.packing``).
What a scenario says is ``rented.model``; what is billed, ``rented.billing``.
:class:`CloudKind` is not registered itself: on-demand, Savings Plan, spot and bare metal
subclass it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

import numpy as np

from tco.pricing import hardware, providers
from tco.pricing.errors import PricingError
from tco.pricing.records import BASIS_WORDS, Price
from tco.simulator.cluster.scheduler import QueueInput, simulate
from tco.simulator.core import defaults
from tco.simulator.core.calendar import per_month
from tco.simulator.core.errors import ScenarioError
from tco.simulator.core.fields import OptionModel
from tco.simulator.core.quote import Quote, price_quote
from tco.simulator.costs.ledger import Ledger
from tco.simulator.kinds.capabilities import Can
from tco.simulator.kinds.plan import speed_quote
from tco.simulator.kinds.registry import Context, Drawn, Kind, KnownInput
from tco.simulator.kinds.rented.billing import usage
from tco.simulator.kinds.rented.fleet import Placement, Shape, link_quotes, place
from tco.simulator.kinds.rented.model import CloudBase, RentByGpu
from tco.simulator.kinds.rented.packing import pack
from tco.simulator.kinds.rented.plan import CloudPlan
from tco.simulator.kinds.rented.spot_odds import on_demand_move
from tco.simulator.kinds.runs import JobPlaces, JobRuns, Rentals, remaining_h
from tco.simulator.workload.jobs import Jobs
from tco.simulator.workload.speed import Hardware

C = TypeVar("C", bound=CloudBase)
T = TypeVar("T")
CP = TypeVar("CP", bound=CloudPlan)


def guard(ctx: Context, field: str, look_up: Callable[..., T], *args: str) -> T:
    """A catalog or price-book look-up whose failure names the option's field."""
    try:
        return look_up(*args)
    except PricingError as exc:
        raise ScenarioError(ctx.file, f"{ctx.where}.{field}", str(exc)) from None


def _too_old(ctx: Context, itype: str, since: str | None) -> str:
    """Why the price of ``itype`` is older than ``since`` allows ('' when it is not)."""
    if since is None:
        return ""
    as_of, known = guard(ctx, "gpus", ctx.book.dated, itype, ctx.region)
    if not known:
        return (
            f"its price is dated only by {as_of} (copied then; offers_since asks for known dates)"
        )
    return f"priced as of {as_of}, before offers_since {since}" if as_of < since else ""


# What no rented kind does, and why (``kinds.capabilities``).
RENTED_CANNOT = {
    Can.SIZE: "elastic: no size to grow, every job starts on arrival (a quota queues them)",
    Can.SELL: "rents: nothing to sell back",
    Can.EXISTING: "rents: owns no servers (existing: goes on an owned option)",
    Can.COMPOSE: "a hybrid composes an owned option with a rental",
    Can.WHAT_IFS: "its inputs are prices, which the sensitivity moves",
    Can.UNIT_PRICES: "billed per instance-hour: no unit price beside the instance's",
    Can.TABLES: "its monthly rows say all it pays: no schedule of its own",
}


class CloudKind(Kind[C, CP]):
    """Rented instances. Subclasses set the billing defaults and whether the machine is bare."""

    can_do: ClassVar[frozenset[Can]] = frozenset({Can.FINISH, Can.PLACES})
    cannot: ClassVar[Mapping[Can, str]] = {
        **RENTED_CANNOT,
        Can.SEARCH: "no knob: its shapes and prices are as listed",
        Can.FIT: "no commitment to fit",
        Can.PROPOSE: "the catalog proposes rentals on demand",
    }

    bare_metal: ClassVar[bool] = False
    play_weight: ClassVar[float] = 0.1  # jobs placed as arrays, no queue: 1-2 us a job
    data_site: ClassVar[str | None] = "cloud"
    billing_increment_s: ClassVar[float] = defaults.CLOUD_BILLING_INCREMENT_S
    billing_minimum_s: ClassVar[float] = defaults.CLOUD_BILLING_MINIMUM_S
    price_item: ClassVar[str] = "instance price (on-demand)"
    finishes_at: ClassVar[str] = "cloud_compute"  # the prices its unfinished work is finished at

    def to_finish(self, plan: CP, runs: JobRuns, horizon_h: float) -> dict[str, float] | None:
        """Each job's hours after the horizon (a running job's rest, a queued job's whole run)
        on the instances it holds, at its shape's price (the option's own: spot at spot, a
        plan's types at on-demand, before any commitment, whose term past the horizon is the
        next window's)."""
        rem = remaining_h(runs, horizon_h)
        shape = np.zeros(len(rem), np.int64) if runs.shape is None else runs.shape.astype(np.int64)
        price = np.array([s.price.usd_per_hour for s in plan.shapes])
        busy = rem > 0
        return {self.finishes_at: float((rem[busy] * runs.units[busy] * price[shape[busy]]).sum())}

    def job_places(self, plan: CP, runs: JobRuns, ledger: Ledger) -> JobPlaces | None:
        """Each job on its instance type, at that type's price per instance-hour for the hours
        it held them (start to end: interruptions and restarts included)."""
        n = len(runs.run_h)
        shape = np.zeros(n, np.int64) if runs.shape is None else runs.shape.astype(np.int64)
        ran = ~np.isnan(runs.start_h) & (runs.reason == "")
        where = np.where(ran, shape, -1)
        price = np.array([s.price.usd_per_hour for s in plan.shapes])
        held = np.where(ran, np.nan_to_num(runs.end_h - runs.start_h), 0.0)
        usd = held * runs.units * price[np.where(ran, shape, 0)]
        bases = tuple(s.price.basis for s in plan.shapes)
        return JobPlaces(tuple(s.name for s in plan.shapes), where, usd, bases)

    def gpus_of(self, plan: CP) -> set[str]:
        return {s.hardware.gpu for s in plan.shapes}

    def providers_of(self, plan: CP) -> set[str]:
        """Where its instance types are rented (a machine the scenario describes: at home)."""
        return {providers.split(s.name)[0] for s in plan.shapes if s.name != "custom"}

    def uncertainties(self, plan: CP, where: str) -> list[KnownInput]:
        """On-demand prices move (what the option pays by the hour beyond any commitment)."""
        return [on_demand_move()]

    def servers_of(self, plan: CP) -> tuple[int, int] | None:
        return None  # rents: buys no server

    def keeps_existing(self, option: C, options: Mapping[str, OptionModel]) -> bool:
        return False  # the site's servers are sold at the start: the rental replaces them

    def resale_basis(self, option: C, options: tuple[OptionModel, ...]) -> str | None:
        return None  # rents: sells nothing back

    def caveats(
        self,
        option: C,
        options: tuple[OptionModel, ...],
        quotes: tuple[Quote, ...],
        drawn: Drawn = (),
    ) -> list[str]:
        """Nothing beyond its quotes: list prices of a dated snapshot or a live look-up, each
        with its source (a kind whose prices are of one moment, as spot's, says so)."""
        return []

    def remarks(self, name: str, metrics: Any) -> list[str]:
        """A job smaller than an instance pays for the whole instance: said when it dominates."""
        if metrics.gpu_utilisation < 0.5:
            return [
                f"{name}: jobs use {metrics.gpu_utilisation:.0%} of the GPU-hours paid for (each"
                " job rents whole instances); a fleet of instance types sized to the jobs"
                " (instance_types) or shared instances (shared_instances) would cost less."
            ]
        return []

    def at(self, o: C, ctx: Context) -> Context:
        """The context with the option's own region, when it names one."""
        return ctx if o.region is None else dataclasses.replace(ctx, region=o.region)

    def cannot_rent(self, o: C, ctx: Context, itype: str) -> str:
        """Why this kind cannot rent ``itype`` here ('' when it can): by default, no price the
        kind may use (none published, or a doubtful one). Kinds needing more say so."""
        try:
            self.instance_price(o, ctx, itype, "gpus")
        except ScenarioError as exc:
            return f"no usable {self.price_item}" + (
                " (doubtful)" if "doubtful" in exc.message else ""
            )
        return ""

    def gpu_shapes(self, o: C, ctx: Context) -> list[tuple[str, str]]:
        """Every shape of the option's GPU at its providers (``gpus:``), each with why this
        kind leaves it out ('' when it does not), in the providers' order."""
        g = o.gpus
        assert g is not None
        models = set(hardware.gpu_family(g.model))
        out = []
        for p in g.wanted():
            for itype in ctx.book.gpu_types(p, ctx.region, models.__contains__):
                count = guard(ctx, "gpus", ctx.book.spec, itype, ctx.region).gpu_count
                if g.gpus_per_instance is not None and count not in g.gpus_per_instance:
                    continue
                out.append((itype, self._left_out(o, g, ctx, itype)))
        return out

    def _left_out(self, o: C, g: RentByGpu, ctx: Context, itype: str) -> str:
        """Why a shape of option ``o``'s rental by GPU ``g`` is left out ('' when it is not):
        priced outside the regions allowed, before ``offers_since``, unusable by this kind, or
        on a price basis the option does not keep to."""
        if g.regions is not None and ctx.book.region_of(itype, ctx.region) not in g.regions:
            return "priced outside the regions allowed"
        if why := _too_old(ctx, itype, g.offers_since):
            return why
        if (why := self.cannot_rent(o, ctx, itype)) or g.price_basis is None:
            return why
        basis = self.instance_price(o, ctx, itype, "gpus").basis
        return "" if basis in g.price_basis else f"priced by {BASIS_WORDS[basis]}"

    def type_names(
        self, o: C, ctx: Context, picked: list[tuple[str, str]] | None = None
    ) -> list[str]:
        """The instance types the option may rent, as tco names them (none for a custom
        instance): those it lists, or every shape of its GPU this kind can rent (``gpus:``;
        ``picked``: :meth:`gpu_shapes` already found; none at all is an error naming why each
        was left out)."""
        if o.gpus is None:
            return o.types()
        shapes = self.gpu_shapes(o, ctx) if picked is None else picked
        found = [t for t, why in shapes if not why]
        if not found:
            g = o.gpus
            why = "; ".join(f"{t}: {w}" for t, w in shapes[:3]) or (
                f"none of them lists a {g.model} in the price data"
            )
            if g.regions is not None and shapes:  # say which regions would do
                priced = sorted({ctx.book.region_of(t, ctx.region) for t, _ in shapes})
                why += f"; regions they are priced in: {', '.join(priced)}"
            raise ScenarioError(
                ctx.file,
                f"{ctx.where}.gpus",
                f"no {g.model} instance at {', '.join(g.wanted())} can be rented as"
                f" {self.label} ({why}); name other providers or another GPU"
                " (tco catalog gpus lists every one)",
            )
        return found

    def check(self, option: C, ctx: Context) -> None:
        ctx = self.at(option, ctx)
        if option.instance is not None:
            i = option.instance
            guard(ctx, "instance.gpu", hardware.gpu, i.gpu)
            guard(ctx, "instance.intra_node", hardware.interconnect, i.intra_node)
            guard(ctx, "instance.inter_node", hardware.interconnect, i.inter_node)
            return
        fleet = option.instance_types is not None
        for n, itype in enumerate(self.type_names(option, ctx)):
            field = "gpus" if option.gpus else f"instance_types[{n}]" if fleet else "instance_type"
            spec = guard(ctx, field, ctx.book.spec, itype, ctx.region)
            if spec.gpu_model is None:
                raise ScenarioError(
                    ctx.file,
                    f"{ctx.where}.{field}",
                    f"{itype} has {spec.aws_gpu_name} accelerators, which have no speed data in"
                    " the GPU catalog; choose a GPU instance or describe the machine with"
                    " instance:",
                )

    def instance_price(self, o: C, ctx: Context, itype: str, field: str) -> Price:
        """The price per instance-hour of an EC2 type for this kind (on-demand by default)."""
        try:
            return ctx.book.on_demand(itype, ctx.region)
        except PricingError as exc:
            raise ScenarioError(ctx.file, f"{ctx.where}.{field}", str(exc)) from None

    def shapes(
        self, o: C, ctx: Context, picked: list[tuple[str, str]] | None = None
    ) -> tuple[Shape, ...]:
        """Where jobs can run, each with its price and a label, from the book or the scenario
        (``picked``: a rental by GPU's shapes, when :meth:`gpu_shapes` already found them)."""
        virt = o.virtualization_overhead
        if o.instance is not None:
            i = o.instance
            g = hardware.gpu(i.gpu)
            price = Price(i.usd_per_hour, "scenario", i.price_as_of, i.price_source, "scenario")
            if o.usd_per_hour is not None:
                assert o.price_source is not None
                price = Price(o.usd_per_hour, "scenario", "undated", o.price_source, "scenario")
            if virt is None:
                virt = 0.0 if self.bare_metal else defaults.VIRTUALIZATION_OVERHEAD
            hw = Hardware(
                g.name,
                g.memory_gb,
                i.gpus,
                i.intra_node,
                i.inter_node,
                virtualization_overhead=virt,
                speed=ctx.speed(g.name),
            )
            label = f"custom instance: {i.gpus} x {g.name} (price source in the prices table)"
            return (Shape("custom", hw, price, label, o.provider, ctx.region),)
        out = []
        for n, itype in enumerate(self.type_names(o, ctx, picked)):
            field = (
                "gpus"
                if o.gpus is not None
                else f"instance_types[{n}]"
                if o.instance_types is not None
                else "usd_per_hour"
            )
            spec = ctx.book.spec(itype, ctx.region)
            assert spec.gpu_model is not None
            if o.usd_per_hour is not None:
                assert o.price_source is not None
                price = Price(o.usd_per_hour, "scenario", "undated", o.price_source, "scenario")
            else:
                price = self.instance_price(o, ctx, itype, field)
            v = virt
            if v is None:
                v = 0.0 if self.bare_metal or spec.bare_metal else defaults.VIRTUALIZATION_OVERHEAD
            hw = Hardware.of_instance(spec, v, ctx.speed(spec.gpu_model))
            where = ctx.book.region_of(itype, ctx.region)
            label = f"{itype} ({spec.gpu_count} x {spec.gpu_model}) in {where}"
            out.append(Shape(itype, hw, price, label, providers.split(itype)[0], where))
        return tuple(out)

    def cloud_plan(self, o: C, ctx: Context) -> CloudPlan:
        """The plan fields every cloud kind shares."""
        ctx = self.at(o, ctx)
        # A rental by GPU: its shapes found once, for the shapes and for what the label says.
        picked = self.gpu_shapes(o, ctx) if o.gpus is not None else None
        shapes = self.shapes(o, ctx, picked)
        quotes = []
        for sh in shapes:
            item = self.price_item if len(shapes) == 1 else f"{sh.name} {self.price_item}"
            quotes.append(price_quote(item, sh.price))
        for gpu in dict.fromkeys(sh.hardware.gpu for sh in shapes):
            quotes.append(speed_quote(ctx.speed(gpu)))
        quotes += link_quotes(shapes, ctx)
        label = shapes[0].label
        if len(shapes) > 1:
            label = f"fleet of {len(shapes)} instance types: " + "; ".join(s.label for s in shapes)
        if o.gpus is not None and picked is not None:
            out: dict[str, list[str]] = {}
            for t, why in picked:
                if why:
                    out.setdefault(why, []).append(t)
            left = "".join(f"; left out, {why}: {', '.join(ts)}" for why, ts in out.items())
            label = f"every {o.gpus.model} shape at {', '.join(o.gpus.wanted())}: {label}{left}"
        if o.shared_instances:
            label += f", small jobs sharing instances (released after {o.idle_release_minutes:g}"
            label += " idle minutes)"
        minimum = o.billing_minimum_s
        return CloudPlan(
            option=o,
            hardware=shapes[0].hardware,
            quotes=tuple(quotes),
            description=label,
            shapes=shapes,
            price=shapes[0].price,
            quota_instances=o.quota_instances,
            delay_h=o.provisioning_delay_minutes / 60.0,
            billing_increment_s=o.billing_increment_s or self.billing_increment_s,
            billing_minimum_s=self.billing_minimum_s if minimum is None else minimum,
        )

    def play(self, jobs: Jobs, plan: CP, horizon_h: float, rng: np.random.Generator) -> JobRuns:
        quota = plan.quota_instances
        per = plan.hardware.gpus_per_unit
        limit = quota * per if quota is not None else np.iinfo(np.int64).max
        shared = plan.option.shared_instances
        at = place(jobs, plan.shapes, int(limit), "GPUs of the instance quota", shared)
        start = np.full(len(jobs), np.nan)
        idx = np.nonzero(at.reason == "")[0]
        rentals = None
        if shared:
            start, rentals = self.shared_starts(jobs, plan, at)
        elif quota is None:
            start[idx] = jobs.arrival_h[idx] + plan.delay_h
        elif len(idx):
            acquired = simulate(
                QueueInput(
                    arrival_h=jobs.arrival_h[idx],
                    units=at.units[idx],
                    hold_h=at.run_h[idx] + plan.delay_h,
                    capacity=[(0.0, quota)],
                    horizon_h=horizon_h,
                )
            )
            start[idx] = acquired + plan.delay_h
        start[start >= horizon_h] = np.nan
        return JobRuns(
            run_h=at.run_h,
            gpus=jobs.gpus,
            units=at.units,
            start_h=start,
            end_h=start + at.run_h,
            reason=at.reason,
            reason_text=at.reason_text,
            shape=at.shape if len(plan.shapes) > 1 else None,
            rentals=rentals,
        )

    def shared_starts(
        self, jobs: Jobs, plan: CloudPlan, at: Placement
    ) -> tuple[np.ndarray, Rentals]:
        """Starts when small jobs pack onto shared instances of their shape (whole instances
        for the others), and the instance sessions billed."""
        start = np.full(len(jobs), np.nan)
        ok = at.reason == ""
        per = np.array([s.hardware.gpus_per_unit for s in plan.shapes])[at.shape]
        alone = ok & (jobs.gpus >= per)
        start[alone] = jobs.arrival_h[alone] + plan.delay_h
        parts = [(at.shape[alone], start[alone], start[alone] + at.run_h[alone], at.units[alone])]
        idle_h = plan.option.idle_release_minutes / 60.0
        for s, sh in enumerate(plan.shapes):
            small = np.nonzero(ok & ~alone & (at.shape == s))[0]
            if len(small):
                p = pack(
                    jobs.arrival_h[small],
                    jobs.gpus[small],
                    at.run_h[small],
                    sh.hardware.gpus_per_unit,
                    plan.delay_h,
                    idle_h,
                )
                start[small] = p.start_h
                n = len(p.session_start_h)
                parts.append((np.full(n, s), p.session_start_h, p.session_end_h, np.ones(n)))
        shape, s0, s1, count = (np.concatenate(x) for x in zip(*parts, strict=True))
        rentals = Rentals(
            shape=shape.astype(np.int64),
            start_h=s0.astype(np.float64),
            end_h=s1.astype(np.float64),
            count=count.astype(np.float64),
        )
        return start, rentals

    def ledger(self, plan: CP, runs: JobRuns, edges: np.ndarray) -> Ledger:
        """Every billed instance-hour at its shape's price."""
        use = usage(plan, runs, edges)
        compute = per_month(use.on_demand_usd_hourly(plan), edges)
        return Ledger(
            cash={"cloud_compute": compute},
            accounting={"cloud_compute": compute.copy()},
            gpu_hours_paid=use.paid_gpu_h,
            draws=use.draws(plan),
            gpu_hours_busy=use.busy_gpu_h,
        )
