"""The VS Code extension's unit tests (``cd vscode-client && npm test``: the event → view-model
reducer, message validation, the settings mapping, the webview's CSP) run from the Python suite,
so the README's one test command covers them. ``npm ci`` first when ``node_modules`` is
missing or older than the lockfile; skips with the reason when Node or npm is missing or the
install fails (no registry)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "vscode-client"
LINE = re.compile(r"^(\d+) passed, (\d+) failed", re.M)

pytestmark = [pytest.mark.editor]


def _installed() -> bool:
    marker = CLIENT / "node_modules" / ".package-lock.json"
    lock = CLIENT / "package-lock.json"
    return marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime


@pytest.mark.timeout(600)
def test_extension_unit_tests() -> None:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("node / npm missing (apt-get install -y nodejs npm)")
    if not _installed():
        install = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT,
            capture_output=True,
            text=True,
            timeout=540,
            check=False,
        )
        if install.returncode != 0:
            pytest.skip(f"npm ci failed (no registry?): {install.stderr[-2000:]}")
    proc = subprocess.run(
        [npm, "test"], cwd=CLIENT, capture_output=True, text=True, timeout=300, check=False
    )
    out = proc.stdout + proc.stderr
    found = LINE.findall(out)
    assert found, out[-6000:]
    passed, failed = map(int, found[-1])
    assert failed == 0, out[-8000:]
    assert passed > 50, out[-6000:]
    assert proc.returncode == 0, out[-6000:]
