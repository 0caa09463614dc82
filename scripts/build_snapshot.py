"""Build the bundled AWS price snapshot (pricing/data/aws_snapshot.json) from research CSVs.

Usage: python scripts/build_snapshot.py DATA_AWS_DIR

DATA_AWS_DIR is the shared research folder `data/aws` (gpu_prices.csv and
gpu_reserved_rates_vantage_2025-11-30.csv). The output is committed; this script records how it
was made. Savings Plan $/h are not public for these types, so the snapshot stores them as unknown
(null). The GPU model and links of each type come from the same functions the live path uses.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from tco.pricing.aws import links
from tco.pricing.entry import PriceEntry, snapshot_document, snapshot_json
from tco.pricing.hardware import gpu_for_aws
from tco.pricing.records import InstanceSpec

TERM = {  # vantage term key -> (years, offering class, payment option)
    "yrTerm1Standard": (1, "standard"),
    "yrTerm1Convertible": (1, "convertible"),
    "yrTerm3Standard": (3, "standard"),
    "yrTerm3Convertible": (3, "convertible"),
}
PAYMENT = {
    "noUpfront": "No Upfront",
    "partialUpfront": "Partial Upfront",
    "allUpfront": "All Upfront",
}


PROVENANCE = {
    "on_demand_and_spot": "skypilot-org/skypilot-catalog:catalogs/v8/aws/vms.csv@00148f2a"
    " (post-June-2025 price list); every on-demand value matches the ec2instances.info"
    " copy dated 2025-11-30. Spot is the lowest in-region AZ price, Local Zones"
    " excluded, at one point in time.",
    "reserved": "Effective $/h of the 12 EC2 RI terms (upfront fee amortised over the"
    " term) from tsaol/aws-gpu:data/gpu_instances_raw.json@2d0108c7, a copy of"
    " instances.vantage.sh/instances.json dated 2025-11-30.",
    "savings_plans": "Unknown: AWS does not publish absolute Savings Plan $/h for these"
    " types. Give a rate or a discount in the scenario, or run with live prices.",
    "links": "Interconnects from the AWS EC2 accelerated-computing instance type pages.",
}


def _num(text: str) -> float | None:
    return float(text) if text.strip() else None


def _entries(src: Path) -> dict[str, dict[str, PriceEntry]]:
    regions: dict[str, dict[str, PriceEntry]] = {}
    with (src / "gpu_prices.csv").open() as f:
        for row in csv.DictReader(f):
            itype = row["instance_type"]
            intra, inter = links(itype, int(row["gpu_count"]))
            gpu_mem = float(row["gpu_mem_gib"])
            regions.setdefault(row["region"], {})[itype] = PriceEntry(
                instance_type=itype,
                on_demand_usd_per_hour=_num(row["ondemand_usd_hr"]),
                spot_min_usd_per_hour=_num(row["spot_usd_hr"]),
                reserved={},
                savings_plans=None,
                spec=InstanceSpec(
                    instance_type=itype,
                    aws_gpu_name=row["gpu_name"],
                    gpu_model=gpu_for_aws(row["gpu_name"], gpu_mem),
                    gpu_count=int(row["gpu_count"]),
                    gpu_memory_gib=gpu_mem,
                    vcpus=int(row["vcpus"]),
                    memory_gib=float(row["mem_gib"]),
                    intra_node=intra,
                    inter_node=inter,
                    bare_metal=itype.endswith(".metal"),
                ),
            )
    with (src / "gpu_reserved_rates_vantage_2025-11-30.csv").open() as f:
        for row in csv.DictReader(f):
            term, pay = row["term"].split(".")
            years, klass = TERM[term]
            entry = regions[row["region"]][row["instance_type"]]
            entry.reserved[f"{years}yr/{klass}/{PAYMENT[pay]}"] = float(row["effective_usd_hr"])
    return regions


def build(src: Path) -> dict[str, object]:
    return snapshot_document(_entries(src), "2025-11-30", PROVENANCE)


def main() -> None:
    src = Path(sys.argv[1])
    out = Path(__file__).resolve().parent.parent / "pricing" / "data" / "aws_snapshot.json"
    out.write_text(snapshot_json(build(src)))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
