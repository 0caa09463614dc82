"""Prices AWS quotes in another currency are converted, never mixed: AWS China quotes CNY.

The live path runs offline for cn-north-1: moto answers EC2 (it serves the China partition's
endpoints), and the replay serves a China price list made from us-east-1's p4d entry with every
price times the rate, quoted in CNY on the wire. Converted back at that rate, a China run must
equal the us-east-1 run to rounding: the conversion is exact and applied once.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tco.pricing import aws, replay, snapshot
from tco.pricing.book import PriceBook
from tco.pricing.cache import PriceCache
from tco.pricing.errors import UnknownPrice
from tco.pricing.offline import offline_session
from tco.pricing.records import FxRate
from tco.simulator.core.errors import ScenarioError
from tco.simulator.run import run
from tests.conftest import make_scenario

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
P4D, CN = "p4d.24xlarge", "cn-north-1"
RATE = 7.2  # CNY per USD: a test figure
CNY = {"CNY": FxRate("CNY", RATE, "2026-11-27", "test rate")}


def _wire_in_cny(real: Any) -> Any:
    """A replay handler whose answer quotes every USD figure of a China request in CNY."""

    def handler(request: Any, **kw: Any) -> Any:
        answer = real(request, **kw)
        if ".cn" not in request.url and CN not in str(request.body):
            return answer
        body = json.loads(answer.raw.read())
        if "PriceList" in body:
            body["PriceList"] = [i.replace('"USD"', '"CNY"') for i in body["PriceList"]]
        for row in body.get("searchResults", []):
            row["savingsPlanOffering"]["currency"] = "CNY"
        return replay.response(request.url, json.dumps(body).encode())

    return handler


def _china(monkeypatch: pytest.MonkeyPatch, wire_cny: bool = True) -> Iterator[Any]:
    base = snapshot.entry(P4D, "us-east-1")
    assert base is not None and base.on_demand_usd_per_hour and base.spot_min_usd_per_hour
    china = dataclasses.replace(
        base,
        on_demand_usd_per_hour=base.on_demand_usd_per_hour * RATE,
        spot_min_usd_per_hour=base.spot_min_usd_per_hour * RATE,
        spot_avg_usd_per_hour=(base.spot_avg_usd_per_hour or 0) * RATE,
        spot_max_usd_per_hour=(base.spot_max_usd_per_hour or 0) * RATE,
        reserved={k: v * RATE for k, v in base.reserved.items()},
    )
    entry, regions, types = snapshot.entry, snapshot.regions, snapshot.instance_types
    monkeypatch.setattr(
        snapshot, "entry", lambda t, r: china if (t, r) == (P4D, CN) else entry(t, r)
    )
    monkeypatch.setattr(snapshot, "regions", lambda: [*regions(), CN])
    monkeypatch.setattr(snapshot, "instance_types", lambda r=None: [P4D] if r == CN else types(r))
    with offline_session() as session:
        if wire_cny:
            event = "before-send.pricing.GetProducts"
            session.events.unregister(event, replay.HANDLERS[event])
            session.events.register_first(event, _wire_in_cny(replay.get_products))
        yield session


@pytest.fixture
def china(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    yield from _china(monkeypatch)


def test_aws_china_is_quoted_in_cny() -> None:
    assert aws.quote_currency("cn-north-1") == aws.quote_currency("cn-northwest-1") == "CNY"
    assert aws.quote_currency("us-east-1") == aws.quote_currency("us-gov-west-1") == "USD"


def test_a_china_answer_is_kept_in_cny_and_converted_when_asked(china: Any, tmp_path: Any) -> None:
    base = snapshot.entry(P4D, "us-east-1")
    assert base is not None and base.on_demand_usd_per_hour is not None
    entry, warnings = aws.fetch_entry(china, P4D, CN, NOW)
    assert entry.currency == "CNY" and not warnings
    assert entry.on_demand_usd_per_hour == pytest.approx(base.on_demand_usd_per_hour * RATE)
    assert entry.reserved == pytest.approx({k: v * RATE for k, v in base.reserved.items()})

    book = PriceBook("live", session=china, cache=PriceCache(tmp_path), now=NOW)
    with pytest.raises(UnknownPrice, match=r"quoted in CNY .* set the scenario's currency: CNY"):
        book.on_demand(P4D, CN)  # no rate: never read as USD
    price = book.converting(CNY).on_demand(P4D, CN)
    assert price.usd_per_hour == pytest.approx(base.on_demand_usd_per_hour, rel=1e-12)
    assert "CNY/h at 7.2 CNY per USD as of 2026-11-27 (test rate)" in price.detail
    spot = book.converting(CNY).spot(P4D, CN)
    assert spot.usd_per_hour == pytest.approx(base.spot_min_usd_per_hour or 0, rel=1e-12)
    assert "the API names no currency: taken as CNY" in spot.detail
    key = "3yr/standard/No Upfront"
    r = book.converting(CNY).reserved(P4D, CN, 3, "standard", "No Upfront")
    assert r.usd_per_hour == pytest.approx(base.reserved[key], rel=1e-9)

    # The cache keeps CNY, not a converted figure: a later run at another rate converts anew.
    later = PriceBook("cache", cache=PriceCache(tmp_path), now=NOW)
    doubled = {"CNY": FxRate("CNY", 2 * RATE, "2026-12-01", "another")}
    again = later.converting(doubled).on_demand(P4D, CN)
    assert again.usd_per_hour == pytest.approx(base.on_demand_usd_per_hour / 2, rel=1e-12)


def test_a_usd_figure_in_a_china_answer_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    for session in _china(monkeypatch, wire_cny=False):  # the wire says USD for a CNY region
        entry, warnings = aws.fetch_entry(session, P4D, CN, NOW)
        assert entry.on_demand_usd_per_hour is None
        assert "quoted in USD, not CNY" in warnings[0]


def _scenario(region: str, currency: str) -> Any:
    money: dict[str, Any] = {"currency": currency}
    if currency != "USD":
        money["exchange_rate"] = {"per_usd": RATE, "as_of": "2026-11-27", "source": "test rate"}
    options = [
        {"name": "od", "kind": "on_demand", "instance_type": P4D},
        {"name": "spot", "kind": "spot", "instance_type": P4D},
    ]
    return make_scenario(region=region, options=options, **money)


def test_a_china_scenario_costs_what_the_same_prices_in_usd_cost(china: Any) -> None:
    """cn-north-1 at CNY = 7.2 x us-east-1's prices, reported in CNY at 7.2: every option's cash
    in USD equals the us-east-1 run's, so the CNY report shows the CNY quotes times the hours."""
    cn = run(_scenario(CN, "CNY"), PriceBook("live", session=china, now=NOW))
    us = run(_scenario("us-east-1", "USD"), PriceBook("snapshot", now=NOW))
    for a, b in zip(cn.options, us.options, strict=True):
        assert a.total_cash_usd == pytest.approx(b.total_cash_usd, rel=1e-12)
    assert any("CNY/h at 7.2 CNY per USD" in q.detail for q in cn.options[0].quotes)


def test_a_china_scenario_reported_in_usd_says_what_to_give(china: Any) -> None:
    with pytest.raises(ScenarioError) as e:
        run(_scenario(CN, "USD"), PriceBook("live", session=china, now=NOW))
    message = str(e.value)
    assert "options[0].usd_per_hour: " in message and "quoted in CNY" in message
    assert "exchange_rate" in message and "\n" not in message


def test_a_usd_snapshot_leaves_a_china_region_out(china: Any) -> None:
    from tco.pricing.refresh import build_snapshot

    book = PriceBook("live", session=china, now=NOW)
    doc = build_snapshot(book, ["us-east-1", CN], [P4D])
    assert doc["currency"] == "USD" and list(doc["regions"]) == ["us-east-1"]
    assert doc["provenance"]["missing"] == f"{P4D} in {CN}"
    assert any("quoted in CNY" in w for w in book.warnings)
