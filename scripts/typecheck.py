"""mypy over the package as it is installed, and its tests: ``python scripts/typecheck.py``.

The layers live in top-level folders and become tco.simulator, tco.pricing and tco.reports by
pyproject.toml's package-dir mapping, which mypy's module finder cannot follow (it resolves
``tco.simulator`` inside the folder ``tco/``; the editable install's import hook is invisible to
it). So each file is handed to mypy with its import name, through mypy's own build API, and
every other setting comes from ``[tool.mypy]`` as plain ``mypy`` would read it. Exit status and
messages are mypy's."""

from __future__ import annotations

import sys
from pathlib import Path

from layout import ROOT, modules, test_modules
from mypy import build
from mypy.main import process_options
from mypy.modulefinder import BuildSource


def main() -> int:
    # A target is required to parse the options; the sources it names are replaced below.
    config = ["--config-file", str(ROOT / "pyproject.toml"), *sys.argv[1:], str(ROOT / "tco")]
    _, options = process_options(config)
    # A cache of its own: plain `mypy`, which cannot resolve the mapped names, caches modules
    # with those imports missing, and a shared cache would report them here.
    options.cache_dir = str(Path(options.cache_dir) / "as-installed")
    files = [*modules(), *test_modules()]
    sources = [BuildSource(str(p.relative_to(ROOT)), name) for p, name in files]
    messages: list[str] = []
    try:
        result = build.build(sources, options)
        messages = result.errors
    except build.CompileError as e:  # a syntax error: mypy stops at the first
        messages = e.messages
    for line in messages:
        print(line)
    files = len(sources)
    if messages:
        errors = sum(": error:" in m for m in messages)
        print(f"Found {errors} errors (checked {files} source files)")
        return 1
    print(f"Success: no issues found in {files} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
