"""The live AWS path, end to end, with no network: moto for EC2, replayed wire answers for the
Price List and Savings Plans APIs, and injected faults through botocore's event system."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError, ReadTimeoutError

from tco.pricing import aws, replay, snapshot
from tco.pricing.book import PriceBook
from tco.pricing.cache import CACHE_SCHEMA, PriceCache
from tco.pricing.errors import PricingError
from tco.pricing.offline import offline_session
from tests.conftest import FIXTURES

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
M5 = json.loads(
    (
        FIXTURES / "aws" / "pricing_get_products_item_m5.large_us-east-1__aws-ec2-"
        "instance-selector.json"
    ).read_text()
)


@pytest.fixture
def session() -> Iterator[Any]:
    with offline_session() as s:
        yield s


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    # botocore sleeps between retries; the tests count attempts, they need not wait.
    import botocore.endpoint

    monkeypatch.setattr(botocore.endpoint.time, "sleep", lambda _s: None)


def _error(request: Any, code: str, status: int = 400) -> Any:
    body = json.dumps({"__type": code, "message": f"injected {code}"}).encode()
    return replay.response(request.url, body, status)


def _inject(session: Any, event: str, handler: Callable[..., Any]) -> None:
    """Answer ``event`` with ``handler`` instead of the replay (which would answer first)."""
    session.events.unregister(event, replay.HANDLERS[event])
    session.events.register_first(event, handler)


# ------------------------------------------------------------------ parsing real samples


def test_real_m5_large_item_on_demand_and_12_reserved_terms() -> None:
    assert aws.on_demand_usd(M5) == 0.096
    got = aws.reserved_terms(M5)
    y1, y3 = 8760.0, 3 * 8760.0
    expected = {  # hourly + upfront / hours, from the item's price dimensions
        "1yr/standard/No Upfront": 0.06,
        "1yr/standard/Partial Upfront": 0.029 + 252 / y1,
        "1yr/standard/All Upfront": 494 / y1,
        "1yr/convertible/No Upfront": 0.071,
        "1yr/convertible/Partial Upfront": 0.034 + 294 / y1,
        "1yr/convertible/All Upfront": 577 / y1,
        "3yr/standard/No Upfront": 0.041,
        "3yr/standard/Partial Upfront": 0.019 + 505 / y3,
        "3yr/standard/All Upfront": 949 / y3,
        "3yr/convertible/No Upfront": 0.049,
        "3yr/convertible/Partial Upfront": 0.023 + 592 / y3,
        "3yr/convertible/All Upfront": 1161 / y3,
    }
    assert got.keys() == expected.keys()
    for k, v in expected.items():
        assert got[k] == pytest.approx(v, abs=1e-9), k


def test_real_m5_item_is_selected() -> None:
    assert aws.select_on_demand([M5], "m5.large", "us-east-1") is M5


def _variant(
    capacity: str | None = None, market: str | None = None, usd: str | None = None, sku: str = "X"
) -> dict[str, Any]:
    item = copy.deepcopy(M5)
    attrs = item["product"]["attributes"]
    item["product"]["sku"] = sku
    if capacity:
        attrs["capacitystatus"] = capacity
    if market:
        attrs["marketoption"] = market
    if usd is not None:
        for term in item["terms"]["OnDemand"].values():
            for dim in term["priceDimensions"].values():
                dim["pricePerUnit"]["USD"] = usd
    return dict(item)


def test_selection_skips_capacity_reservation_and_zero_capacity_block() -> None:
    reservation = _variant(capacity="UnusedCapacityReservation", sku="RES")
    block = _variant(market="CapacityBlock", usd="0.0000000000", sku="BLOCK")
    real = _variant(market="OnDemand", sku="REAL")
    picked = aws.select_on_demand([reservation, block, real], "m5.large", "us-east-1")
    assert picked["product"]["sku"] == "REAL"


def test_two_real_rows_is_an_error_naming_both() -> None:
    a, b = _variant(sku="SKU-A"), _variant(sku="SKU-B", usd="0.1")
    with pytest.raises(aws.LivePriceError, match="refusing to guess") as exc:
        aws.select_on_demand([a, b], "m5.large", "us-east-1")
    assert "SKU-A" in str(exc.value) and "SKU-B" in str(exc.value)


# ------------------------------------------------------------------ end to end under moto


def test_moto_instance_spec_p4d(session: Any) -> None:
    ec2 = session.client("ec2", region_name="us-east-1")
    spec = aws.instance_spec(ec2, "p4d.24xlarge")
    assert (spec.aws_gpu_name, spec.gpu_count, spec.gpu_memory_gib) == ("A100", 8, 40.0)
    assert spec.gpu_model == "A100 SXM 40GB"


@pytest.mark.parametrize("region", ["us-east-1", "us-west-2"])
def test_live_path_offline_reproduces_the_snapshot(session: Any, region: str) -> None:
    for itype in ("p4d.24xlarge", "p5.48xlarge", "g5.xlarge", "g4dn.metal"):
        got, _ = aws.fetch_entry(session, itype, region, NOW)
        want = snapshot.entry(itype, region)
        assert want is not None
        assert got.on_demand_usd_per_hour == want.on_demand_usd_per_hour
        assert got.reserved == pytest.approx(want.reserved)
        assert got.spot_min_usd_per_hour == want.spot_min_usd_per_hour
        # the mean and highest over the AZs the replay answers with (6 decimals on the wire)
        assert got.spot_avg_usd_per_hour == pytest.approx(want.spot_avg_usd_per_hour, abs=1e-6)
        assert got.spot_max_usd_per_hour == want.spot_max_usd_per_hour
        assert got.savings_plans is None  # unknown stays unknown
        assert got.spec.gpu_model == want.spec.gpu_model
        assert got.spec.bare_metal == want.spec.bare_metal


def test_filters_exclude_decoys_server_side(session: Any) -> None:
    client = session.client("pricing", region_name="us-east-1")
    items = list(aws.iter_products(client, "p4d.24xlarge", "us-east-1"))
    assert len(items) == 1  # the replay also serves a reservation row and a capacity block
    assert len(replay.price_list("us-east-1")) > 3 * len(items)


def test_p5e_has_no_on_demand_product_but_keeps_what_was_fetched(session: Any) -> None:
    entry, warnings = aws.fetch_entry(session, "p5e.48xlarge", "us-east-1", NOW)
    assert entry.on_demand_usd_per_hour is None
    assert entry.spec.gpu_count == 8 and entry.spec.gpu_model is not None
    want = snapshot.entry("p5e.48xlarge", "us-east-1")
    assert want is not None and entry.spot_min_usd_per_hour == want.spot_min_usd_per_hour
    assert len(warnings) == 1 and "no Linux on-demand box-usage product" in warnings[0]


def test_unknown_instance_type_is_one_clear_line(session: Any) -> None:
    with pytest.raises(aws.LivePriceError, match="InvalidInstanceType"):
        aws.fetch_entry(session, "p9.nope", "us-east-1", NOW)


def test_pricing_endpoint_always_exists() -> None:
    assert aws.pricing_endpoint("us-west-2") == "us-east-1"
    assert aws.pricing_endpoint("eu-west-1") == "eu-central-1"
    assert aws.pricing_endpoint("ap-northeast-1") == "ap-south-1"
    assert {aws.pricing_endpoint(r) for r in boto3.Session().get_available_regions("ec2")} <= set(
        boto3.Session().get_available_regions("pricing")
    )


# ------------------------------------------------------------------ pagination


def test_get_products_pagination_over_several_pages(session: Any) -> None:
    tokens: list[str | None] = []
    items = [
        json.dumps(_variant(sku=f"S{i}", capacity="UnusedCapacityReservation")) for i in range(4)
    ] + [json.dumps(_variant(sku="REAL"))]

    def pages(request: Any, **_: Any) -> Any:
        body = json.loads(request.body)
        tokens.append(body.get("NextToken"))
        i = int(body.get("NextToken") or 0)
        out: dict[str, Any] = {"FormatVersion": "aws_v1", "PriceList": items[i : i + 2]}
        if i + 2 < len(items):
            out["NextToken"] = str(i + 2)
        return replay.response(request.url, json.dumps(out).encode())

    _inject(session, "before-send.pricing.GetProducts", pages)
    client = session.client("pricing", region_name="us-east-1")
    got = list(aws.iter_products(client, "m5.large", "us-east-1"))
    assert tokens == [None, "2", "4"]
    assert len(got) == 5
    assert aws.select_on_demand(got, "m5.large", "us-east-1")["product"]["sku"] == "REAL"


def _sp_row(
    rate: str, plan: str = "Compute", years: int = 1, pay: str = "No Upfront"
) -> dict[str, Any]:
    return {
        "savingsPlanOffering": {
            "offeringId": "o",
            "paymentOption": pay,
            "planType": plan,
            "durationSeconds": 31_536_000 * years,
            "currency": "USD",
        },
        "rate": rate,
        "unit": "Hrs",
        "usageType": "BoxUsage:p4d.24xlarge",
        "productType": "EC2",
        "serviceCode": "AmazonEC2",
        "operation": "RunInstances",
        "properties": [
            {"name": "region", "value": "us-east-1"},
            {"name": "instanceType", "value": "p4d.24xlarge"},
            {"name": "tenancy", "value": "shared"},
            {"name": "productDescription", "value": "Linux/UNIX"},
        ],
    }


def test_savings_plan_rows_are_checked_not_trusted(session: Any) -> None:
    """A server that ignored a filter must not let another region's, tenancy's, system's or
    currency's row in."""
    good = _sp_row("15.1")
    spoiled = []
    for name, value in (
        ("region", "eu-west-1"),
        ("instanceType", "p5.48xlarge"),
        ("tenancy", "dedicated"),
        ("productDescription", "Windows"),
    ):
        row = copy.deepcopy(_sp_row("1.0", pay="All Upfront"))
        row["properties"] = [
            {"name": p["name"], "value": value if p["name"] == name else p["value"]}
            for p in row["properties"]
        ]
        spoiled.append(row)
    cny = copy.deepcopy(_sp_row("2.0", pay="Partial Upfront"))
    cny["savingsPlanOffering"]["currency"] = "CNY"
    client = _sp_answer(session, [good, *spoiled, cny])
    assert aws.savings_plan_rates(client, "p4d.24xlarge", "us-east-1") == {
        "Compute/1yr/No Upfront": 15.1
    }


