"""Where each module of the ``tco`` package lives in the checkout, read from pyproject.toml's
package-dir mapping (the layers sit in top-level folders and are installed as tco.simulator,
tco.pricing and tco.reports): the one reading of the layout that the type check and the
architecture test share, so a folder added to the mapping is checked without another list."""

from __future__ import annotations

import ast
import functools
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """Import name -> folder, for every mapped Python package (a data package such as
    tco.templates, which holds scenarios and no code of its own, is left out)."""
    config = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {name: root / folder for name, folder in mapping.items() if name != "tco.templates"}


def modules(root: Path = ROOT) -> Iterator[tuple[Path, str]]:
    """(file, import name) for every Python file of the package: simulator/run.py is
    tco.simulator.run, simulator/__init__.py is tco.simulator."""
    for name, folder in sorted(package_dirs(root).items()):
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield path, ".".join([name, *parts])


def test_modules(root: Path = ROOT) -> Iterator[tuple[Path, str]]:
    """(file, import name) for every Python file under tests/, which is a package of its own
    (tests/cluster/test_scheduler.py is tests.cluster.test_scheduler): type-checked with the
    code, so a test cannot call the code in a way the code's types refuse."""
    for path in sorted((root / "tests").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        yield path, ".".join(parts)


def imports(path: Path, name: str, known: frozenset[str] = frozenset()) -> set[str]:
    """What a file imports anywhere (inside functions and under TYPE_CHECKING too), as Python
    resolves it: ``from a import b`` imports the module a.b where ``known`` has one, else a."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.add(sub if sub in known or not known else base)
            if not known:
                found.add(base)
    return found


@functools.cache
def graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (lazy and TYPE_CHECKING imports included),
    read from the files the build maps: the layers are folders at the top of the checkout,
    which a tool that finds a package's files under its installed folder would not see."""
    mods = dict(modules())
    known = frozenset(mods.values())
    out = {m: imports(p, m, known) & known for p, m in mods.items()}
    # A module importing its own package's __init__ is how Python loads it, not a circle.
    return {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in out.items()}


if __name__ == "__main__":
    # python scripts/layout.py tco.simulator.run: what a module imports, one per line.
    for target in sorted(graph()[sys.argv[1]]):
        print(target)
