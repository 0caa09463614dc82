"""The bundled snapshot: real, dated prices; unknown stays unknown."""

from __future__ import annotations

import pytest

from tco.pricing import hardware, snapshot
from tco.pricing.book import PriceBook
from tco.pricing.errors import PricingError, UnknownPrice


def test_p4d_on_demand_us_east_1() -> None:
    # AWS cut P4d on-demand 33 % in June 2025: $21.957642/h in us-east-1 (PRODUCT.md).
    p = PriceBook().on_demand("p4d.24xlarge", "us-east-1")
    assert p.usd_per_hour == 21.957642
    assert p.source == "snapshot" and p.as_of == snapshot.as_of() == "2025-11-30"


def test_regional_rounding_is_kept() -> None:
    assert PriceBook().on_demand("p4d.24xlarge", "us-west-2").usd_per_hour == 21.95764


def test_savings_plan_rates_are_unknown_not_invented() -> None:
    with pytest.raises(UnknownPrice, match="give it in the scenario or run with live prices"):
        PriceBook().savings_plan("p5.48xlarge", "us-east-1", "Compute", 1, "No Upfront")


def test_p5e_has_no_on_demand_sku_in_us_east_1() -> None:
    with pytest.raises(UnknownPrice):
        PriceBook().on_demand("p5e.48xlarge", "us-east-1")


def test_reserved_term() -> None:
    p = PriceBook().reserved("p4d.24xlarge", "us-east-1", 1, "standard", "No Upfront")
    assert p.usd_per_hour == 13.921094


def test_families_and_regions_covered() -> None:
    types = snapshot.instance_types("us-east-1")
    for family in (
        "p3.",
        "p3dn.",
        "p4d.",
        "p4de.",
        "p5.",
        "p5e.",
        "p5en.",
        "p6-b200.",
        "g4dn.",
        "g5.",
        "g6.",
        "g6e.",
        "trn1.",
    ):
        assert any(t.startswith(family) for t in types), family
    assert "g4dn.metal" in types
    assert {"us-east-1", "us-west-2"} <= set(snapshot.regions())


def test_specs_map_to_catalog_gpus() -> None:
    spec = PriceBook().spec("p4d.24xlarge", "us-east-1")
    assert (spec.gpu_model, spec.gpu_count, spec.gpu_memory_gib) == ("A100 SXM 40GB", 8, 40.0)
    for t in snapshot.instance_types("us-east-1"):
        model = PriceBook().spec(t, "us-east-1").gpu_model
        assert model is None or model in hardware.gpus()


def test_unknown_names_suggest_the_closest() -> None:
    with pytest.raises(PricingError, match="did you mean 'us-east-1'"):
        PriceBook().on_demand("p4d.24xlarge", "us-east1")
    with pytest.raises(PricingError, match="did you mean 'A40'"):
        hardware.gpu("A4O")
