"""luacheck over the Neovim plugin's Lua (``editors/neovim/lua``, configured by
``editors/neovim/.luacheckrc``): any warning fails. Skips outside CI when luacheck is missing
(Debian package ``lua-check``, installed by ``.ci/install-debian.sh``); under ``CI=true`` that
skip is a failure (tests/support/tiers.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "editors" / "neovim"


@pytest.mark.timeout(120)
def test_plugin_lua_is_luacheck_clean() -> None:
    luacheck = shutil.which("luacheck")
    if luacheck is None:
        pytest.skip("luacheck missing (apt-get install -y lua-check)")
    assert (PLUGIN / ".luacheckrc").is_file()
    proc = subprocess.run(
        [luacheck, "--no-color", "--codes", "lua"],
        cwd=PLUGIN,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-8000:]
    assert "0 warnings / 0 errors" in out, out[-8000:]


def test_luacheck_config_is_what_the_run_uses(tmp_path: Path) -> None:
    """The check can fail: a file with an undefined global is reported under the plugin's
    config (so a broken config cannot make every file pass)."""
    luacheck = shutil.which("luacheck")
    if luacheck is None:
        pytest.skip("luacheck missing (apt-get install -y lua-check)")
    bad = tmp_path / "bad.lua"
    bad.write_text("local M = {}\nfunction M.f() return undefined_thing end\nreturn M\n")
    proc = subprocess.run(
        [luacheck, "--no-color", "--config", str(PLUGIN / ".luacheckrc"), str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode != 0
    assert "undefined_thing" in proc.stdout
