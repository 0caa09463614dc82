"""What a user installs works as the checkout does (issue 22): the wheel, built from the sdist as
pip would, holds every package and every data file of the three layers, and a ``tco`` run from
the unpacked wheel, in another folder, simulates the lab. 0.7.0's wheel left out every
sub-package (``ModuleNotFoundError: No module named 'tco.simulator.workload.traces'``), which the
editable install of the README and of CI hid.

The build runs offline (``--no-isolation``: setuptools and build come from the test extras).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from scripts.layout import package_dirs
from tests.conftest import ROOT

# Folder -> where the wheel installs it (pyproject.toml's package-dir): simulator/ is tco/simulator.
LAYERS = {d.name: n.replace(".", "/") for n, d in package_dirs().items() if n != "tco"}
# What the build reads: the package, the layers and scenarios/ (tco.templates; not its traces).
SOURCES = ("pyproject.toml", "README.md", "tco", "scenarios", *LAYERS)
TEMPLATES = ("lab", "personal", "industrial")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from the sdist of a copy of the checkout (the checkout is not touched)."""
    pytest.importorskip("build")
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        p = ROOT / name
        if p.is_dir():
            skip = ("__pycache__", "traces") if name == "scenarios" else ("__pycache__",)
            shutil.copytree(p, src / name, symlinks=True, ignore=shutil.ignore_patterns(*skip))
        else:
            shutil.copy2(p, src / name)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (whl,) = out.glob("*.whl")
    assert len(list(out.glob("*.tar.gz"))) == 1
    return whl


def _names(whl: Path) -> set[str]:
    with zipfile.ZipFile(whl) as z:
        return set(z.namelist())


def _tracked(folder: str) -> list[Path]:
    """Files under a layer's folder, as the checkout has them (caches left out)."""
    return [
        p
        for p in sorted((ROOT / folder).rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    ]


def test_every_package_of_the_layers_is_in_the_wheel(wheel: Path) -> None:
    names = _names(wheel)
    packages = [ROOT / "tco", *(p.parent for f in LAYERS for p in (ROOT / f).rglob("__init__.py"))]
    assert len(packages) > 5
    for pkg in packages:
        rel = pkg.relative_to(ROOT).as_posix()
        for layer, installed in LAYERS.items():
            if rel == layer or rel.startswith(layer + "/"):
                rel = installed + rel[len(layer) :]
        assert f"{rel}/__init__.py" in names, f"{rel} is not in the wheel"


def test_every_file_of_the_layers_is_in_the_wheel(wheel: Path) -> None:
    names = _names(wheel)
    missing = []
    for layer, installed in LAYERS.items():
        for p in _tracked(layer):
            rel = f"{installed}/{p.relative_to(ROOT / layer).as_posix()}"
            if rel not in names:
                missing.append(rel)
    for p in _tracked("tco"):
        rel = p.relative_to(ROOT).as_posix()
        if rel not in names:
            missing.append(rel)
    missing += [f"tco/templates/{t}.yaml" for t in TEMPLATES]
    missing = [m for m in missing if m not in names]
    assert not missing, missing


def test_every_package_folder_is_listed_for_the_build() -> None:
    """A folder with an __init__.py that pyproject.toml's packages list leaves out would be
    missing from the wheel while the editable install still finds it: caught here, unbuilt."""
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {"tco.templates"}
    for name, folder in package_dirs().items():
        for init in folder.rglob("__init__.py"):
            rel = init.parent.relative_to(folder).parts
            found.add(".".join([name, *rel]))
    data = {"tco.pricing.data", "tco.reports.templates"}  # folders of data files, listed too
    assert listed == found | data


def test_the_checkout_tracks_no_symbolic_link() -> None:
    """A clone without symlink support (Windows, or core.symlinks=false) turns a tracked link into
    a text file holding its target: the package is built by mapping folders instead."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an unpacked sdist)")
    staged = subprocess.run(
        ["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    links = [line.split("\t", 1)[1] for line in staged.splitlines() if line.startswith("120000")]
    assert links == []


def test_the_unpacked_wheel_simulates_the_lab_from_another_folder(
    wheel: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copy2(ROOT / "scenarios" / "lab.yaml", work / "lab.yaml")
    code = (
        "import sys; sys.path.insert(0, sys.argv.pop(1)); import tco;"
        " assert tco.__file__.startswith(sys.path[0]), tco.__file__;"
        " from tco.cli import main; main(sys.argv[1:])"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for args in (
        ["simulate", "lab.yaml", "--months", "3", "--format", "json", "--quiet"],
        ["prices", "show", "p4d.24xlarge"],
        ["init", "--template", "personal", "personal.yaml"],
    ):
        done = subprocess.run(
            [sys.executable, "-c", code, str(site), *args],
            cwd=work,
            capture_output=True,
            text=True,
            env=env,
        )
        assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((work / "tco-report" / "research-lab" / "summary.json").read_text())
    assert summary["schema"] == "tco-summary/1" and len(summary["options"]) == 8
    assert (work / "personal.yaml").read_text() == (
        ROOT / "scenarios" / "personal.yaml"
    ).read_text()
