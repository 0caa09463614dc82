"""Build pricing/data/speed_lambda_v2.csv: the newest GPUs' training speed against the H100 SXM.

Usage: python scripts/build_speed_lambda_v2.py PYTORCH_TRAIN_THROUGHPUT_V2_FP16_CSV

The input is ``pytorch/pytorch-train-throughput-v2-fp16.csv`` of Lambda's
``lambdal/deeplearning-benchmark`` at commit aa5addb6a536 (2025-12-17, "add b200"): images or
tokens per second of PyTorch FP16 (AMP) training, one row per machine and GPU count. It is the
table of Lambda's v2 harness; the 2022 and 2024 tables tco already uses (``speed_lambda.csv``) are
the v1 harness, so the new GPUs are compared with the H100 SXM *inside* this table and chained to
the A100 through the H100's v1 score (``workload.calibration``).

Rows kept, by machine name (Lambda's own labels), the geometric mean over a group's machines:
- H100 SXM: ``LambdaOD_Texas_{1,8}xH100_80GB_SXM5_*`` (Lambda's on-demand instances, 20 each);
- H200 SXM: every ``*_1xH200_140GB_SXM_*`` (2) and ``*_8xH200_140GB_SXM_*`` (5: Lambda bare
  metal with hyper-threading on and off, and ASUS, Lenovo and Supermicro servers);
- B200: ``LambdaOD_test_{1,8}xB200_192GB_*`` (1 each).
GH200 rows are left out: the GPU is not in the hardware catalog. A zero (a workload that did not
run) is left out of its group's mean. Each output row names its workload, GPU count, the machines
averaged and the source file and commit.
"""

from __future__ import annotations

import csv
import math
import re
import sys
from pathlib import Path

COMMIT = "aa5addb6a53675a649a80036dad548f1c27cbcc4"
AS_OF = "2025-12-17"
FILE = "pytorch/pytorch-train-throughput-v2-fp16.csv"
BASE = ("H100 80GB SXM5", r"^LambdaOD_Texas_{n}xH100_80GB_SXM5_")
GROUPS = (
    ("H200 141GB SXM", r"_{n}xH200_140GB_SXM_"),
    ("B200 192GB", r"^LambdaOD_test_{n}xB200_192GB_"),
)
WORKLOADS = ("ssd", "bert_base_squad", "bert_large_squad", "gnmt", "resnet50", "waveglow")


def _mean(rows: list[dict[str, str]], workload: str) -> float:
    values = [float(r[workload]) for r in rows if float(r[workload]) > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main(path: str) -> None:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    name = next(iter(rows[0]))  # the machine column has no header

    def group(pattern: str, n: int) -> list[dict[str, str]]:
        return [r for r in rows if re.search(pattern.format(n=n), r[name])]

    out = Path(__file__).resolve().parents[1] / "pricing" / "data" / "speed_lambda_v2.csv"
    with out.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(
            [
                "gpu_a",
                "gpu_b",
                "ratio_b_over_a",
                "workload",
                "gpus",
                "machines_a",
                "machines_b",
                "source",
                "source_location",
                "as_of",
            ]
        )
        for n in (1, 8):
            base = group(BASE[1], n)
            for gpu, pattern in GROUPS:
                mine = group(pattern, n)
                for workload in WORKLOADS:
                    w.writerow(
                        [
                            BASE[0],
                            gpu,
                            f"{_mean(mine, workload) / _mean(base, workload):.4f}",
                            workload,
                            n,
                            len(base),
                            len(mine),
                            "Lambda deeplearning-benchmark (lambdal/deeplearning-benchmark)",
                            f"{FILE}@{COMMIT[:12]} column {workload}",
                            AS_OF,
                        ]
                    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1])