def test_savings_plans_next_token_loop(session: Any) -> None:
    pages = {
        None: ([_sp_row("15.1")], "t1"),
        "t1": ([_sp_row("9.5", "EC2Instance", 3)], "t2"),
        "t2": ([_sp_row("14.0", pay="All Upfront")], None),
    }
    calls = []

    def handler(request: Any, **_: Any) -> Any:
        token = json.loads(request.body).get("nextToken")
        calls.append(token)
        rows, nxt = pages[token]
        out: dict[str, Any] = {"searchResults": rows}
        if nxt:
            out["nextToken"] = nxt
        return replay.response(
            request.url, json.dumps(out).encode(), content_type="application/json"
        )

    _inject(session, "before-send.savingsplans.DescribeSavingsPlansOfferingRates", handler)
    client = session.client("savingsplans", region_name="us-east-1")
    rates = aws.savings_plan_rates(client, "p4d.24xlarge", "us-east-1")
    assert calls == [None, "t1", "t2"]
    assert rates == {
        "Compute/1yr/All Upfront": 14.0,
        "Compute/1yr/No Upfront": 15.1,
        "EC2Instance/3yr/No Upfront": 9.5,
    }


def test_savings_plans_repeated_token_stops(session: Any) -> None:
    calls = []

    def handler(request: Any, **_: Any) -> Any:
        calls.append(1)
        out = {"searchResults": [_sp_row("1.0")], "nextToken": "same"}
        return replay.response(
            request.url, json.dumps(out).encode(), content_type="application/json"
        )

    _inject(session, "before-send.savingsplans.DescribeSavingsPlansOfferingRates", handler)
    client = session.client("savingsplans", region_name="us-east-1")
    with pytest.raises(aws.LivePriceError, match="repeated a nextToken"):
        aws.savings_plan_rates(client, "p4d.24xlarge", "us-east-1")
    assert len(calls) == 2


