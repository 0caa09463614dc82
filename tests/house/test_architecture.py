"""The structure docs/ARCHITECTURE.md promises, checked: one-way imports without circles, small
modules and functions, option kinds named only in their own module, one way in (``import tco``),
and a start-up that loads only what the command needs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import tco
from scripts.layout import ROOT, graph, imports, modules
from tco.simulator.kinds import registry
from tco.simulator.kinds.capabilities import NOT_DECLARED, Can
from tco.simulator.kinds.registry import Kind

PACKAGES = ("simulator", "pricing", "reports")
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 70
# The package's files and their import names, as pyproject.toml's package-dir maps them.
MODULES: dict[Path, str] = dict(modules())


def _sources() -> list[Path]:
    """Every Python file of the package, the scripts and the benchmarks, once each."""
    extra = [p for d in ("scripts", "benchmarks") for p in sorted((ROOT / d).rglob("*.py"))]
    return [*MODULES, *extra]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_is_resolved() -> None:
    g = graph()
    assert "tco.simulator.run" in g["tco.cli"]  # imported inside a command: still counted
    assert "tco.simulator.kinds.registry" in g["tco.simulator.scenario.model"]
    assert "tco.simulator.kinds.owned" in g["tco.simulator.kinds"]


def test_no_import_circles() -> None:
    assert _cycles(graph()) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_layers_import_one_way() -> None:
    """pricing knows nothing of the simulator or the reports; the simulator nothing of the
    reports or the CLI."""
    for m, targets in graph().items():
        if m.startswith("tco.pricing"):
            assert not {t for t in targets if t.startswith(("tco.simulator", "tco.reports"))}, m
        if m.startswith("tco.simulator"):
            assert not {t for t in targets if t.startswith(("tco.reports", "tco.cli"))}, m


# The simulator's rooms, from the top floor down (docs/ARCHITECTURE.md draws them): a module
# imports modules of its own room or of rooms below it, never above.
FLOORS = (
    "tracking",
    "run",
    "advice",
    "sweep",
    "engine",
    "scenario",
    "kinds",
    "cluster",
    "costs",
    "fit",
    "workload",
    "training",
    "core",
)


def _floor(module: str) -> int | None:
    parts = module.split(".")
    if parts[:2] != ["tco", "simulator"] or len(parts) < 3:
        return None
    return FLOORS.index(parts[2])


def test_every_module_of_the_simulator_lives_on_a_floor() -> None:
    for m in graph():
        if m.startswith("tco.simulator."):
            assert m.split(".")[2] in FLOORS, f"{m}: give it a room, or add the room to FLOORS"


def test_rooms_import_downward_only() -> None:
    upward = [
        f"{m} -> {t}"
        for m, targets in graph().items()
        for t in targets
        if (a := _floor(m)) is not None and (b := _floor(t)) is not None and b < a
    ]
    assert upward == []


def test_the_floor_check_sees_an_upward_import() -> None:
    assert _floor("tco.simulator.core.errors") == len(FLOORS) - 1
    assert _floor("tco.simulator.tracking.plan_files") == 0 and _floor("tco.simulator.run") == 1
    assert _floor("tco.pricing.book") is None


# Test folders that are not one of the simulator's rooms: the other layers, the command line,
# and the promises of the whole project.
TEST_ROOMS_BESIDE_FLOORS = {"pricing", "reports", "cli", "house"}


def test_each_test_file_lives_in_the_room_of_what_it_tests() -> None:
    rooms = set(FLOORS) | TEST_ROOMS_BESIDE_FLOORS
    misplaced = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if len(p.relative_to(ROOT / "tests").parts) != 2 or p.parent.name not in rooms
    ]
    assert misplaced == [], "move each to tests/<room>/ (a folder of simulator/, or " + ", ".join(
        sorted(TEST_ROOMS_BESIDE_FLOORS)
    )


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_and_functions_are_small(path: Path) -> None:
    text = path.read_text()
    assert len(text.splitlines()) <= MAX_MODULE_LINES
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            assert node.end_lineno is not None
            assert node.end_lineno - first + 1 <= MAX_FUNCTION_LINES, node.name


def _home(name: str) -> tuple[str, ...]:
    """Where kind ``name`` lives: its module, or its folder."""
    return (
        f"simulator/kinds/{name}.py",
        f"simulator/kinds/{name}/",
        f"simulator/kinds/rented/{name}.py",  # the rented kinds' room
    )


def _constants(paths: list[Path]) -> dict[str, set[str]]:
    """Each string constant of the files, and the files it is written in."""
    out: dict[str, set[str]] = {}
    for p in paths:
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.setdefault(node.value, set()).add(str(p.relative_to(ROOT)))
    return out


def _package() -> list[Path]:
    return list(MODULES)


def test_each_kind_is_named_only_in_its_own_module() -> None:
    """In the installed package (benchmarks and scripts hold scenario data, as YAML files do):
    in the kind's module ``kinds/<name>.py``, or in the modules of its folder ``kinds/<name>/``
    when it is large enough for a room of its own. (A kind may name one of its own fields like
    another kind: a hybrid's ``owned:`` names the option it owns.)"""
    where = _constants(_package())
    for name in registry.names():
        found = where.get(name, set())
        own = {w for w in found if w.startswith(_home(name))}
        fields = {
            w
            for k in registry.names()
            if name in registry.get(k).model.model_fields
            for w in found
            if w.startswith(_home(k))
        }
        assert own and found == own | fields, (name, found)


# Strings outside the kinds that may equal a kind's word for another reason: the versioned
# summary's key for a resize's size (tco-summary/1), a CLI command (``tco prices refresh``,
# ``tco catalog servers``), the price groups a sweep scales (``prices.facility``,
# ``prices.staff``), the plan ``tco track`` tracks (its argument, its document's key; a Savings
# Plan's ``plan`` is AWS's plan type); pricing/ (its catalog's columns) is not read.
NOT_A_KIND_NAME = {
    ("facility", "simulator/costs/ledger.py"),
    ("staff", "simulator/costs/ledger.py"),
    ("servers", "reports/summary.py"),
    ("servers", "simulator/engine/findings.py"),
    ("servers", "tco/cli.py"),
    ("refresh", "tco/cli_prices.py"),
    ("plan", "reports/track.py"),
    ("plan", "tco/cli_track.py"),
}


def test_no_kind_s_field_knob_or_category_is_named_outside_its_home() -> None:
    """What a kind's options hold (the fields only its model has), the knobs it declares and
    the ledger categories its modules declare are named in its own module or folder only:
    everything else asks the kind (``Kind.knobs``, ``sizes``, ``what_ifs``, ``sale``,
    ``unit_prices``, ``remarks``) or reads declarations. ``core/defaults.py``, the one table of
    sourced defaults, may name the field a default is for."""
    from tco.simulator.costs import ledger

    paths = [p for p in _package() if p.relative_to(ROOT).parts[0] != "pricing"]
    where = _constants(paths)
    kinds = set(registry.names())  # a field named like a kind: the kind-name test's business
    fields = {k: set(registry.get(k).model.model_fields) - {"kind", "name"} - kinds for k in kinds}
    shared = {f for k in fields for f in fields[k] if sum(f in v for v in fields.values()) > 1}
    leaks = []
    for name in registry.names():
        kind = registry.get(name)
        mine = (fields[name] - shared) | set(kind.knobs)
        mine |= {c for c, decl in ledger.declarations()[0].items() if _declared_in(decl.name, name)}
        for word in sorted(mine):
            outside = {
                w
                for w in where.get(word, set())
                if not w.startswith(_home(name))
                and w != "simulator/core/defaults.py"
                and (word, w) not in NOT_A_KIND_NAME
            }
            leaks += [f"{name}: {word!r} in {w}" for w in sorted(outside)]
    assert leaks == []


def _declared_in(category: str, kind: str) -> bool:
    """Whether ``category`` is declared in kind ``kind``'s home (by a ``Category(...)`` there)."""
    for base in _home(kind):
        for p in sorted(ROOT.glob(base + ("" if base.endswith(".py") else "*.py"))):
            for node in ast.walk(ast.parse(p.read_text())):
                if (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", "") == "Category"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and node.args[0].value == category
                ):
                    return True
    return False


def test_no_module_imports_the_bare_package_names() -> None:
    for p in [*_sources(), *sorted((ROOT / "tests").glob("*.py"))]:
        for target in imports(p, "x"):
            assert target.split(".")[0] not in PACKAGES, (p, target)


def test_public_names_of_tco_resolve() -> None:
    for name in tco.__all__:
        assert getattr(tco, name) is not None
    assert set(tco.__all__) == set(tco._HOMES)


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    return set(out.split())


HEAVY = {"numpy", "pandas", "matplotlib", "openpyxl", "pydantic", "simpy", "boto3", "rich"}


def test_version_and_help_load_no_heavy_library() -> None:
    for args in (["--version"], ["--help"]):
        code = f"from tco.cli import main\ntry:\n    main({args!r})\nexcept SystemExit:\n    pass"
        assert _loaded_after(code) & HEAVY == set(), args


def test_a_json_only_run_loads_no_charts_or_spreadsheet(tmp_path: Path) -> None:
    code = (
        "from tco.cli import main\n"
        "try:\n"
        f"    main(['simulate', 'scenarios/personal.yaml', '--format', 'json', '--quiet',"
        f" '--prices', 'snapshot', '--out', {str(tmp_path)!r}])\n"
        "except SystemExit:\n    pass"
    )
    loaded = _loaded_after(code)
    assert (tmp_path / "summary.json").exists()
    assert not {"matplotlib", "openpyxl"} & loaded


def test_each_kind_declares_exactly_the_capabilities_it_implements() -> None:
    """A capability declared (``Kind.can_do``) is a hook the kind overrides, and a hook it
    overrides is declared: the advice asks ``can`` before it calls one, so an undeclared hook
    would never run and a declared one that is not there would answer with a silent nothing.
    What a kind cannot do has a reason worth reading (none says only "not declared")."""
    for name in registry.names():
        kind = registry.get(name)
        for c in Can:
            overridden = {h for h in c.hooks if getattr(type(kind), h) is not getattr(Kind, h)}
            assert overridden in (set(), set(c.hooks)), (name, c.word, "only", overridden)
            assert kind.can(c) == bool(overridden), (name, c.word)
            if not kind.can(c):
                assert kind.why_not(c) not in ("", NOT_DECLARED), (name, c.word)
    listed = registry.capabilities()
    assert len(listed) == len(registry.names()) * len(Can)
    assert ("owned", Can.EXISTING, "") in listed


# Kind methods that are neither asked of a kind nor a capability: how a capability is asked,
# and implementations every kind shares (each a real answer for any kind, not a silent
# nothing): knobs set on the option's own fields, an option made of itself alone.
SHARED = {"can", "why_not", "with_knobs", "parts_of"}


def test_every_hook_is_required_or_a_declared_capability() -> None:
    """Issue 54: of 23 optional hooks, 9 answered nothing when a kind forgot them (a rental that
    forgot its providers paid no egress). Each is now abstract (a kind that forgets it cannot be
    registered) or part of a capability the kind declares, with its reason when it cannot."""
    hooks = {n for n, v in vars(Kind).items() if callable(v) and not n.startswith("_")}
    capable = {h for c in Can for h in c.hooks}
    required = set(Kind.__abstractmethods__)
    assert hooks - required - capable - SHARED == set()
    assert capable & required == set() and SHARED & (capable | required) == set()
    assert {"providers_of", "gpus_of", "caveats", "uncertainties", "remarks"} <= required


# The one place candidates are ordered by cash (issue 54: four searches ranked four ways).
RULE = ROOT / "simulator" / "engine" / "rule.py"
RANKERS = ("rank(", "rank_closest(")


def _orderings_by_cash(path: Path) -> list[str]:
    """Calls of sorted/min/max whose key reads cash without the rule's ``rank``: each a
    ranking of its own (``by_cash`` is the rule's order for a list shown cheapest first)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id not in ("sorted", "min", "max"):
            continue
        for kw in node.keywords:
            key = ast.unparse(kw.value) if kw.arg == "key" else ""
            if "cash" in key and not any(r in key for r in RANKERS):
                found.append(f"{path}:{node.lineno}: {key}")
    return found


def test_candidates_are_ordered_by_the_rule_only() -> None:
    """No search, race, odds summary or report orders options by cash itself: it calls the
    rule's ``rank``, ``rank_closest``, ``by_cash`` or ``cheapest_of`` (``engine.rule``)."""
    own = [f for p in MODULES if p != RULE for f in _orderings_by_cash(p)]
    assert own == []


def test_the_ordering_check_sees_a_ranking_of_its_own(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text("def f(xs):\n    return min(xs, key=lambda x: x.total_cash_usd)\n")
    assert len(_orderings_by_cash(bad)) == 1
    bad.write_text("def f(xs):\n    return min(xs, key=lambda x: rank(1, x.cash_usd))\n")
    assert _orderings_by_cash(bad) == []
