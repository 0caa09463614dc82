"""Each owned option of a shipped scenario under other ways of buying and running it.

Usage: python scripts/variants.py lab industrial

For every scenario named, each variant is applied to every owned option (failures at the
defaults, a 36-month loan at 9.5 %, an operating lease with a fair-market-value buyout, resale at
book value instead of the market curve, and three together) and the run printed as a Markdown
row: the first owned option's cash over the horizon, its largest month of cash, p95 wait, GPU
availability, work lost to failures, its break-even months against the others, and the
recommended option. The figures of the closing notes of issues 11 and 12 come from here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tco.simulator.run import run
from tco.simulator.scenario import validate
from tco.simulator.yaml_input import parse_yaml

VARIANTS: dict[str, dict[str, Any]] = {
    "as shipped": {},
    "failures (defaults)": {"failures": {}},
    "loan 36 mo 9.5 %": {"financing": {"kind": "loan"}},
    "operating lease (FMV buyout)": {"financing": {"kind": "lease", "end_of_term": "fmv_buyout"}},
    "book resale": {"resale_value": "book"},
    "failures + loan + book resale": {
        "failures": {},
        "financing": {"kind": "loan"},
        "resale_value": "book",
    },
}


def main(names: list[str]) -> None:
    for name in names:
        path = Path(f"scenarios/{name}.yaml")
        print(f"## {name}")
        for label, over in VARIANTS.items():
            data = parse_yaml(path.read_text(), str(path))
            for o in data["options"]:
                if o["kind"] == "owned":
                    o.update(over)
            r = run(validate(data, str(path)), file=str(path))
            own = next(o for o in r.options if o.kind == "owned")
            m = own.metrics
            be = ", ".join(f"{k} m{v}" for k, v in own.break_even.items() if v is not None)
            print(
                f"| {label} | {own.name} ${own.total_cash_usd:,.0f} (largest month"
                f" ${float(own.ledger.cash_total().max()):,.0f}; p95 {own.waits.p95_h:.0f} h;"
                f" availability {m.gpu_availability:.4f}; lost {m.lost_gpu_hours:,.0f} GPU-h)"
                f" | break-even: {be or 'never'} |"
                f" recommended: {r.recommendation.option if r.recommendation else None} |"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