# ------------------------------------------------------------------ faults


def test_throttling_then_success_is_retried(session: Any) -> None:
    attempts = []

    def flaky(request: Any, **_: Any) -> Any:
        attempts.append(1)
        if len(attempts) == 1:
            return _error(request, "ThrottlingException")
        return replay.get_products(request)

    _inject(session, "before-send.pricing.GetProducts", flaky)
    entry, _ = aws.fetch_entry(session, "p4d.24xlarge", "us-east-1", NOW)
    assert entry.on_demand_usd_per_hour == 21.957642
    assert len(attempts) == 2


def test_throttling_that_never_ends_is_bounded(session: Any) -> None:
    attempts = []

    def throttled(request: Any, **_: Any) -> Any:
        attempts.append(1)
        return _error(request, "ThrottlingException")

    _inject(session, "before-send.pricing.GetProducts", throttled)
    assert "throttled" in _on_demand_unknown(session)
    assert len(attempts) == aws.MAX_ATTEMPTS


def test_timeouts_are_retried_then_reported(session: Any) -> None:
    attempts = []

    def slow(request: Any, **_: Any) -> Any:
        attempts.append(1)
        raise ReadTimeoutError(endpoint_url=request.url)

    _inject(session, "before-send.pricing.GetProducts", slow)
    assert "cannot reach AWS" in _on_demand_unknown(session)
    assert len(attempts) > 1


