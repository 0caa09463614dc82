"""Fuzzing the command line with mutated copies of the shipped scenarios and traces.

Whatever the input, ``tco`` answers with exit code 0, or exit code 2 and at most three lines on
stderr starting ``tco: error:``; never a traceback, never unbounded time or memory. Mutations
are structural (a value replaced by an extreme number, a wrong type, hostile text; a key removed
or added) and textual (characters deleted, inserted or swapped, lines truncated, files gzipped).
Examples are derandomised, so CI runs the same few hundred inputs every time (for one Hypothesis
version), with no example database and no shrinking: a failure is reported as found, at once,
instead of being shrunk for tens of minutes. The work of each input is bounded by its size (the
job limit below) and checked as CPU time, which a busy machine does not inflate as it does the
wall clock: speed is the benchmarks' business, not this test's.

Set ``TCO_FUZZ_REPORT=1`` to print how many inputs gave which outcome.
"""

from __future__ import annotations

import collections
import copy
import gzip
import os
import resource
import zlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tco.cli import main
from tco.simulator.advice import portfolio
from tco.simulator.scenario.yaml_input import parse_yaml
from tco.simulator.workload.traces import XDMOD_FIELDS
from tests.conftest import FIXTURES, ROOT

SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
SETTINGS = settings(
    # 150 mutants by default (the suite's CPU budget at load 8); TCO_FUZZ_EXAMPLES=1000 for more.
    max_examples=int(os.environ.get("TCO_FUZZ_EXAMPLES", "150")),
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
)
# One command on one input, in CPU seconds of this process: a guard against unbounded work, not
# a speed figure (the slowest input here takes about 5 s; a busy machine stretches the wall
# clock, not this).
MAX_CPU_SECONDS = 120.0
MAX_RSS_MIB = 3072  # the whole test process, after each input
OUTCOMES: collections.Counter[str] = collections.Counter()

EXTREME_NUMBERS = [0, -1, 1, 0.5, -0.0, 1e308, -1e308, 1e-308, 2**63, -(2**63), 10**30]
HOSTILE_TEXT = ["", " ", "../../x", "/etc/passwd", "/dev/zero", "ÿ" * 3, "x" * 5000, "1e6", "nan"]
ODD_VALUES: list[Any] = [
    None,
    True,
    [],
    {},
    [1, 2, 3],
    {"unexpected": 1},
    float("inf"),
    float("nan"),
    *EXTREME_NUMBERS,
    *HOSTILE_TEXT,
]


@pytest.fixture(autouse=True)
def _small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    # The limits are what keeps a mutated input bounded; small ones keep each example quick:
    # 20,000 jobs hold every shipped scenario over the 2 months simulated and the fuzz copy of
    # the ITP trace (SMALL_TRACE), not a workload scaled a thousandfold.
    monkeypatch.setenv("TCO_MAX_JOBS", "20000")
    monkeypatch.setenv("TCO_MAX_TRACE_MB", "16")
    # The mix search's budget a seventh of a user's: a mutant of the ITP replay searched its
    # mixes for 14 s at the full budget, and which mutants are drawn moves with this file's
    # text (Hypothesis seeds from the test), so four such drew 56 s of a 10-minute suite.
    monkeypatch.setattr(portfolio, "MAX_JOB_PLAYS", 200_000)


def _cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    t = _cpu_seconds()
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0) if not isinstance(exc.code, str) else 1
    err = capsys.readouterr().err
    cpu = _cpu_seconds() - t
    assert "Traceback" not in err, err
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert 1 <= len(lines) <= 3 and lines[-1].startswith("tco: error:"), err
    assert cpu < MAX_CPU_SECONDS, (args, cpu)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 < MAX_RSS_MIB
    return code


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value in the parsed YAML (mappings and lists)."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _mutate(data: Any, path: tuple[Any, ...], how: str, value: Any) -> Any:
    data = copy.deepcopy(data)
    parent = data
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1]
    if how == "replace":
        parent[key] = value
    elif how == "delete":
        del parent[key]
    elif how == "add" and isinstance(parent, dict):
        parent[f"{key}_extra"] = value
    elif (
        how == "scale"
        and isinstance(parent[key], int | float)
        and not isinstance(parent[key], bool)
    ):
        parent[key] = parent[key] * 1000
    return data


@st.composite
def mutated_scenario(draw: st.DrawFn) -> str:
    source = draw(st.sampled_from(SCENARIOS))
    text = source.read_text()
    if draw(st.booleans()):  # structural
        data = parse_yaml(text, str(source))
        path = draw(st.sampled_from(_paths(data)))
        how = draw(st.sampled_from(["replace", "replace", "delete", "add", "scale"]))
        value = draw(
            st.sampled_from(ODD_VALUES) | st.floats() | st.integers() | st.text(max_size=20)
        )
        return yaml.safe_dump(_mutate(data, path, how, value), allow_unicode=True)
    # textual: a few edits anywhere in the file
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(0, len(text) - 1)))
        edit = draw(st.sampled_from(["delete", "insert", "duplicate", "cut"]))
        if edit == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
        elif edit == "insert":
            text = text[:at] + draw(st.text(min_size=1, max_size=10)) + text[at:]
        elif edit == "duplicate":
            line_end = text.find("\n", at) + 1 or len(text)
            text = text[:line_end] + text[at:line_end] + text[line_end:]
        else:
            text = text[:at]
    return text


