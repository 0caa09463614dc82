"""Headless Chromium for the report tests: load a page, run a probe script after it has loaded,
read what the probe wrote into the DOM; print a page to PDF.

Flags as this machine's Chromium needs them (no sandbox as root, no background networking on a
closed network). CI installs Debian's chromium (.ci/run); locally a missing browser skips.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs Debian's chromium")
        pytest.skip("chromium not installed (CI installs it)")
    return found


def _common(profile: Path) -> list[str]:
    return [chromium(), *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000"]


def probe(html: str, script: str, tmp: Path, width: int, height: int = 900) -> Any:
    """Load ``html`` at ``width`` CSS pixels; after load, ``script`` (a JS expression) is
    evaluated and its JSON value returned. The page gets a copy of the script; the report on
    disk is not touched."""
    hook = (
        '<script>window.addEventListener("load",()=>{document.body.setAttribute("data-probe",'
        f"JSON.stringify({script}))}});</script>"
    )
    page = tmp / f"probe-{width}.html"
    page.write_text(html.replace("</body>", hook + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [*_common(tmp / "profile"), f"--window-size={width},{height}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
    )
    m = re.search(r'data-probe="([^"]*)"', dom.stdout)
    assert m, dom.stderr[-2000:]
    raw = m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
    return json.loads(raw.replace("&gt;", ">"))


def screenshot(page: Path, out: Path, width: int, height: int, tmp: Path) -> Path:
    subprocess.run(
        [
            *_common(tmp / "profile"),
            f"--screenshot={out}",
            f"--window-size={width},{height}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=180,
    )
    return out


def print_pdf(page: Path, out: Path, tmp: Path) -> Path:
    subprocess.run(
        [
            *_common(tmp / "profile"),
            "--no-pdf-header-footer",
            f"--print-to-pdf={out}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=180,
    )
    assert out.is_file() and out.stat().st_size > 0, "chromium printed no PDF"
    return out
