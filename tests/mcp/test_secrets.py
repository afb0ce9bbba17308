"""A server's own credentials (its env and headers) never reach the model or files."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from pi_lsp.ai import TextContent
from pi_lsp.mcp.config import McpServerConfig
from pi_lsp.mcp.results import to_agent_result
from pi_lsp.mcp.server import McpServer
from pi_lsp.security import vault

TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
BEARER = "s3cr3t-bearer-value-0123456789"


@pytest.fixture(autouse=True)
def _clean_vault() -> Iterator[None]:
    yield
    vault.reset_for_tests()


def _config() -> McpServerConfig:
    return McpServerConfig(
        name="gh",
        transport="stdio",
        command="server",
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": TOKEN, "LOG_LEVEL": "debug-verbose-mode"},
        headers={"Authorization": f"Bearer {BEARER}", "Accept": "application/json"},
    )


def test_secret_values_are_the_credentials_only() -> None:
    found = _config().secret_values()
    assert TOKEN in found
    assert BEARER in found
    assert f"Bearer {BEARER}" in found
    assert "debug-verbose-mode" not in found
    assert "application/json" not in found


def test_a_result_echoing_the_token_is_cut() -> None:
    result = SimpleNamespace(
        content=[SimpleNamespace(type="text", text=f"env: token={TOKEN} auth={BEARER}")],
        structured_content=None,
        is_error=False,
    )
    out = to_agent_result(result, {}, _config().secret_values())
    (block,) = out.content
    assert isinstance(block, TextContent)
    assert block.text == "env: token=[REDACTED] auth=[REDACTED]"


def test_structured_content_is_cut_too() -> None:
    result = SimpleNamespace(content=[], structured_content={"token": TOKEN}, is_error=False)
    out = to_agent_result(result, {}, _config().secret_values())
    assert TOKEN not in str(out.content)


def test_the_vault_remembers_them_for_session_files_and_logs() -> None:
    McpServer(_config())
    assert {TOKEN, BEARER} <= vault.secret_values(env={})
