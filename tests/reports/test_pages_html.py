"""sweep.html, optimize.html and `tco compare --format html` are built like the report (issue
29): its template, styles, phone layout and print styles; a sentence at the top, no JSON; in
headless Chromium at 1280 and 400 px the page never scrolls sideways and every chart decodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.cli import main
from tco.pricing.book import PriceBook
from tco.reports import compare as diff
from tco.reports.sweep_files import write_sweep
from tco.simulator.run import prepare
from tco.simulator.scenario.model import load_scenario
from tco.simulator.sweep.run import run_sweep
from tests import browser
from tests.cli.test_compare import _pair
from tests.conftest import ROOT
from tests.reports.test_html_report import LAYOUT

LAB = ROOT / "scenarios" / "lab.yaml"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("pages")
    main(["optimize", str(LAB), "--out", str(out / "optimize"), "--quiet"])
    book = PriceBook("snapshot")
    prepared = prepare(load_scenario(LAB, book), book, str(LAB))
    write_sweep(prepared, run_sweep(prepared, book, 6), 20271, out / "sweep")
    old, new, _ = _pair(out)
    html = diff.to_html(diff.compare(diff.load(old), diff.load(new)))
    return {
        "optimize": (out / "optimize" / "optimize.html").read_text(encoding="utf-8"),
        "sweep": (out / "sweep" / "sweep.html").read_text(encoding="utf-8"),
        "compare": html,
    }


@pytest.mark.parametrize("name", ["optimize", "sweep", "compare"])
def test_built_like_the_report_with_a_sentence_first(pages: dict[str, str], name: str) -> None:
    html = pages[name]
    assert '<style media="print">' in html and 'name="viewport"' in html  # the report's
    head = html.split('<p class="headline">', 1)[1].split("</p>", 1)[0]
    assert head.endswith(".") and "{" not in head and "':" not in head  # words, not a dict
    if name == "optimize":
        assert head.startswith("Best: fleet-spot")
    if name == "compare":
        assert head.startswith("Recommended: ")


@pytest.mark.parametrize("name", ["optimize", "sweep", "compare"])
@pytest.mark.parametrize("width", [1280, 400])
def test_fits_the_screen_and_every_chart_decodes(
    pages: dict[str, str], name: str, width: int, tmp_path: Path
) -> None:
    got = browser.probe(pages[name], LAYOUT, tmp_path, width=width, height=800)
    assert got["page"] <= got["width"], got  # wide tables scroll in their own box
    assert got["decoded"] == got["images"] >= (name != "compare"), got
    assert got["sections"][0] == "The answer"
    assert got["cells_off_screen"] == 0, got
