"""Published training-speed measurements between GPUs, as typed rows (``pricing/data``).

- ``speed_lambda.csv``: Lambda's PyTorch FP16 training throughput tables
  (``lambdal/deeplearning-benchmark``, commits of 2022-10-15 and 2024-07-24), 9 workloads and their
  geometric mean, at 1 GPU and at 8 GPUs in one server, each row with its file, commit and column.
- ``speed_lambda_v2.csv``: the H200 SXM and B200 against the H100 SXM in Lambda's v2 harness
  (same repository, commit of 2025-12-17), 6 workloads at 1 GPU and 8 GPUs in one server
  (``scripts/build_speed_lambda_v2.py`` says which machines each ratio averages).
- ``speed_mlperf.csv``: MLPerf Training v3.0 H100 vs A100 (Dell submissions), an independent check.

Lambda's GPU names are mapped to the catalog's. Two measured cards stand in for AWS GPUs that
were not benchmarked, each on the same chip: the RTX 6000 Ada for the L40S (AD102) and the A10 for
AWS's A10G (GA102). The "V100 32GB" of the 2022 tables is listed at 250 W, probably the PCIe card
(up to about 10 % slower than the SXM2 of the catalog); it is used as the SXM2.
"""

from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass
from importlib import resources

# Lambda's names -> the catalog's (the 8-GPU rows prefix "8x " or "LambdaCloud 8x").
LAMBDA_NAMES = {
    "A100 40GB SXM4": "A100 SXM 40GB",
    "A100 80GB SXM4": "A100 SXM 80GB",
    "V100 32GB": "V100 SXM2 32GB",
    "V100 16GB": "V100 SXM2 16GB",
    "RTX A40": "A40",
    "RTX 4090": "RTX 4090",
    "RTX 6000 Ada": "L40S",
    "A10": "A10G",
    "H100 80GB SXM5": "H100 SXM",
    "H100 80GB PCIe Gen5": "H100 PCIe",
    "H200 141GB SXM": "H200 SXM",
    "B200 192GB": "B200 (HGX 1000W)",
}
PROXIES = {"L40S": "RTX 6000 Ada (same AD102 chip)", "A10G": "A10 (same GA102 chip)"}
MLPERF_NAMES = {"H100 SXM5 80GB": "H100 SXM", "A100 SXM4 80GB": "A100 SXM 80GB"}


@dataclass(frozen=True)
class Measurement:
    """Throughput of ``gpu`` over ``base`` on one workload, ``gpus`` per run (1 or 8);
    ``workload`` is 'geomean' for the published geometric mean row."""

    base: str
    gpu: str
    ratio: float
    workload: str
    gpus: int
    source: str


def _catalog_name(lambda_name: str) -> str:
    name = re.sub(r"^(LambdaCloud )?(8x ?)?", "", lambda_name).replace("LambdaCloud ", "")
    return LAMBDA_NAMES[name]


def _rows(filename: str) -> list[dict[str, str]]:
    text = resources.files("tco.pricing").joinpath("data", filename).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


@functools.cache
def lambda_measurements() -> tuple[Measurement, ...]:
    """Every row of the Lambda tables (per workload and the published geometric means)."""
    out = []
    for r in _rows("speed_lambda.csv"):
        workload = r["workload"].split(" ")[0]
        out.append(
            Measurement(
                base=_catalog_name(r["gpu_a"]),
                gpu=_catalog_name(r["gpu_b"]),
                ratio=float(r["ratio_b_over_a"]),
                workload="geomean" if workload == "geomean" else workload,
                gpus=8 if "8 GPUs" in r["workload"] else 1,
                source=f"Lambda deeplearning-benchmark, {r['source_location']} ({r['as_of']})",
            )
        )
    return tuple(out)


@functools.cache
def lambda_v2_measurements() -> tuple[Measurement, ...]:
    """The newest GPUs over the H100 SXM in Lambda's v2 harness (per workload, 1 or 8 GPUs)."""
    return tuple(
        Measurement(
            base=_catalog_name(r["gpu_a"]),
            gpu=_catalog_name(r["gpu_b"]),
            ratio=float(r["ratio_b_over_a"]),
            workload=r["workload"],
            gpus=int(r["gpus"]),
            source=f"Lambda deeplearning-benchmark, {r['source_location']} ({r['as_of']}),"
            f" {r['machines_b']} machine(s) over {r['machines_a']}",
        )
        for r in _rows("speed_lambda_v2.csv")
    )


@functools.cache
def mlperf_measurements() -> tuple[Measurement, ...]:
    """MLPerf Training v3.0 H100 vs A100 rows (an independent check, not used in the fit)."""
    return tuple(
        Measurement(
            base=MLPERF_NAMES[r["older_gpu"]],
            gpu=MLPERF_NAMES[r["newer_gpu"]],
            ratio=float(r["ratio_newer_over_older"]),
            workload=r["workload"].removeprefix("MLPerf Training v3.0 "),
            gpus=8,
            source=f"{r['source']} ({r['date']})",
        )
        for r in _rows("speed_mlperf.csv")
    )
