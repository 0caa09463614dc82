"""The Python API a notebook uses: the comparison as a DataFrame, the report written from Python,
short reprs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import tco
from tco.reports import answer
from tests.conftest import ROOT


def test_comparison_frame_is_the_comparison_table(tmp_path: Path) -> None:
    r = tco.run_file(ROOT / "scenarios" / "lab.yaml")
    frame = r.comparison_frame()
    assert frame["option"].tolist() == [o.name for o in r.options]
    for o, row in zip(r.options, frame.to_dict("records"), strict=True):
        assert row["total cash (USD)"] == o.total_cash_usd
        assert row["p95 wait (h)"] == o.waits.p95_h
        assert row["meets service level"] == r.verdicts[o.name].meets
        # The same break-even the terminal table prints.
        shown = answer.break_even_cell(r, o)
        if pd.isna(row["break-even month"]):
            assert shown == "-" or shown.startswith("never")
        else:
            assert shown == f"{row['break-even month']} vs {row['break-even against']}"
    assert len(repr(r)) < 300 and "Result(" in repr(r)
    assert all(len(repr(o)) < 120 for o in r.options)
    written = tco.write_report(r, tmp_path, formats=("json",))
    assert {p.name for p in written} == {"summary.json", "manifest.json"}