def test_malformed_json_item(session: Any) -> None:
    def bad(request: Any, **_: Any) -> Any:
        body = {"FormatVersion": "aws_v1", "PriceList": ["{not json"]}
        return replay.response(request.url, json.dumps(body).encode())

    _inject(session, "before-send.pricing.GetProducts", bad)
    assert "not valid JSON" in _on_demand_unknown(session)


def test_empty_results(session: Any) -> None:
    def empty(request: Any, **_: Any) -> Any:
        return replay.response(request.url, b'{"FormatVersion": "aws_v1", "PriceList": []}')

    _inject(session, "before-send.pricing.GetProducts", empty)
    assert "no products at all" in _on_demand_unknown(session)


def _on_demand_unknown(session: Any) -> str:
    """Fetch p4d with the Price List answer spoiled: the rest is kept, the reason is a warning."""
    entry, warnings = aws.fetch_entry(session, "p4d.24xlarge", "us-east-1", NOW)
    assert entry.on_demand_usd_per_hour is None and entry.spec.gpu_count == 8
    assert len(warnings) == 1
    return warnings[0]


def _denied(session: Any) -> None:
    _inject(
        session,
        "before-send.pricing.GetProducts",
        lambda request, **_: _error(request, "AccessDeniedException"),
    )


def test_access_denied_stops_in_live_mode(session: Any, tmp_path: Any) -> None:
    _denied(session)
    book = PriceBook("live", session=session, cache=PriceCache(tmp_path), now=NOW)
    with pytest.raises(PricingError, match=r"on-demand price of p4d.*access denied") as exc:
        book.on_demand("p4d.24xlarge", "us-east-1")
    assert "\n" not in str(exc.value)
    assert book.spec("p4d.24xlarge", "us-east-1").gpu_count == 8  # what was fetched is kept


def test_access_denied_falls_back_in_auto_mode_with_a_warning(session: Any, tmp_path: Any) -> None:
    _denied(session)
    book = PriceBook("auto", session=session, cache=PriceCache(tmp_path), now=NOW)
    p = book.on_demand("p4d.24xlarge", "us-east-1")
    assert p.source == "snapshot" and p.usd_per_hour == 21.957642
    assert any("access denied" in w and "bundled AWS snapshot" in w for w in book.warnings)


def test_no_credentials(tmp_path: Any) -> None:
    bare = boto3.Session(region_name="us-east-1")
    assert bare.get_credentials() is None  # the autouse fixture hides every credential
    auto = PriceBook("auto", session=bare, cache=PriceCache(tmp_path), now=NOW)
    assert auto.on_demand("p4d.24xlarge", "us-east-1").source == "snapshot"
    assert any("no AWS credentials" in w for w in auto.warnings)
    live = PriceBook("live", session=bare, cache=PriceCache(tmp_path), now=NOW)
    with pytest.raises(aws.LivePriceError, match="no AWS credentials found"):
        live.on_demand("p4d.24xlarge", "us-east-1")


# ------------------------------------------------------------------ cache


