"""summary.json validates against its published JSON Schema and carries its provenance."""

from __future__ import annotations

import json

import jsonschema

from tco.reports import summary
from tests.conftest import shipped


def test_summary_validates_against_schema() -> None:
    doc = json.loads(summary.dumps(shipped("industrial")))
    jsonschema.Draft202012Validator.check_schema(summary.schema())
    jsonschema.validate(doc, summary.schema())
    assert doc["schema"] == summary.SCHEMA_ID
    assert doc["price_provenance"]["snapshot_as_of"] == "2025-11-30"
    od = next(o for o in doc["options"] if o["name"] == "p5-on-demand")
    (price,) = [p for p in od["prices"] if p["unit"] == "USD/h"]
    assert price["value"] == 55.04 and price["source"] == "snapshot"


def test_monthly_ledger_sums_to_totals() -> None:
    doc = json.loads(summary.dumps(shipped("lab")))
    for o in doc["options"]:
        for view, key in (("cash_usd", "cash"), ("accounting_usd", "accounting")):
            total = sum(sum(v) for v in o["monthly"][view].values())
            assert abs(total - o["totals_usd"][key]) < 0.01 * len(doc["months"]) * 8
