"""Fixtures for the coding-tool tests: a real temporary workspace and a call helper that
goes through the same steps as the agent loop (prepare_arguments, validation, execute)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_lsp.ai import AbortSignal, TextContent
from pi_lsp.tools import DiskWorkspace
from pi_lsp.tools.process import _group_alive


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def ws(root: Path) -> DiskWorkspace:
    return DiskWorkspace([root])


@pytest.fixture(params=["python", "rg"])
def grep_backend(request: pytest.FixtureRequest) -> str:
    if request.param == "rg" and shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed")
    return str(request.param)


async def call(
    tool: AgentTool[Any],
    args: dict[str, Any],
    *,
    signal: AbortSignal | None = None,
    on_update: ToolUpdateCallback | None = None,
) -> AgentToolResult:
    prepared = tool.prepare_arguments(args)
    params = tool.parameters.model_validate(prepared)
    return await tool.execute("call-1", params, signal, on_update)


def text(result: AgentToolResult) -> str:
    assert result.content, "empty result"
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


async def wait_group_gone(pgid: int) -> None:
    """SIGKILL is asynchronous: poll the group's state (bounded) until it has no members."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 1.0
    while _group_alive(pgid):
        assert loop.time() < deadline, f"process group {pgid} still alive after 1 s"
        await asyncio.sleep(0.01)
