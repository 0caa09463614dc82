"""Each owned option of a shipped scenario under other ways of buying and running it.

Usage: python scripts/variants.py lab industrial

For every scenario named, each variant is applied to every owned option (failures at the
defaults, a 36-month loan at 9.5 %, an operating lease with a fair-market-value buyout, resale at
book value instead of the market curve, three together, a refresh to the next generation in
month 24, the brief's 18-24-month payback, or after the last tranche, and that refresh with the
lease and failures) and the run printed as a
Markdown row: the first owned option's cash over the horizon, its largest month of cash, p95
wait, GPU availability, work lost to failures, its break-even months against the others, and the
recommended option; for a refresh, the successor's capex a year as a share of the option's cash a
year (the brief advises reserving about 20 % a year for hardware iteration). The figures of the
closing notes of issues 11 and 12 come from here.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

from tco.simulator.run import run
from tco.simulator.scenario.model import validate
from tco.simulator.scenario.yaml_input import parse_yaml

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
    "refresh to the next generation": {"refresh": {"month": 24}},
    "refresh + operating lease + failures": {
        "refresh": {"month": 24},
        "financing": {"kind": "lease", "end_of_term": "fmv_buyout"},
        "failures": {},
    },
}
# The next generation of each catalog server (a successor must have at least its GPU memory).
SUCCESSOR = {
    "8x A40 NVLink server": "HGX A100 8x80GB",
    "DGX A100 320GB": "HGX H100 8-GPU",
    "HGX A100 8x80GB": "HGX H100 8-GPU",
    "HGX H100 8-GPU": "DGX B200",
    "RTX 3060 workstation": "RTX 4090 workstation",
}


def _apply(o: dict[str, Any], over: dict[str, Any]) -> None:
    o.update(over)
    if "refresh" in over:
        last = max((t["month"] for t in o.get("tranches") or []), default=0)
        o["refresh"] = {"month": max(24, last + 1), "server": SUCCESSOR[o["server"]]}


def main(names: list[str]) -> None:
    for name in names:
        path = Path(f"scenarios/{name}.yaml")
        print(f"## {name}")
        for label, over in VARIANTS.items():
            data = parse_yaml(path.read_text(), str(path))
            for o in data["options"]:
                if o["kind"] == "owned":
                    _apply(o, over)
            r = run(validate(data, str(path)), file=str(path))
            own = next(o for o in r.options if o.kind == "owned")
            m = own.metrics
            be = ", ".join(f"{k} m{v}" for k, v in own.break_even.items() if v is not None)
            print(
                f"| {label} | {own.name} ${own.total_cash_usd:,.0f} (largest month"
                f" ${float(own.ledger.cash_total().max()):,.0f}; p95 {own.waits.p95_h:.0f} h;"
                f" availability {m.gpu_availability:.4f}; lost {m.lost_gpu_hours:,.0f} GPU-h)"
                f" | break-even: {be or 'never'} |{_reserve(own, r.scenario)}"
                f" recommended: {r.recommendation.option if r.recommendation else None} |"
            )


def _reserve(own: Any, scenario: Any) -> str:
    refresh = scenario.option(own.name).refresh
    if refresh is None:
        return ""
    lead = scenario.option(own.name).lead_time_months
    cash = own.ledger.cash
    back = -float(cash["refresh_sale"].sum()) if "refresh_sale" in cash else 0.0
    if scenario.option(own.name).financing is not None:  # leased: no capex to reserve
        ended = float(cash["lease_termination"].sum()) if "lease_termination" in cash else 0.0
        return f" refresh: old lease ended early for ${ended:,.0f}, old sold for ${back:,.0f} |"
    bought = float(cash["capex"][math.floor(refresh.month + lead) :].sum())
    years = scenario.horizon_months / 12
    gross, net = (x / own.total_cash_usd / years for x in (bought, bought - back))
    return (
        f" refresh: successor ${bought:,.0f}, old sold for ${back:,.0f}; a year, {gross:.1%}"
        f" of the option's cash ({net:.1%} net of the sale) |"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