@pytest.fixture(scope="module")
def small_traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder standing in for scenarios/traces/: the ITP trace cut to every 4th job of its
    cluster c02 and every 20th of the others (4,600 jobs instead of 69,351), so a mutant that
    deletes the scenario's cluster filter replays a few thousand jobs instead of the whole
    trace, which queued with backfill on 16 servers took a minute (four on a busy machine): the
    slow family this test once hung on; and a mutant that keeps it, searching mixes on c02's
    5,778 jobs, took 14 s where 1,445 take a quarter of it."""
    d = tmp_path_factory.mktemp("traces")
    name = "itp_elasticflow_2021.csv.gz"
    lines = gzip.decompress((ROOT / "scenarios" / "traces" / name).read_bytes()).splitlines()
    kept = [
        x for i, x in enumerate(lines) if i == 0 or i % (4 if x.startswith(b"c02") else 20) == 0
    ]
    (d / name).write_bytes(gzip.compress(b"\n".join(kept) + b"\n", mtime=0))
    return d


@SETTINGS
@given(text=mutated_scenario())
def test_mutated_scenarios_exit_0_or_2_in_one_line(
    text: str,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    small_traces: Path,
) -> None:
    d = tmp_path_factory.mktemp("fuzz")
    f = d / "s.yaml"
    f.write_text(text, encoding="utf-8")
    # A relative trace path in a copied itp-cluster.yaml must still resolve.
    (d / "traces").symlink_to(small_traces)
    code = _run(["validate", str(f)], capsys)
    OUTCOMES[f"scenario validate exit {code}"] += 1
    if code == 0:
        out = str(d / "report")
        args = ["simulate", str(f), "--months", "2", "--format", "json", "--quiet"]
        if zlib.crc32(text.encode()) % 4:  # a quarter of the mutants run the portfolio search
            args += ["--search", "none"]
        code = _run([*args, "--prices", "snapshot", "--out", out], capsys)
        OUTCOMES[f"scenario simulate exit {code}"] += 1


TRACES = {
    "csv": "\n".join(
        gzip.decompress((ROOT / "scenarios/traces/itp_elasticflow_2021.csv.gz").read_bytes())
        .decode()
        .splitlines()[:120]
    )
    + "\n",
    "sacct": "".join(
        "|".join(
            f + ",gres/gpu=2" if i == XDMOD_FIELDS.index("AllocTRES") else f
            for i, f in enumerate(line.split("|"))
        )
        + "\n"
        for line in (FIXTURES / "sacct" / "xdmod_accounting-logs-with-job-arrays.log")
        .read_text()
        .splitlines()
    ),
}
FIELD_VALUES = [
    "-1",
    "-1e18",
    "1e308",
    "inf",
    "nan",
    "",
    "x" * 300,
    "100_[1-100000000]",
    "5_[9-1]",
    "gres/gpu=-4",
    "gres/gpu=1000000000",
    "Unknown",
    "2024-13-45T99:99:99",
    "99-99:99:99",
    "1e9",
]


@st.composite
def mutated_trace(draw: st.DrawFn) -> tuple[str, bytes, bool]:
    fmt = draw(st.sampled_from(["csv", "sacct", "xdmod"]))
    text = TRACES["csv" if fmt == "csv" else "sacct"]
    lines = text.splitlines()
    sep = "," if fmt == "csv" else "|"
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(lines) - 1))
        fields = lines[i].split(sep)
        j = draw(st.integers(0, len(fields) - 1))
        choice = draw(st.sampled_from(["value", "drop", "garbage", "truncate"]))
        if choice == "value":
            fields[j] = draw(st.sampled_from(FIELD_VALUES))
        elif choice == "drop":
            del fields[j]
        elif choice == "garbage":
            fields[j] = draw(st.text(max_size=30))
        else:
            lines = lines[: i + 1]
        if i < len(lines):
            lines[i] = sep.join(fields)
    data = ("\n".join(lines) + "\n").encode("utf-8", errors="replace")
    return fmt, data, draw(st.booleans())


@SETTINGS
@given(case=mutated_trace())
def test_mutated_traces_exit_0_or_2_in_one_line(
    case: tuple[str, bytes, bool],
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fmt, data, zipped = case
    d = tmp_path_factory.mktemp("fuzz")
    f = d / ("t.csv.gz" if zipped else "t.csv")
    f.write_bytes(gzip.compress(data) if zipped else data)
    code = _run(["workload", "stats", str(f), "--format", fmt], capsys)
    OUTCOMES[f"trace {fmt} exit {code}"] += 1


def teardown_module() -> None:
    if os.environ.get("TCO_FUZZ_REPORT"):
        print("\nfuzz outcomes:", dict(sorted(OUTCOMES.items())))
