"""Income tax in the workbook finance edits: each month's tax a live formula on the Inputs
sheet's rate (minus the deductions paid that month times the rate), summed into the option's
tax total and the Summary's; a rate changed there moves every tax cell in proportion."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from openpyxl import load_workbook

from tco.reports import spreadsheet
from tco.simulator.engine.simulate import prepare
from tco.simulator.run import simulate
from tests.conftest import make_scenario

OPTIONS: list[dict[str, Any]] = [
    {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1},
    {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
]


def _value(wb: Any, ws: Any, value: Any, rate: float | None = None) -> float:
    """A cell as Excel computes it: a number, a reference, or [-]SUM/PRODUCT over references
    (``rate``: the Inputs rate a reader typed instead of the one written)."""
    if not (isinstance(value, str) and value.startswith("=")):
        return float(value or 0.0)
    formula = value[1:].replace("$", "")
    sign = -1.0 if formula.startswith("-") else 1.0
    m = re.fullmatch(r"-?(SUM|PRODUCT)\((.*)\)", formula)
    numbers = []
    for ref in m.group(2).split(",") if m else [formula]:
        sheet, _, cells = ref.rpartition("!")
        target = wb[sheet.strip("'").replace("''", "'")] if sheet else ws
        if (
            rate is not None
            and target.title == "Inputs"
            and "rate" in str(target[f"A{cells[1:]}"].value)
        ):
            numbers.append(rate)
            continue
        block = target[cells]
        rows = block if isinstance(block, tuple) else ((block,),)
        for row in rows:
            for c in row if isinstance(row, tuple) else (row,):
                numbers.append(_value(wb, target, c.value, rate))
    out = float(np.prod(numbers)) if m and m.group(1) == "PRODUCT" else float(sum(numbers))
    return sign * out


@pytest.mark.parametrize("decide_on", ["pre_tax", "after_tax"])
def test_tax_cells_are_formulas_on_the_rate(decide_on: str, tmp_path: Path) -> None:
    sc = make_scenario(
        tax={"rate": 0.21, "decide_on": decide_on}, options=OPTIONS, horizon_months=12
    )
    result = simulate(prepare(sc), advise=False)
    path = spreadsheet.write(result, tmp_path / "budget.xlsx")
    wb = load_workbook(path)
    summary = wb["Summary"]
    head = [c.value for c in summary[4]]
    col = head.index("total income tax (USD)") + 1
    for i, o in enumerate(result.options):
        t = o.metrics.tax
        assert t is not None
        ws = wb[o.name]
        header = [c.value for c in ws[4]]
        total = header.index("tax total (USD)") + 1
        taxes = [_value(wb, ws, ws.cell(row=5 + m, column=total).value) for m in range(12)]
        assert sum(taxes) == pytest.approx(t.after_usd - t.before_usd, abs=0.01)
        cell = summary.cell(row=5 + i, column=col).value
        assert _value(wb, summary, cell) == pytest.approx(t.after_usd - t.before_usd, abs=0.01)
        # Finance types another rate: every tax cell follows, in proportion.
        moved = [_value(wb, ws, ws.cell(row=5 + m, column=total).value, 0.3) for m in range(12)]
        assert sum(moved) == pytest.approx(sum(taxes) * 0.3 / 0.21, rel=1e-9)
        formulas = [ws.cell(row=5, column=j + 1).value for j, h in enumerate(header)]
        taxed = [f for h, f in zip(header, formulas, strict=True) if "tax_" in str(h)]
        assert taxed and all(str(f).startswith("=-PRODUCT(") for f in taxed)
