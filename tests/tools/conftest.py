"""Fixtures for the coding-tool tests: a real temporary workspace and a call helper that
goes through the same steps as the agent loop (prepare_arguments, validation, execute)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_lsp.ai import AbortSignal, TextContent
from pi_lsp.tools import DiskWorkspace


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
