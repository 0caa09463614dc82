"""Build the bundled snapshot of other clouds' GPU prices (pricing/data/clouds_snapshot.json).

Usage: python scripts/build_clouds_snapshot.py DATA_CLOUDS_DIR

DATA_CLOUDS_DIR is the shared research folder `data/clouds`; its README says where every row of
gpu_cloud_prices.csv comes from (SkyPilot's catalog files at stated commits, a third-party fork
for Azure, a transcription of CoreWeave's page, a summary of Vast's marketplace). The output is
committed; this script records how it was made:

- a row is kept when its GPU is one the hardware catalog knows (pricing/data/gpu_specs.csv: its
  speed can be modelled), under the catalog's name (GPU_NAMES below; the source's name stays in
  the notes); the others are counted and left out;
- each offer gets a confidence: ``doubtful`` for GCP rows the README tags SUSPECT (a GPU part
  below 0.75x the regional maximum: likely not an on-demand SKU) and for any row priced per GPU
  below a third of every other provider's (median) price for that GPU (a data error until a
  second source agrees); ``secondary`` for Azure (a third-party fork of the catalog) and
  CoreWeave (a transcription of its pricing page); ``marketplace`` for Vast (the median of few
  offers); ``listed`` for the rest. Doubtful offers are kept, but the price book refuses them;
- Vast's and CoreWeave's region strings become ``marketplace`` and ``north-america``;
- each offer gets the date its price held (``as_of``) and how that is known (``dated_by``): the
  source's own date (CoreWeave's page, read 2026-09-20); else the latest date a dated third
  party quoted the same price (the README's cross-checks, ``AGREED`` below); else the day the
  rows were copied (``COPIED``), an upper bound: SkyPilot's catalogue commits were read without
  their dates, so such a price held at some date up to then.
"""

from __future__ import annotations

import csv
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "pricing" / "data" / "clouds_snapshot.json"
# The source's normalised GPU name -> the hardware catalog's name (only GPUs whose speed tco
# models; e.g. A100 PCIe 80GB, H100 NVL and A10 have no catalog entry and are left out).
GPU_NAMES = {
    "A100 SXM 40GB": "A100 SXM 40GB",
    "A100 SXM 80GB": "A100 SXM 80GB",
    "H100 SXM": "H100 SXM",
    "H100 PCIe": "H100 PCIe",
    "H200": "H200 SXM",
    "B200": "B200 (HGX 1000W)",
    "L40S": "L40S",
    "L4": "L4",
    "A40": "A40",
    "T4": "T4",
    "RTX 4090": "RTX 4090",
    "V100 SXM2 16GB": "V100 SXM2 16GB",
    "V100 SXM2 32GB": "V100 SXM2 32GB",
    "MI300X": "MI300X",
}
COPIED = "2026-12-01"  # the shared README: "Compiled 2026-12-01 from copies of public GitHub files"
# (provider, instance type, region or None for every region) -> (date, who quoted the same
# price then): the shared README's cross-checks marked as agreeing, for the GPUs kept here.
_LAMBDA_PAGE = "Lambda's pricing page as transcribed by api-evangelist/lambda-labs"
_SILYBENCH = "tgarg01/silybench-data derived/csv/gpu_prices.csv"
AGREED = {
    ("lambda", "gpu_8x_h100_sxm5", None): ("2026-09-20", _LAMBDA_PAGE),
    ("lambda", "gpu_8x_b200_sxm6", None): ("2026-09-20", _LAMBDA_PAGE),
    ("lambda", "gpu_8x_a100_80gb_sxm4", None): ("2026-09-20", _LAMBDA_PAGE),
    ("lambda", "gpu_8x_a100", None): ("2026-09-20", _LAMBDA_PAGE),
    ("lambda", "gpu_1x_h100_sxm5", None): ("2026-09-25", _SILYBENCH),
    ("lambda", "gpu_1x_h100_pcie", None): ("2026-09-25", _SILYBENCH),
    ("gcp", "a3-highgpu-1g", "us-east4"): ("2026-09-26", f"{_SILYBENCH} (GCP Billing Catalog)"),
    ("azure", "Standard_ND96isr_H100_v5", "eastus"): (
        "2026-11-09",
        "datareceipts/data-receipts 109-gpu-pricing/hyperscalers.json",
    ),
    ("coreweave", "HGX H100 (8x)", None): ("2026-10-24", "compute-screener"),
    ("coreweave", "HGX H200 (8x)", None): ("2026-10-24", "compute-screener"),
}
CONFIDENCE = {"azure": "secondary", "coreweave": "secondary", "vast": "marketplace"}
REGIONS = {"vast": "marketplace", "coreweave": "north-america"}


