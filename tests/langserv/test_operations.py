"""Every operation of the lsp tool against jedi-language-server on the fixture project
(Backend B: pi-lsp starts the server).

The tests share one warm server and one copy of the project (``warm_pool``, conftest.py), in
the module's event loop; a test that changes the project's files or needs a cold server asks
for its own with ``@pytest.mark.usefixtures("own_server")`` (a shared test that changes a file
of the project fails at teardown, saying so)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from pi_lsp.langserv import ServerPool
from pi_lsp.tools.common import ToolError
from pi_lsp.tools.disk_workspace import DiskWorkspace
from pi_lsp.tools.lsp import LspParams, LspTool

from .conftest import JEDI, config, copy_project, server, snapshot

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture
def own_server() -> None:
    """Asked for by a test that changes the project or needs a cold server: it gets its own
    copy of the project and its own server (``_served``)."""


@pytest_asyncio.fixture(loop_scope="module")
async def _served(
    request: pytest.FixtureRequest,
    shared_workspace: DiskWorkspace,
    warm_pool: ServerPool,
    tmp_path: Path,
) -> AsyncIterator[tuple[DiskWorkspace, ServerPool]]:
    if "own_server" not in request.fixturenames:
        before = snapshot(shared_workspace.cwd)
        yield shared_workspace, warm_pool
        assert snapshot(shared_workspace.cwd) == before, (
            "the test changed the shared project: give it its own server "
            '(@pytest.mark.usefixtures("own_server"))'
        )
        return
    ws = DiskWorkspace([copy_project(tmp_path)])
    pool = ServerPool(config(server()), ws, timeout=30)
    try:
        yield ws, pool
    finally:
        await pool.aclose()


@pytest.fixture
def ws(_served: tuple[DiskWorkspace, ServerPool]) -> DiskWorkspace:
    return _served[0]


@pytest.fixture
def tool(_served: tuple[DiskWorkspace, ServerPool]) -> LspTool:
    return LspTool(*_served)


async def ask(tool: LspTool, **params: Any) -> str:
    result = await tool.execute("call", LspParams.model_validate(params))
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_definition_across_files_by_symbol_name(tool: LspTool) -> None:
    text = await ask(tool, operation="definition", path="app/main.py", line=5, symbol="load_config")
    assert text == "app/config.py:18:5  def load_config(name: str) -> dict[str, str]:"


async def test_references_list_the_definition_and_every_use(tool: LspTool) -> None:
    text = await ask(
        tool, operation="references", path="app/config.py", line=18, symbol="load_config"
    )
    assert text.splitlines() == [
        "app/config.py:18:5  def load_config(name: str) -> dict[str, str]:",
        "app/main.py:1:24  from app.config import load_config",
        'app/main.py:5:16  settings = load_config("main")',
        'app/main.py:10:16  return str(load_config("again"))',
    ]


async def test_hover_gives_the_signature_and_docstring(tool: LspTool) -> None:
    text = await ask(tool, operation="hover", path="app/main.py", line=5, character=17)
    assert "load_config" in text
    assert "Load the named configuration." in text


async def test_document_symbols_are_a_tree_at_the_names(tool: LspTool) -> None:
    text = await ask(tool, operation="documentSymbols", path="app/config.py")
    lines = text.splitlines()
    assert "Loader (class) 4:7" in lines
    assert "  load (method) 7:9" in lines
    assert "JsonLoader (class) 11:7" in lines
    assert "load_config (function) 18:5" in lines


async def test_workspace_symbols_by_query(tool: LspTool) -> None:
    text = await ask(tool, operation="workspaceSymbols", query="JsonLoader")
    assert "JsonLoader (class)" in text
    assert "app/config.py:11:7" in text


async def test_type_definition(tool: LspTool) -> None:
    text = await ask(
        tool, operation="typeDefinition", path="app/config.py", line=20, symbol="JsonLoader"
    )
    assert "app/config.py:11:7" in text


async def test_operations_the_server_lacks_say_so(tool: LspTool) -> None:
    for op in ("implementation", "incomingCalls", "outgoingCalls"):
        with pytest.raises(ToolError, match="does not support"):
            await ask(tool, operation=op, path="app/config.py", line=18, symbol="load_config")


async def test_diagnostics_of_a_broken_file(tool: LspTool, ws: Any) -> None:
    (ws.cwd / "app" / "broken.py").write_text("def f(:\n    pass\n")
    text = await ask(tool, operation="diagnostics", path="app/broken.py")
    assert text.startswith("ERROR 1:")


async def test_positions_and_files_the_model_gets_wrong_are_explained(tool: LspTool) -> None:
    with pytest.raises(ToolError, match=r"Line 80 is past the end of app/main\.py"):
        await ask(tool, operation="definition", path="app/main.py", line=80, symbol="x")
    with pytest.raises(ToolError, match="'nothing' is not on line 5"):
        await ask(tool, operation="definition", path="app/main.py", line=5, symbol="nothing")
    (tool.workspace.cwd / "x.rs").write_text("fn main() {}\n")
    with pytest.raises(ToolError, match=r"No language server for \*.rs files"):
        await ask(tool, operation="documentSymbols", path="x.rs")


@pytest.mark.usefixtures("own_server")
async def test_rename_changes_every_file_through_the_workspace(tool: LspTool, ws: Any) -> None:
    text = await ask(
        tool,
        operation="rename",
        path="app/config.py",
        line=18,
        symbol="load_config",
        newName="read_config",
    )
    assert text.startswith("Renamed load_config to read_config: 4 occurrences in 2 files.")
    assert "def read_config(name" in (ws.cwd / "app" / "config.py").read_text()
    main = (ws.cwd / "app" / "main.py").read_text()
    assert "load_config" not in main
    assert main.count("read_config") == 3
    # the server sees the agent's edit: the definition is found under its new name
    found = await ask(
        tool, operation="definition", path="app/main.py", line=5, symbol="read_config"
    )
    assert found.startswith("app/config.py:18:5  def read_config")


@pytest.mark.usefixtures("own_server")
async def test_a_cold_start_is_reported_in_the_progress(tool: LspTool) -> None:
    updates: list[str] = []

    def on_update(result: Any) -> None:
        updates.append("".join(getattr(c, "text", "") for c in result.content))

    params = LspParams(operation="hover", path="app/main.py", line=5, symbol="load_config")
    await tool.execute("call", params, None, on_update)
    assert updates == [f"Starting language server python ({JEDI})…"]
    await tool.execute("call", params, None, on_update)  # warm: nothing to report
    assert len(updates) == 1
