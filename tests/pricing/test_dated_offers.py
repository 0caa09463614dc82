"""Every offer carries the date its price held (issue 42 part 4): the source's date, the date a
dated third party quoted the same price, or the day the row was copied (an upper bound, said
so); `tco catalog gpus` shows it and flags prices over a year old, prints JSON and CSV for
scripts, and fits 80 and 100 columns (issue 43 part 5); a scenario may ask for offers no older
than a date."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import date
from typing import Any

import pytest

from tco.cli import main
from tco.pricing import offers_view, providers
from tco.pricing.book import PriceBook
from tco.pricing.providers import snapshot as clouds
from tco.simulator.core.errors import ScenarioError
from tco.simulator.engine.simulate import prepare
from tco.simulator.scenario.model import loads_scenario
from tests.conftest import ROOT, cloud_plan, make_scenario

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def test_every_offer_of_every_provider_has_a_date_and_says_how_it_is_known() -> None:
    offers = [o for p in providers.names() if p != providers.AWS for o in providers.get(p).offers()]
    assert offers
    for o in offers:
        assert ISO.match(o.as_of), (o.name, o.as_of)
        assert o.dated_by.split(":")[0] in ("source", "agreed", "copied"), o.dated_by
    # The cross-checks of the shared README date the rows a dated third party agreed with.
    lam = providers.get("lambda").offer("gpu_8x_h100_sxm5", "us-east-1")
    assert (lam.as_of, lam.date_known) == ("2026-09-20", True)
    assert "api-evangelist/lambda-labs" in lam.dated_by
    # CoreWeave's page was read 2026-09-20 and its H100 price quoted again 2026-10-24.
    cw = {o.instance_type: o for o in providers.get("coreweave").offers()}
    assert cw["HGX H100 (8x)"].as_of == "2026-10-24" and cw["A100 (8x)"].as_of == "2026-09-20"
    # A row copied from SkyPilot's catalogue is dated by the copy, an upper bound, and says so.
    neb = providers.get("nebius").offers()[0]
    assert (neb.as_of, neb.date_known) == ("2026-12-01", False)
    assert "commit's date is unknown" in neb.dated_by


def test_the_snapshot_refuses_an_offer_without_its_date() -> None:
    doc = json.loads(json.dumps(clouds.load()))
    region = next(iter(doc["providers"]["lambda"].values()))
    del next(iter(region.values()))["dated_by"]
    with pytest.raises(ValueError, match="dated_by missing"):
        clouds.check(doc, "test")


def _catalog(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    main(["catalog", "gpus", "H100:8", *args])
    return capsys.readouterr().out


@pytest.mark.parametrize("width", [80, 100])
def test_catalog_gpus_fits_the_terminal_and_dates_every_row(
    width: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    out = _catalog(capsys)
    table, note = out.rstrip("\n").rsplit("\n", 1)
    lines = table.split("\n")
    assert max(len(line.rstrip()) for line in lines) <= width
    rows = [line for line in lines[2:] if line.strip()]
    assert len(rows) == len(offers_view.rows("H100:8"))
    assert all(re.search(r"(<=)?\d{4}-\d{2}-\d{2}", r) for r in rows)  # a date on every row
    p5 = next(r for r in rows if r.startswith("p5.48xlarge"))
    old = (date.today() - date(2025, 11, 30)).days > offers_view.STALE_DAYS
    assert ("2025-11-30 old" in p5) == old
    assert "<=2026-12-01" in out and "commit dates were not read" in note


def test_catalog_gpus_as_json_and_csv_has_every_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = json.loads(_catalog(capsys, "--format", "json"))
    offers = data["offers"]
    assert len(offers) == len(offers_view.rows("H100:8"))
    first = offers[0]
    assert {"instance_type", "usd_per_gpu_hour", "as_of", "dated_by", "source", "stale"} <= set(
        first
    )
    assert [o["usd_per_gpu_hour"] for o in offers] == sorted(o["usd_per_gpu_hour"] for o in offers)
    rows = list(csv.DictReader(io.StringIO(_catalog(capsys, "--format", "csv"))))
    assert [r["instance_type"] for r in rows] == [o["instance_type"] for o in offers]
    main(["catalog", "servers", "--format", "json"])  # any listing, every field (0.21.0: exit 2)
    servers = json.loads(capsys.readouterr().out)["rows"]
    assert servers and all(s["source"] and s["server"] for s in servers)


def test_the_terminal_shows_every_instance_name_whole_and_no_folded_sources(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name is what a scenario must name: never cut (0.21.0: "nebius:gpu-h100-sxm_8gpu…").
    A source is read in csv/json: the GPU table was 713 lines of folded addresses."""
    monkeypatch.setenv("COLUMNS", "80")
    out = _catalog(capsys)
    assert all(r.instance_type in out for r in offers_view.rows("H100:8"))
    assert "…" not in out
    main(["catalog", "gpus"])
    listed = capsys.readouterr().out
    assert len(listed.splitlines()) < 60 and "http" not in listed and "--format csv" in listed
    main(["catalog", "gpus", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) >= 10 and all(r["source"] for r in rows)


def _h100_fleet(**gpus: Any) -> dict[str, Any]:
    return {"name": "fleet", "kind": "on_demand", "gpus": {"model": "H100 SXM", **gpus}}


H100_JOB = {
    "job_classes": [
        {
            "name": "train",
            "arrivals_per_month": 4,
            "gpus": 8,
            "memory_gb": 40,
            "work": {"reference_gpu": "H100 SXM", "gpu_hours": 400},
        }
    ]
}


def test_offers_since_keeps_prices_known_to_hold_then() -> None:
    book = PriceBook("snapshot")
    sc = make_scenario(workload=H100_JOB, options=[_h100_fleet(offers_since="2026-09-01")])
    shapes = {s.name for s in cloud_plan(prepare(sc, book).plans[0]).shapes}
    for name in shapes:
        as_of, known = book.dated(name, sc.region)
        assert known and as_of >= "2026-09-01", name
    assert "lambda:gpu_8x_h100_sxm5" in shapes and "p5.48xlarge" not in shapes
    everything = make_scenario(workload=H100_JOB, options=[_h100_fleet()])
    assert len(cloud_plan(prepare(everything, book).plans[0]).shapes) > len(shapes)


def test_offers_since_that_leaves_nothing_is_refused_with_why() -> None:
    fleet = _h100_fleet(providers=["nebius"], offers_since="2026-01-01")
    with pytest.raises(ScenarioError, match=r"options\[0\]\.gpus.*dated only by 2026-12-01"):
        prepare(make_scenario(workload=H100_JOB, options=[fleet]), PriceBook("snapshot"))


def test_catalog_candidates_take_offers_since(tmp_path: Any) -> None:
    text = (ROOT / "scenarios" / "lab.yaml").read_text()
    sc = loads_scenario(text + "\ncandidates: {offers_since: 2026-09-01}\n", str(tmp_path / "s"))
    assert sc.candidates is not None and sc.candidates.offers_since == "2026-09-01"
    with pytest.raises(ScenarioError, match=r"candidates\.offers_since"):
        loads_scenario(text + "\ncandidates: {offers_since: last year}\n", str(tmp_path / "s"))


def test_prices_show_as_json_and_csv(capsys: pytest.CaptureFixture[str]) -> None:
    main(["prices", "show", "nebius:gpu-h100-sxm_8gpu-128vcpu-1600gb", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["instance_type"].startswith("nebius:") and doc["rows"]
    assert all(set(r) == {"what", "value", "source"} for r in doc["rows"])
    assert "copied 2026-12-01, its own date unknown" in doc["rows"][0]["source"]
    main(["prices", "show", "p4d.24xlarge", "--format", "csv", "--prices", "snapshot"])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows[0]["what"] == "instance" and "as of 2025-11-30" in rows[0]["source"]
