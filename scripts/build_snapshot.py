"""Build the bundled AWS price snapshot (pricing/data/aws_snapshot.json) from research CSVs.

Usage: python scripts/build_snapshot.py DATA_AWS_DIR

DATA_AWS_DIR is the shared research folder `data/aws`. The output is committed; this script
records how it was made:

- every region and type of gpu_prices_multiregion_vantage_2025-11-30.csv (29 regions): on-demand,
  spot (lowest, mean and highest over the region's AZs) and the Spot Instance Advisor's
  interruption bucket;
- GPU name and usable memory per GPU as AWS reports them (e.g. 22.35 GiB for an A10G) from
  gpu_prices.csv (SkyPilot's catalog, from DescribeInstanceTypes) for types of a family it lists;
  other types take the nominal memory of the multi-region file;
- where both files price a type in a region, on-demand must agree to 1e-4 USD/h (checked here);
  gpu_prices.csv's value is kept, so prices users saw before do not move;
- reserved rates (12 terms, us-east-1 and us-west-2) from gpu_reserved_rates_vantage_2025-11-30.csv.

Savings Plan $/h are not public for these types, so the snapshot stores them as unknown (null).
The GPU model and links of each type come from the same functions the live path uses.
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
    "on_demand_and_spot": "tsaol/aws-gpu:data/gpu_instances_raw.json@2d0108c7 (a copy of"
    " instances.vantage.sh/instances.json dated 2025-11-30; 29 regions, Local Zones and"
    " Wavelength excluded). Spot is the lowest, mean and highest in-region AZ price at one moment"
    " on or before 2025-11-30 (DescribeSpotPriceHistory via ec2instances.info); treat it as"
    " volatile. In"
    " us-east-1 and us-west-2 on-demand is skypilot-org/skypilot-catalog:catalogs/v8/aws/"
    "vms.csv@00148f2a, which agrees with the copy above to 1e-4 USD/h.",
    "spot_interruption_bucket": "AWS Spot Instance Advisor (spot-advisor-data.json) frequency"
    " of interruption over the trailing month, all AZs of the region, as copied by"
    " ec2instances.info on 2025-11-30; not a guarantee.",
    "specs": "GPU name and usable memory per GPU from DescribeInstanceTypes as recorded in"
    " SkyPilot's catalog (same family where the type itself is not listed), else the"
    " nominal memory of the instances.vantage.sh copy.",
    "reserved": "Effective $/h of the 12 EC2 RI terms (upfront fee amortised over the"
    " term) from tsaol/aws-gpu:data/gpu_instances_raw.json@2d0108c7, a copy of"
    " instances.vantage.sh/instances.json dated 2025-11-30.",
    "savings_plans": "Unknown: AWS does not publish absolute Savings Plan $/h for these"
    " types. Give a rate or a discount in the scenario, or run with live prices.",
    "links": "Interconnects from the AWS EC2 accelerated-computing instance type pages.",
}


def _num(text: str) -> float | None:
    return float(text) if text.strip() else None


# The multi-region file labels GPUs in words; AWS's API names (DescribeInstanceTypes) are these.
# It calls Trainium "AWS Inferentia" (ec2instances.info's label); trn types carry Trainium.
AWS_NAME = {
    "NVIDIA A100": "A100",
    "NVIDIA A10G": "A10G",
    "NVIDIA B200": "B200",
    "NVIDIA B300": "B300",
    "NVIDIA H100": "H100",
    "NVIDIA H200": "H200",
    "NVIDIA L4": "L4",
    "NVIDIA L40S": "L40S",
    "NVIDIA T4 Tensor Core": "T4",
    "NVIDIA Tesla V100": "V100",
    "AWS Inferentia": "Trainium",
}


def _family(itype: str) -> str:
    return itype.split(".", 1)[0]


def _skypilot(src: Path) -> dict[tuple[str, str], dict[str, str]]:
    with (src / "gpu_prices.csv").open() as f:
        return {(r["instance_type"], r["region"]): r for r in csv.DictReader(f)}


def _spec(itype: str, row: dict[str, str], known: dict[str, dict[str, str]]) -> InstanceSpec:
    count = int(row["gpu_count"])
    like = known.get(itype) or known.get(_family(itype))
    if like is not None:  # AWS's own name and usable memory per GPU
        name, gpu_mem = like["gpu_name"], float(like["gpu_mem_gib"])
    else:
        name, gpu_mem = AWS_NAME[row["gpu_model"]], float(row["gpu_mem_total_gib"]) / count
    intra, inter = links(itype, count)
    return InstanceSpec(
        instance_type=itype,
        aws_gpu_name=name,
        gpu_model=gpu_for_aws(name, gpu_mem),
        gpu_count=count,
        gpu_memory_gib=gpu_mem,
        vcpus=int(row["vcpus"]),
        memory_gib=float(row["mem_gib"]),
        intra_node=intra,
        inter_node=inter,
        bare_metal=itype.endswith(".metal"),
    )


def _entries(src: Path) -> dict[str, dict[str, PriceEntry]]:
    sky = _skypilot(src)
    known: dict[str, dict[str, str]] = {}
    for (itype, _), r in sorted(sky.items()):
        known.setdefault(itype, r)
        known.setdefault(_family(itype), r)
    regions: dict[str, dict[str, PriceEntry]] = {}
    name = "gpu_prices_multiregion_vantage_2025-11-30.csv"
    with (src / name).open() as f:
        for row in csv.DictReader(f):
            itype, region = row["instance_type"], row["region"]
            on_demand = _num(row["ondemand_usd_hr"])
            old = sky.get((itype, region))
            if old is not None and on_demand is not None:
                if abs(float(old["ondemand_usd_hr"]) - on_demand) > 1e-4:
                    raise SystemExit(f"{itype} {region}: on-demand differs between the files")
                on_demand = float(old["ondemand_usd_hr"])
            regions.setdefault(region, {})[itype] = PriceEntry(
                instance_type=itype,
                on_demand_usd_per_hour=on_demand,
                spot_min_usd_per_hour=_num(row["spot_min_usd_hr"]),
                spot_avg_usd_per_hour=_num(row["spot_avg_usd_hr"]),
                spot_max_usd_per_hour=_num(row["spot_max_usd_hr"]),
                reserved={},
                savings_plans=None,
                spec=_spec(itype, row, known),
                spot_interruption_bucket=row["advisor_interrupt_bucket"] or None,
            )
    for (itype, region), r in sky.items():  # e.g. p5e: spot only, no on-demand SKU
        if itype not in regions.get(region, {}):
            regions.setdefault(region, {})[itype] = PriceEntry(
                instance_type=itype,
                on_demand_usd_per_hour=_num(r["ondemand_usd_hr"]),
                spot_min_usd_per_hour=_num(r["spot_usd_hr"]),
                reserved={},
                savings_plans=None,
                spec=_spec(itype, {**r, "gpu_model": r["gpu_name"]}, known),
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