def test_live_answers_are_cached_and_reused_within_the_ttl(session: Any, tmp_path: Any) -> None:
    cache = PriceCache(tmp_path)
    first = PriceBook("live", session=session, cache=cache, now=NOW)
    assert first.on_demand("p4d.24xlarge", "us-east-1").source == "aws-api"
    doc = json.loads(cache.path("p4d.24xlarge", "us-east-1").read_text())
    assert doc["schema"] == CACHE_SCHEMA and doc["fetched_at"].startswith("2026-11-29")
    assert not list(tmp_path.rglob("*.tmp"))  # atomic write left nothing behind

    _denied(session)  # any live call would now fail
    later = PriceBook("auto", session=session, cache=cache, now=NOW + dt.timedelta(days=6))
    p = later.on_demand("p4d.24xlarge", "us-east-1")
    assert p.source == "cache" and p.as_of == "2026-11-29" and not later.warnings

    stale = PriceBook("auto", session=session, cache=cache, now=NOW + dt.timedelta(days=8))
    p = stale.on_demand("p4d.24xlarge", "us-east-1")
    assert p.source == "cache"  # refetch was tried, failed, and the stale entry is used, loudly
    assert any("live prices failed" in w and "cached AWS answer" in w for w in stale.warnings)

    offline_cache_only = PriceBook(
        "cache", session=session, cache=cache, now=NOW + dt.timedelta(days=30)
    )
    assert offline_cache_only.on_demand("p4d.24xlarge", "us-east-1").usd_per_hour == 21.957642
    assert any("older than the cache TTL" in w for w in offline_cache_only.warnings)


def test_corrupt_cache_is_reported_and_ignored(tmp_path: Any) -> None:
    cache = PriceCache(tmp_path)
    p = cache.path("p4d.24xlarge", "us-east-1")
    p.parent.mkdir(parents=True)
    p.write_text('{"schema": "tco-price-cache/1", "entry": ')
    book = PriceBook("cache", cache=cache, now=NOW)
    with pytest.raises(PricingError, match=r"no usable cached prices .*is corrupt"):
        book.on_demand("p4d.24xlarge", "us-east-1")
    assert any("corrupt" in w and str(p) in w for w in book.warnings)


def _sp_answer(session: Any, rows: list[dict[str, Any]]) -> Any:
    def handler(request: Any, **_: Any) -> Any:
        body = json.dumps({"searchResults": rows}).encode()
        return replay.response(request.url, body, content_type="application/json")

    _inject(session, "before-send.savingsplans.DescribeSavingsPlansOfferingRates", handler)
    return session.client("savingsplans", region_name="us-east-1")


def test_savings_plans_skip_licensed_operating_systems(session: Any) -> None:
    windows = {**_sp_row("30.0"), "operation": "RunInstances:0002"}
    client = _sp_answer(session, [_sp_row("15.1"), windows])
    assert aws.savings_plan_rates(client, "p4d.24xlarge", "us-east-1") == {
        "Compute/1yr/No Upfront": 15.1
    }


def test_savings_plans_refuse_conflicting_rates(session: Any) -> None:
    client = _sp_answer(session, [_sp_row("15.1"), _sp_row("99.0")])
    with pytest.raises(aws.LivePriceError, match="refusing to guess"):
        aws.savings_plan_rates(client, "p4d.24xlarge", "us-east-1")


# --------------------------------------------------- partitions, accelerators, faults


def test_each_partition_is_sent_to_its_own_price_list_endpoint() -> None:
    """From botocore's endpoints.json: api.pricing answers in cn-northwest-1 for China and has
    no endpoint in GovCloud."""
    assert aws.pricing_endpoint("eu-west-1") == "eu-central-1"
    assert aws.pricing_endpoint("ap-northeast-1") == "ap-south-1"
    assert aws.pricing_endpoint("cn-north-1") == "cn-northwest-1"
    with pytest.raises(aws.LivePriceError, match="no endpoint in the aws-us-gov partition"):
        aws.pricing_endpoint("us-gov-west-1")
    assert aws.partition("us-gov-east-1") == "aws-us-gov" and aws.partition("sa-east-1") == "aws"


