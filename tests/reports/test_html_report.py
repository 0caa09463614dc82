"""report.html in a real browser (headless Chromium): at desktop width (1280 px) and phone width
(400 px) the page never scrolls sideways, every chart decodes and the comparison shows every
figure; printed (the print styles applied, Letter landscape: the narrower of Letter and A4) no
table is wider than the page, and the PDF Chromium prints holds every table's last column on
landscape pages, sections from new pages."""

from __future__ import annotations

import dataclasses
import re
from html import unescape
from pathlib import Path

import pytest

from tco.reports.build import write_report
from tco.simulator.engine.result import Result
from tco.simulator.run import run_file
from tests import browser
from tests.conftest import ROOT

# Letter landscape (279.4 mm) less print.css's 11 mm margins, in CSS px (96 per inch).
PRINT_WIDTH_PX = round((279.4 - 2 * 11) / 25.4 * 96)

LAYOUT = """({
  width: document.documentElement.clientWidth,
  page: document.documentElement.scrollWidth,
  images: document.images.length,
  decoded: [...document.images].filter(i => i.complete && i.naturalWidth > 0).length,
  sections: [...document.querySelectorAll("main > section > h2")].map(h => h.textContent),
  cells_off_screen: [...document.querySelectorAll("table.cards td")].filter(td =>
    td.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 ||
    td.getBoundingClientRect().width === 0).length,
  cells: document.querySelectorAll("table.cards td").length,
  scrolling: [...document.querySelectorAll("#comparison .scroll, #break-even .scroll")].filter(
    d => d.scrollWidth > d.clientWidth + 1).length,
  charts_wider: [...document.querySelectorAll(".chart img")].filter(i =>
    i.getBoundingClientRect().width > document.documentElement.clientWidth + 0.5).length,
  wide_tables: [...document.querySelectorAll("table")].filter(t =>
    t.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map(t =>
    t.querySelector("th").textContent),
})"""


WARNING = "no AWS credentials (SSO users: `aws sso login`): prices from the bundled snapshot"


@pytest.fixture(scope="module")
def lab() -> Result:
    # A run as the CLI makes it without credentials: with the warning it prints.
    return dataclasses.replace(run_file(ROOT / "scenarios" / "lab.yaml"), price_warnings=(WARNING,))


@pytest.fixture(scope="module")
def html(lab: Result, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("html")
    write_report(lab, out, formats=("html",))
    return (out / "report.html").read_text(encoding="utf-8")


def test_answer_first_then_warnings_in_their_own_box(html: str, lab: Result) -> None:
    heads = re.findall(r"<h2>([^<]*)</h2>", html)
    assert heads[:4] == [
        "The answer",
        "Warnings about this run",
        "Comparison",
        "Break-even: owning against renting",
    ]
    assert heads[-4:] == [
        "Prices and their sources",
        "Every price and cost figure used",
        "Assumptions",
        "What this model leaves out",
    ]
    # Sorted by cash, the recommendation highlighted (issue 29).
    comparison = html[
        html.index('<section id="comparison"') : html.index('<section id="break-even"')
    ]
    assert '<tr class="marked">' in comparison and "fleet-spot (recommended)" in comparison
    cash = [
        float(v.replace(",", ""))
        for v in re.findall(r'data-label="total cash \(USD\)" class="num">([\d,.]+)<', comparison)
    ]
    assert len(cash) == len(lab.options) and cash == sorted(cash)
    assert "<details>" in html  # the budgets of other options folded
    answer = html[html.index('<section id="answer"') : html.index('<section id="warnings"')]
    assert "Recommended: fleet-spot" in answer
    assert "AWS credentials" not in answer  # the warning is in its box, not in the answer
    box = html[html.index('<section id="warnings"') : html.index('<section id="comparison"')]
    assert 'class="box warnings"' in box and "AWS credentials" in box
    assert "Warning" not in answer
    assert '<meta name="viewport"' in html


def test_desktop_width_fits_and_every_chart_decodes(html: str, tmp_path: Path) -> None:
    got = browser.probe(html, LAYOUT, tmp_path, width=1280)
    assert got["page"] <= got["width"], got
    assert got["images"] >= 6 and got["decoded"] == got["images"], got
    assert got["scrolling"] == 0, "the comparison and break-even fit a desktop screen"
    assert got["sections"][0] == "The answer"


def test_phone_width_never_scrolls_the_page_and_shows_every_figure(
    html: str, lab: Result, tmp_path: Path
) -> None:
    got = browser.probe(html, LAYOUT, tmp_path, width=400, height=800)
    assert got["page"] <= got["width"], got  # wide tables scroll inside their own box
    assert got["cells"] == 10 * len(lab.options)  # the comparison: one card per option
    assert got["cells_off_screen"] == 0, got
    # Each chart whole at the width of the phone (issue 53: it showed its left half).
    assert got["images"] >= 6 and got["charts_wider"] == 0, got


def test_print_layout_clips_no_table(html: str, tmp_path: Path) -> None:
    printed = html.replace('<style media="print">', "<style>")
    assert printed != html
    got = browser.probe(printed, LAYOUT, tmp_path, width=PRINT_WIDTH_PX)
    assert got["wide_tables"] == [], got["wide_tables"]
    assert got["page"] <= got["width"], got


def test_printed_pdf_keeps_every_column_on_landscape_pages(html: str, tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    pdf = pypdf.PdfReader(browser.print_pdf(page, tmp_path / "report.pdf", tmp_path))
    new_pages = html.count('class="page"')
    assert len(pdf.pages) > new_pages
    words: list[str] = []
    for p in pdf.pages:
        width, height = float(p.mediabox.width), float(p.mediabox.height)
        assert width > height  # landscape
        xs: list[float] = []

        def visit(
            text: str, cm: list[float], tm: list[float], *_: object, xs: list[float] = xs
        ) -> None:
            if text.strip():
                xs.append(tm[4] * cm[0] + tm[5] * cm[2] + cm[4])

        words.append(p.extract_text(visitor_text=visit))
        assert all(0 <= x < width - 25 for x in xs), "text placed beyond the page's edge"
    text = re.sub(r"\s+", "", "".join(words))
    # Every table's last column is printed (a clipped table loses its last columns first).
    # Budgets other than the recommendation's and its runner-up's are folded (<details>): they
    # print folded too, which keeps the print to the decision.
    shown = re.sub(r"<details>.*?</details>", "", html, flags=re.S)
    last_headers = [
        unescape(re.findall(r'<th[^>]*scope="col">([^<]*)</th>', t)[-1])
        for t in re.findall(r"<thead>.*?</thead>", shown, flags=re.S)
    ]
    assert len(last_headers) > 5
    assert len(pdf.pages) <= 10  # the short print: the decision, its budgets, the sources
    # A section folded whole on screen is not printed as a page of folded headings: it is
    # named in one line at the end (issue 53).
    folded = re.findall(r'<section id="[^"]*" class="[^"]*folded[^"]*">\n<h2>([^<]*)</h2>', html)
    assert len(folded) >= 5 and "Budget: p4d-on-demand" in folded
    at = text.index("leftoutofthisprint")
    for title in (re.sub(r"\s+", "", unescape(f)) for f in folded):
        alone = re.escape(title) + r"(?![\w-])"  # own-8xA40, not own-8xA40-burst
        assert not re.search(alone, text[:at]) and re.search(alone, text[at:]), title
    missing = {h for h in last_headers if re.sub(r"\s+", "", h) not in text}
    assert missing == set()
