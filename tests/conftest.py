"""Shared helpers: small scenarios built in code, so each test states what it depends on."""

from __future__ import annotations

import functools
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tco.simulator.engine.result import Result
from tco.simulator.kinds.plan import Plan
from tco.simulator.kinds.rented.plan import CloudPlan
from tco.simulator.run import run_file
from tco.simulator.scenario.model import Scenario, validate
from tco.simulator.sweep.odds import Futures, robust_choice

# The odds of every answer (100 futures by default) are off in the suite, CLI runs included (the
# environment is inherited): tests of the odds ask for their futures (tests/sweep/test_odds.py).
os.environ["TCO_ODDS"] = "0"

ROOT = Path(__file__).resolve().parent.parent
# What a seller of used servers receives by default (issue 50): a broker's 0.85 of the used
# market's price after 3 months of selling (SpotWire's valuator), written here as the reference
# the tests hold the model to, not read from the model's defaults.
SELLER_SHARE = 0.85
MONTHS_TO_SELL = 3
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@functools.cache
def shipped(name: str) -> Result:
    """The shipped scenario ``name`` run once for the whole session, from the checkout's root
    (as the README runs it): the golden files and the recommendation tests read the same run."""
    before = os.getcwd()
    os.chdir(ROOT)
    try:
        return run_file(f"scenarios/{name}.yaml")
    finally:
        os.chdir(before)


ODDS_FUTURES = 20  # the odds-on goldens: 5 job streams x 4 money draws, enough to race on


@functools.cache
def shipped_with_odds(name: str) -> Result:
    """The shipped scenario ``name`` as a user runs it, with its odds (``ODDS_FUTURES`` futures
    on this process), once for the whole session."""
    from tco.simulator.run import OddsRun, load_file, prepare, simulate

    before = os.getcwd()
    os.chdir(ROOT)
    try:
        path = f"scenarios/{name}.yaml"
        sc, digest = load_file(path)
        prepared = prepare(sc, file=path, sha256=digest)
        return simulate(prepared, odds=OddsRun(futures=ODDS_FUTURES))
    finally:
        os.chdir(before)


def make_scenario(**over: Any) -> Scenario:
    """A one-class scenario with an owned 8x A40 server and p4d on-demand; override any key.
    Its recommendation keeps to the options it lists (``search: none``): each test states what
    it depends on, and the portfolio search has tests of its own (``search=...`` to override)."""
    data: dict[str, Any] = {
        "name": "t",
        "search": "none",
        "start": "2027-01",
        "horizon_months": 12,
        "seed": 1,
        "workload": {
            "job_classes": [
                {
                    "name": "jobs",
                    "arrivals_per_month": 100,
                    "gpus": 1,
                    "work": {
                        "reference_gpu": "A40",
                        "gpu_hours": 10,
                        "distribution": "exponential",
                    },
                }
            ]
        },
        "options": [
            {"name": "own", "kind": "owned", "server": "8x A40 NVLink server", "servers": 1},
            {"name": "od", "kind": "on_demand", "instance_type": "p4d.24xlarge"},
        ],
    }
    data.update(over)
    return validate(yaml.safe_load(yaml.safe_dump(data)), "<test>")


def cloud_plan(plan: Plan) -> CloudPlan:
    """A plan a test knows to be a rented option's, as that (its shapes, rates, delay)."""
    assert isinstance(plan, CloudPlan), type(plan).__name__
    return plan


def robust_name(f: Futures, confidence: float) -> str:
    """The option the robust rule chooses among the futures, in a test that expects one."""
    i = robust_choice(f, confidence)
    assert i is not None, "no candidate meets the level"
    return f.names[i]


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Exit code and stderr of one ``tco`` command run in this process."""
    from tco.cli import main

    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def one_line_error(code: int, err: str, *needles: str) -> None:
    """Exit code 2 and one line ``tco: error: ...`` holding each of ``needles``."""
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("tco: error: "), err
    for n in needles:
        assert n in err, err


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session", autouse=True)
def _port_8787_taken() -> Iterator[None]:
    """Dask's default dashboard port held by another program for the whole suite, as on a
    Jupyter or Dask user's laptop (issue 51: 3 tests failed there): every Dask cluster the
    suite starts must do without it. Already taken (by such a program, or another test
    process): so much the better."""
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))
        held.listen()
    except OSError:
        pass
    try:
        yield
    finally:
        held.close()


@pytest.fixture(autouse=True)
def _no_real_aws(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test may reach AWS or read the developer's credentials or price cache."""
    for var in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_ROLE_ARN",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
    ):
        monkeypatch.delenv(var, raising=False)
    empty = tmp_path_factory.mktemp("aws-empty")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(empty / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(empty / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("TCO_CACHE_DIR", str(tmp_path_factory.mktemp("tco-cache")))


SLOW_TESTS = Path(__file__).resolve().parent / "slow_tests.txt"


def slow_test_ids() -> set[str]:
    """The node ids tests/slow_tests.txt lists (measured: scripts/slow_tests.py)."""
    lines = SLOW_TESTS.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark slow what a measured run found slow, and what is heavy: ``-m "not slow"`` replaces
    the default ``-m 'not heavy'``, so a heavy test must be slow too to stay out of it."""
    slow = slow_test_ids()
    for item in items:
        if item.nodeid in slow or item.get_closest_marker("heavy") is not None:
            item.add_marker(pytest.mark.slow)
