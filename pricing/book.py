"""The price book: the one seam through which the simulator asks for prices and instance specs.

A PriceBook answers for an instance type in a region: on-demand $/h, Savings Plan $/h by plan
type, term and payment option, reserved $/h, spot $/h, and the instance's specs. Every answer is a
:class:`~pricing.records.Price` that names its source and date. Scenario overrides are applied by
the caller (the scenario knows them); the book never invents a price it does not have: it raises
:class:`~pricing.errors.UnknownPrice` with what to do instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from pricing import snapshot
from pricing.errors import PricingError, UnknownPrice, closest
from pricing.records import InstanceSpec, Payment, PlanType, Price


@dataclass(frozen=True)
class SnapshotPriceBook:
    """Prices from the bundled snapshot (source "snapshot", dated by the snapshot)."""

    def _entry(self, instance_type: str, region: str) -> dict[str, object]:
        if region not in snapshot.regions():
            valid = snapshot.regions()
            raise PricingError(
                f"region {region!r} is not in the bundled price snapshot"
                f"{closest(region, valid)}; valid: {', '.join(valid)}"
            )
        found = snapshot.entry(instance_type, region)
        if found is None:
            valid = snapshot.instance_types(region)
            raise PricingError(
                f"instance type {instance_type!r} is not in the bundled price snapshot for {region}"
                f"{closest(instance_type, valid)}; valid: {', '.join(valid)}"
            )
        return found

    def known(self, instance_type: str, region: str) -> bool:
        """Whether the book knows this instance type in this region at all."""
        return snapshot.entry(instance_type, region) is not None

    def spec(self, instance_type: str, region: str) -> InstanceSpec:
        """GPU model and count, memory, vCPUs and links of an instance type."""
        s = self._entry(instance_type, region)["spec"]
        assert isinstance(s, dict)
        return InstanceSpec(
            instance_type=instance_type,
            gpu_model=s["gpu_model"],
            aws_gpu_name=s["aws_gpu_name"],
            gpu_count=int(s["gpu_count"]),
            gpu_memory_gib=float(s["gpu_memory_gib"]),
            vcpus=int(s["vcpus"]),
            memory_gib=float(s["memory_gib"]),
            intra_node=s["intra_node"],
            inter_node=s["inter_node"],
            bare_metal=bool(s["bare_metal"]),
        )

    def _price(self, value: object, what: str, instance_type: str, region: str) -> Price:
        if value is None:
            raise UnknownPrice(
                f"the {what} of {instance_type} in {region} is not in the bundled snapshot"
                f" (as of {snapshot.as_of()}); give it in the scenario or run with live prices"
            )
        assert isinstance(value, int | float)
        return Price(
            float(value),
            "snapshot",
            snapshot.as_of(),
            f"{what}, {instance_type}, {region}, bundled AWS snapshot",
        )

    def on_demand(self, instance_type: str, region: str) -> Price:
        """Linux, shared-tenancy on-demand $/h of one instance."""
        e = self._entry(instance_type, region)
        return self._price(e["on_demand_usd_per_hour"], "on-demand price", instance_type, region)

    def spot(self, instance_type: str, region: str) -> Price:
        """Lowest spot $/h over the region's availability zones (Local Zones excluded)."""
        e = self._entry(instance_type, region)
        return self._price(
            e["spot_min_usd_per_hour"], "spot price (lowest AZ)", instance_type, region
        )

    def reserved(
        self, instance_type: str, region: str, years: int, offering: str, payment: Payment
    ) -> Price:
        """Effective $/h of a reserved instance (upfront fee amortised over the term)."""
        e = self._entry(instance_type, region)
        terms = e["reserved"]
        assert isinstance(terms, dict)
        key = f"{years}yr/{offering}/{payment}"
        return self._price(terms.get(key), f"reserved {key} rate", instance_type, region)

    def savings_plan(
        self, instance_type: str, region: str, plan: PlanType, years: int, payment: Payment
    ) -> Price:
        """Savings Plan $/h for one instance; unknown in the snapshot (AWS does not publish it)."""
        e = self._entry(instance_type, region)
        rates = e["savings_plans"] or {}
        assert isinstance(rates, dict)
        key = f"{plan}/{years}yr/{payment}"
        return self._price(
            rates.get(key), f"{plan} Savings Plan {years}yr {payment} rate", instance_type, region
        )


PriceBook = SnapshotPriceBook