def _num(text: str) -> float | None:
    return float(text) if text.strip() else None


def _dated(r: dict[str, str]) -> dict[str, str]:
    """The offer's ``as_of`` and ``dated_by`` (see the module docstring)."""
    agreed = AGREED.get((r["provider"], r["instance_type"], r["region"])) or AGREED.get(
        (r["provider"], r["instance_type"], None)
    )
    if agreed is not None and agreed[0] >= (r["source_date"] or ""):
        return {"as_of": agreed[0], "dated_by": f"agreed: {agreed[1]} quoted it then"}
    if r["source_date"]:
        return {"as_of": r["source_date"], "dated_by": "source: the page was read then"}
    return {
        "as_of": COPIED,
        "dated_by": "copied: from the catalogue then; its commit's date is unknown, so the"
        " price held at some date up to then",
    }


def main() -> None:
    src = Path(sys.argv[1])
    rows = list(csv.DictReader((src / "gpu_cloud_prices.csv").open()))
    per_gpu: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        if r["gpu"] in GPU_NAMES and "SUSPECT" not in r["notes"]:
            per_gpu[(GPU_NAMES[r["gpu"]], r["provider"])].append(
                float(r["usd_per_hour"]) / int(r["gpu_count"])
            )
    offers: dict[str, dict[str, dict[str, dict[str, object]]]] = defaultdict(dict)
    left_out: dict[str, int] = defaultdict(int)
    for r in rows:
        gpu = GPU_NAMES.get(r["gpu"])
        if gpu is None:
            left_out[r["gpu"]] += 1
            continue
        provider = r["provider"]
        region = REGIONS.get(provider, r["region"])
        price = float(r["usd_per_hour"])
        confidence = CONFIDENCE.get(provider, "listed")
        why = ""
        if "SUSPECT" in r["notes"]:
            confidence, why = "doubtful", "tagged SUSPECT in the source data (README)"
        others = [
            statistics.median(v) for (g, p), v in per_gpu.items() if g == gpu and p != provider
        ]
        if others and price / int(r["gpu_count"]) < min(others) / 3:
            confidence = "doubtful"
            why = "below a third of every other provider's price per GPU-hour"
        commit = r["source_commit"][:8]
        entry = {
            "gpu": gpu,
            "gpu_count": int(r["gpu_count"]),
            "gpu_memory_gb": float(r["gpu_memory_gb"]),
            "vcpus": int(float(r["vcpus"] or 0)),
            "memory_gib": float(r["memory_gib"] or 0),
            "on_demand_usd_per_hour": price,
            "spot_usd_per_hour": _num(r["spot_usd_per_hour"]),
            "source": f"{r['source_repo']}:{r['source_path']}@{commit}",
            **_dated(r),
            "confidence": confidence,
            "doubtful_because": why,
            "notes": r["notes"],
        }
        region_offers = offers[provider].setdefault(region, {})
        if r["instance_type"] in region_offers:
            raise SystemExit(f"{provider} {region} {r['instance_type']}: listed twice")
        region_offers[r["instance_type"]] = entry
    doc = {
        "schema": "tco-clouds-snapshot/1",
        "built_from": "shared/data/clouds/gpu_cloud_prices.csv (compiled 2026-12-01; every row"
        " cites its repository, path and commit) by scripts/build_clouds_snapshot.py",
        "left_out_gpus": dict(sorted(left_out.items())),
        "providers": {p: dict(sorted(r.items())) for p, r in sorted(offers.items())},
    }
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
    kept = sum(len(t) for r in offers.values() for t in r.values())
    print(f"wrote {OUT}: {kept} offers, {sum(left_out.values())} rows left out (GPU not modelled)")


if __name__ == "__main__":
    main()
