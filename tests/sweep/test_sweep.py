"""Monte Carlo sweeps against theory, and the same bytes whatever the engine and workers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tco.cli import main
from tco.pricing.book import PriceBook
from tco.reports.sweep_files import FILES, write_sweep
from tco.simulator.core.errors import ScenarioError
from tco.simulator.run import prepare, run
from tco.simulator.scenario.distributions import (
    Choice,
    Distribution,
    LogNormal,
    Normal,
    Triangular,
    Uniform,
)
from tco.simulator.scenario.model import loads_scenario
from tco.simulator.sweep.run import run_sweep
from tco.simulator.sweep.summary import spreads
from tests.conftest import ROOT

TRACE = "submit_time_s,duration_s,num_gpus\n" + "".join(
    f"{i * 3600},{7200 + 60 * i},8\n" for i in range(40)
)
INSTANCE = (
    "{gpu: A100 SXM 40GB, gpus: 8, usd_per_hour: USD, price_source: test, price_as_of: 2025-11}"
)


def _fixed_jobs_scenario(
    tmp_path: Path, uncertain: str, usd: float = 30.0, owned: bool = False
) -> str:
    """A trace replayed once: the same jobs in every replication, so only the draws vary."""
    (tmp_path / "t.csv").write_text(TRACE)
    own = "  - {name: own, kind: owned, server: DGX A100 320GB, servers: 1}\n" if owned else ""
    return (
        "name: fixed\nstart: 2027-01\nhorizon_months: 2\nseed: 11\nodds: {without: all}\n"
        f"workload:\n  trace: {{file: {tmp_path / 't.csv'}, source_gpu: A100 SXM 40GB}}\n"
        f"uncertain:\n{uncertain}"
        "options:\n"
        f"  - {{name: cloud, kind: on_demand, instance: {INSTANCE.replace('USD', str(usd))}}}\n"
        + own
    )


def _sweep(text: str, n: int, **kw: object) -> tuple[object, list]:  # type: ignore[type-arg]
    book = PriceBook()
    prepared = prepare(loads_scenario(text), book)
    return prepared, run_sweep(prepared, book, n, **kw)  # type: ignore[arg-type]


def test_a_cost_linear_in_one_uniform_price_has_the_uniform_mean_and_quantiles(
    tmp_path: Path,
) -> None:
    lo, hi = 0.8, 1.2
    unc = f"  - path: prices.cloud\n    distribution: {{kind: uniform, low: {lo}, high: {hi}}}\n"
    text = _fixed_jobs_scenario(tmp_path, unc)
    base = run(loads_scenario(text)).option("cloud").total_cash_usd
    _, reps = _sweep(text, 400)
    cash = np.array([r.options[0].cash_usd for r in reps])
    m = np.array([r.inputs["prices.cloud"] for r in reps])
    np.testing.assert_allclose(cash, base * m, rtol=1e-9)  # exactly linear
    sd = base * (hi - lo) / math.sqrt(12)
    assert abs(cash.mean() - base * (lo + hi) / 2) < 3 * sd / math.sqrt(len(cash))
    p10, p90 = np.percentile(cash, [10, 90])
    assert p10 == pytest.approx(base * (lo + 0.1 * (hi - lo)), abs=0.02 * base)
    assert p90 == pytest.approx(base * (lo + 0.9 * (hi - lo)), abs=0.02 * base)


def test_the_probability_that_one_option_is_cheaper_is_the_uniform_one(tmp_path: Path) -> None:
    """Owned cost fixed, cloud cost = C x m, m ~ U(lo, hi): P(cloud cheaper) = (r - lo)/(hi - lo)
    with r = owned / C."""
    probe = _fixed_jobs_scenario(
        tmp_path,
        "  - path: prices.cloud\n    distribution: {kind: uniform, low: 0.9, high: 1.1}\n",
        owned=True,
    )
    base = run(loads_scenario(probe))
    r = base.option("own").total_cash_usd / base.option("cloud").total_cash_usd
    lo, hi = 0.6 * r, 1.4 * r
    unc = f"  - path: prices.cloud\n    distribution: {{kind: uniform, low: {lo}, high: {hi}}}\n"
    _, reps = _sweep(_fixed_jobs_scenario(tmp_path, unc, owned=True), 400)
    got = {s.name: s for s in spreads(reps)}
    want = (r - lo) / (hi - lo)  # 0.5
    se = math.sqrt(want * (1 - want) / len(reps))
    assert abs(got["cloud"].probability_cheapest - want) < 3 * se
    assert got["cloud"].probability_cheapest + got["own"].probability_cheapest == 1.0


@pytest.mark.parametrize(
    "dist",
    [
        Uniform(kind="uniform", low=2, high=5),
        Triangular(kind="triangular", low=0, mode=1, high=5),
        Normal(kind="normal", mean=1, sd=2, low=0, high=4),
        LogNormal(kind="lognormal", median=3, sigma=0.5),
        Choice(kind="choice", values=[1, 2, 10], weights=[1, 1, 2]),
    ],
)
def test_each_distribution_samples_its_expected_value(dist: Distribution) -> None:
    rng = np.random.default_rng(5)
    x = np.array([float(dist.draw(rng)) for _ in range(20_000)])
    assert x.mean() == pytest.approx(
        dist.expected(), rel=3 * x.std() / x.mean() / math.sqrt(len(x)) * 3
    )


def test_the_same_files_whatever_the_engine_and_workers(tmp_path: Path) -> None:
    lab = ROOT / "scenarios" / "lab.yaml"
    text = lab.read_text().replace("horizon_months: 36", "horizon_months: 6")
    outputs = {}
    for engine, workers in (("local", 1), ("local", 2), ("dask", 2)):
        prepared, reps = _sweep(text, 12, engine=engine, workers=workers)
        d = tmp_path / f"{engine}{workers}"
        write_sweep(prepared, reps, 20271, d)  # type: ignore[arg-type]
        outputs[(engine, workers)] = {f: (d / f).read_bytes() for f in FILES}
    first = outputs[("local", 1)]
    assert first["replications.csv"].count(b"\n") == 1 + 12 * 8  # one row per future and option
    for key, files in outputs.items():
        assert files == first, key


def test_a_draw_outside_a_fields_range_is_an_error_not_a_clipped_number(tmp_path: Path) -> None:
    lab = (
        (ROOT / "scenarios" / "lab.yaml")
        .read_text()
        .replace(
            "distribution: {kind: triangular, low: 70, mode: 90, high: 120}",
            "distribution: {kind: uniform, low: -50, high: 10}",
        )
    )
    with pytest.raises(ScenarioError, match=r"a draw \(.*arrivals_per_month = -"):
        _sweep(lab.replace("horizon_months: 36", "horizon_months: 2"), 20)


def test_sweep_command_writes_its_files_and_refuses_what_it_cannot_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lab = ROOT / "scenarios" / "lab.yaml"
    short = tmp_path / "lab.yaml"
    short.write_text(lab.read_text().replace("horizon_months: 36", "horizon_months: 3"))
    main(["sweep", str(short), "-n", "12", "--out", str(tmp_path / "s"), "--quiet"])
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == sorted(FILES)
    for args, says in (
        (["--scheduler", "tcp://127.0.0.1:1"], "add --engine dask"),
        (["--out", ""], "--out"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(["sweep", str(short), "-n", "2", *args])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and says in err and err.count("\n") == 1
    plain = tmp_path / "plain.yaml"
    # personal.yaml names nothing uncertain; tco's own inputs left out, nothing is.
    plain.write_text((ROOT / "scenarios" / "personal.yaml").read_text() + "odds: {without: all}\n")
    with pytest.raises(SystemExit):
        main(["sweep", str(plain), "-n", "2"])
    assert "names no uncertain input" in capsys.readouterr().err


def test_a_running_dask_cluster_at_an_address_gives_the_same_replications() -> None:
    """--scheduler tcp://...: replications sent to an existing cluster on localhost TCP."""
    import logging

    from distributed import LocalCluster

    from tco.simulator.sweep.dask import DASHBOARD

    text = (
        (ROOT / "scenarios" / "lab.yaml")
        .read_text()
        .replace("horizon_months: 36", "horizon_months: 4")
    )
    _, local = _sweep(text, 16)
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=DASHBOARD,
        silence_logs=logging.ERROR,
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        _, remote = _sweep(text, 16, engine="dask", scheduler=cluster.scheduler_address)
    assert remote == local


@pytest.mark.parametrize("path", ["horizon_months", "start", "seed"])
def test_the_calendar_and_the_seed_frame_a_sweep_and_are_not_inputs(path: str) -> None:
    text = (
        (ROOT / "scenarios" / "lab.yaml").read_text().replace("path: prices.cloud", f"path: {path}")
    )
    with pytest.raises(ScenarioError, match="frame the sweep"):
        loads_scenario(text)
