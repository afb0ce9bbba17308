"""`@` mentions of workspace symbols in Neovim's chat buffer (feature table row 48,
editors/neovim/lua/pi/mention.lua), on Neovim 0.11 and 0.7 with jedi-language-server attached
as the user's own server: typing `@load_con` opens the menu with load_config (kind, container,
path), widened from jedi's name-only location to the whole function; choosing it inserts
`@app/config.py#L18-20` and the sent prompt carries those lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.editors.test_neovim_lspquery import run_with_jedi
from tests.langserv.conftest import JEDI
from tests.lsp.test_editors_neovim import nvim_binary

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "editors" / "neovim" / "tests" / "atmention.lua"


@pytest.mark.editor
@pytest.mark.timeout(180)
@pytest.mark.parametrize("version", ["0.11", "0.7"])
def test_neovim_chat_at_completes_workspace_symbols(tmp_path: Path, version: str) -> None:
    binary = nvim_binary(version)
    if binary is None or not JEDI.exists():
        pytest.skip(f"Neovim {version} or jedi-language-server is not installed")
    out = run_with_jedi(binary, SCRIPT, tmp_path)
    assert re.search(r"^\d+ passed, 0 failed$", out, re.M), out
    assert not re.search(r"^FAIL ", out, re.M), out
