"""The bundled, dated snapshot of AWS GPU instance prices (``pricing/data/aws_snapshot.json``).

It is shipped inside the package, so a run with no network and no credentials still has real,
dated prices. ``scripts/build_snapshot.py`` records how it was made; its provenance block travels
into every report. Unknown values (Savings Plan rates, p5e on-demand in us-east-1) are null and
stay unknown: the tool never invents them.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from tco.pricing.entry import PriceEntry, check_snapshot

SNAPSHOT_FILE = "aws_snapshot.json"


@functools.cache
def load() -> dict[str, Any]:
    """The parsed snapshot (read once, on first use; its schema checked)."""
    path = resources.files("tco.pricing").joinpath("data", SNAPSHOT_FILE)
    return check_snapshot(json.loads(path.read_text(encoding="utf-8")), f"bundled {SNAPSHOT_FILE}")


def as_of() -> str:
    """ISO date of the snapshot's prices."""
    return str(load()["as_of"])


def regions() -> list[str]:
    """Regions the snapshot covers."""
    return sorted(load()["regions"])


def instance_types(region: str | None = None) -> list[str]:
    """Instance types the snapshot covers (in one region, or in any)."""
    regs = load()["regions"]
    names: set[str] = set()
    for name, table in regs.items():
        if region is None or name == region:
            names.update(table)
    return sorted(names)


@functools.cache
def entry(instance_type: str, region: str) -> PriceEntry | None:
    """The snapshot entry for an instance type in a region, or None."""
    found = load()["regions"].get(region, {}).get(instance_type)
    return None if found is None else PriceEntry.from_dict(instance_type, found)