class _Ec2:
    """An EC2 client answering describe_instance_types with a recorded-shape Trainium entry."""

    def describe_instance_types(self, **_: Any) -> dict[str, Any]:
        return {
            "InstanceTypes": [
                {
                    "InstanceType": "trn1.32xlarge",
                    "VCpuInfo": {"DefaultVCpus": 128},
                    "MemoryInfo": {"SizeInMiB": 524288},
                    "BareMetal": False,
                    "NeuronInfo": {
                        "NeuronDevices": [
                            {"Count": 16, "Name": "Trainium", "MemoryInfo": {"SizeInMiB": 32768}}
                        ],
                        "TotalNeuronDeviceMemoryInMiB": 524288,
                    },
                }
            ]
        }


def test_trainium_accelerators_come_from_neuron_info() -> None:
    spec = aws.instance_spec(_Ec2(), "trn1.32xlarge")
    want = snapshot.entry("trn1.32xlarge", "us-east-1")
    assert want is not None
    assert (spec.aws_gpu_name, spec.gpu_count, spec.gpu_memory_gib) == ("Trainium", 16, 32.0)
    assert spec == want.spec  # a regenerated snapshot keeps 16 x Trainium


def test_a_missing_aws_profile_is_one_line_live_and_a_fallback_in_auto(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_PROFILE", "does-not-exist")
    live = PriceBook("live", cache=PriceCache(tmp_path), now=NOW)
    with pytest.raises(PricingError, match="does-not-exist") as exc:
        live.on_demand("p4d.24xlarge", "us-east-1")
    assert "\n" not in str(exc.value)
    auto = PriceBook("auto", cache=PriceCache(tmp_path), now=NOW)
    assert auto.on_demand("p4d.24xlarge", "us-east-1").source == "snapshot"
    assert any("does-not-exist" in w for w in auto.warnings)


def test_a_403_with_an_empty_body_falls_back_in_auto(session: Any, tmp_path: Any) -> None:
    _inject(
        session,
        "before-send.pricing.GetProducts",
        lambda request, **_: replay.response(request.url, b"", 403),
    )
    entry, warnings = aws.fetch_entry(session, "p4d.24xlarge", "us-east-1", NOW)
    assert entry.on_demand_usd_per_hour is None and len(warnings) == 1
    book = PriceBook("auto", session=session, cache=PriceCache(tmp_path), now=NOW)
    assert book.on_demand("p4d.24xlarge", "us-east-1").source == "snapshot"
    assert any("live prices failed" in w for w in book.warnings)


# --------------------------------------------------- the replay rejects what AWS rejects


def test_replay_refuses_a_filter_type_or_service_aws_would_refuse(session: Any) -> None:
    client = session.client("pricing", region_name="us-east-1")
    bad_type = [{"Type": "TERM_MATCHES", "Field": "instanceType", "Value": "p4d.24xlarge"}]
    with pytest.raises(ClientError, match="ValidationException"):
        client.get_products(ServiceCode="AmazonEC2", Filters=bad_type)
    with pytest.raises(ClientError, match="NotFoundException"):
        client.get_products(ServiceCode="AmazonEc2", Filters=[])


def test_replay_lists_the_decoys_aws_lists_and_the_filters_leave_one(session: Any) -> None:
    client = session.client("pricing", region_name="us-east-1")
    loose = [
        {"Type": "TERM_MATCH", "Field": "instanceType", "Value": "p4d.24xlarge"},
        {"Type": "TERM_MATCH", "Field": "regionCode", "Value": "us-east-1"},
    ]
    rows = [
        json.loads(r)
        for r in client.get_products(ServiceCode="AmazonEC2", Filters=loose)["PriceList"]
    ]
    usage = sorted(r["product"]["attributes"]["usagetype"] for r in rows)
    assert usage == sorted(
        [
            "BoxUsage:p4d.24xlarge",
            "BoxUsage:p4d.24xlarge",  # Windows
            "CapacityBlock:p4d.24xlarge",
            "DedicatedUsage:p4d.24xlarge",
            "HostUsage:p4d.24xlarge",
            "Reservation:p4d.24xlarge",
            "UnusedBox:p4d.24xlarge",
        ]
    )
    exact = aws.product_filters("p4d.24xlarge", "us-east-1")
    assert len(client.get_products(ServiceCode="AmazonEC2", Filters=exact)["PriceList"]) == 1


def test_replay_refuses_a_misspelled_savings_plan_filter(session: Any) -> None:
    client = session.client("savingsplans", region_name="us-east-1")
    with pytest.raises(ClientError, match=r"ValidationException.*instanceTypes"):
        client.describe_savings_plans_offering_rates(
            filters=[{"name": "instanceTypes", "values": ["p4d.24xlarge"]}]
        )


def test_savings_plan_rates_through_the_replay_keep_linux_shared_only(
    session: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = snapshot.entry("p4d.24xlarge", "us-east-1")
    assert real is not None
    rates = {"Compute/1yr/No Upfront": 14.2, "EC2Instance/3yr/All Upfront": 8.1}
    with_rates = dataclasses.replace(real, savings_plans=rates)
    monkeypatch.setattr(
        snapshot,
        "entry",
        lambda t, r: with_rates if (t, r) == ("p4d.24xlarge", "us-east-1") else None,
    )
    client = session.client("savingsplans", region_name="us-east-1")
    assert aws.savings_plan_rates(client, "p4d.24xlarge", "us-east-1") == rates


def test_a_cache_file_edited_to_a_negative_price_is_refused(session: Any, tmp_path: Any) -> None:
    cache = PriceCache(tmp_path)
    PriceBook("live", session=session, cache=cache, now=NOW).on_demand("p4d.24xlarge", "us-east-1")
    p = cache.path("p4d.24xlarge", "us-east-1")
    doc = json.loads(p.read_text())
    doc["entry"]["on_demand_usd_per_hour"] = -21.96
    p.write_text(json.dumps(doc))
    book = PriceBook("cache", cache=cache, now=NOW)
    with pytest.raises(PricingError, match=r"not a USD/h from 0"):
        book.on_demand("p4d.24xlarge", "us-east-1")


@pytest.mark.parametrize(
    ("event", "part"),
    [
        ("before-send.savingsplans.DescribeSavingsPlansOfferingRates", "Savings Plan rates"),
        ("before-send.ec2.DescribeSpotPriceHistory", "spot price"),
    ],
)
def test_missing_savings_plan_or_spot_permissions_do_not_stop_live_prices(
    session: Any, tmp_path: Any, event: str, part: str
) -> None:
    def denied(request: Any, **_: Any) -> Any:
        if ".ec2." not in event:
            return _error(request, "AccessDeniedException", 403)
        xml = (  # EC2's query protocol answers errors in XML
            '<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error>'
            "<Code>UnauthorizedOperation</Code><Message>You are not authorized to perform this"
            " operation.</Message></Error></Errors><RequestID>r</RequestID></Response>"
        )
        return replay.response(request.url, xml.encode(), 403, content_type="text/xml")

    _inject(session, event, denied)
    book = PriceBook("live", session=session, cache=PriceCache(tmp_path), now=NOW)
    assert book.on_demand("p4d.24xlarge", "us-east-1").usd_per_hour == 21.957642
    assert any("access denied" in w and part in w for w in book.warnings), book.warnings


def test_a_price_in_another_currency_is_never_read_as_usd(session: Any) -> None:
    real = replay.get_products

    def in_cny(request: Any, **kw: Any) -> Any:
        body = json.loads(real(request, **kw).raw.read())
        items = [json.loads(i) for i in body["PriceList"]]
        for item in items:
            for term in item["terms"]["OnDemand"].values():
                for dim in term["priceDimensions"].values():
                    dim["pricePerUnit"] = {"CNY": "159.0"}
        body["PriceList"] = [json.dumps(i) for i in items]
        return replay.response(request.url, json.dumps(body).encode())

    _inject(session, "before-send.pricing.GetProducts", in_cny)
    entry, warnings = aws.fetch_entry(session, "p4d.24xlarge", "us-east-1", NOW)
    assert entry.on_demand_usd_per_hour is None
    assert "quoted in CNY" in warnings[0] and "USD" in warnings[0]


def test_the_no_credentials_messages_mention_sso(tmp_path: Any) -> None:
    bare = boto3.Session(region_name="us-east-1")
    auto = PriceBook("auto", session=bare, cache=PriceCache(tmp_path), now=NOW)
    auto.on_demand("p4d.24xlarge", "us-east-1")
    assert any("aws sso login" in w for w in auto.warnings)
    live = PriceBook("live", session=bare, cache=PriceCache(tmp_path), now=NOW)
    with pytest.raises(aws.LivePriceError, match="aws sso login"):
        live.on_demand("p4d.24xlarge", "us-east-1")
