"""Real MCP servers through the hub: the SDK-built demo server over Streamable HTTP
(``${VAR}`` headers, an erroring tool, a tool past its timeout, tools/list_changed) and over
stdio (a server exiting mid-call: an error result, then restarted on next use), names within
the providers' rule, and no process left after the hub closes."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys

import pytest

from pi_lsp.agent.types import ToolFailure
from pi_lsp.mcp.hub import McpHub
from pi_lsp.mcp.tools import McpTool, call_tool, direct_tools

from .conftest import configure, demo_stdio


def tool(hub: McpHub, name: str) -> McpTool:
    return next(t for t in direct_tools(hub.ready()) if t.listed.name == name)


async def test_http_headers_are_expanded_and_errors_and_timeouts_are_readable(
    hub: McpHub, demo_http: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_KEY", "key-from-env")
    server = {
        "type": "http",
        "url": demo_http,
        "headers": {"X-Api-Key": "${DEMO_KEY}"},
        "timeout": 0.5,
    }
    configure(hub, {"demo": server})
    await hub.prepare(None)
    (status,) = hub.status()
    assert (status.state, status.transport, status.tool_count) == ("ready", "http", 6)
    assert "key-from-env" not in str(status.to_wire())  # headers are never shown

    echo = tool(hub, "echo_header")
    assert echo.listed.read_only
    assert echo.name == "mcp__demo__echo_header"
    result = await call_tool(echo.server, "echo_header", {}, None)
    # the server got the expanded value: only that exact value is cut from what the model sees
    assert result.content[0].text == "x-api-key=[REDACTED]"  # type: ignore[union-attr]

    with pytest.raises(ToolFailure, match="failed on purpose: because"):
        await call_tool(echo.server, "fail", {"why": "because"}, None)
    with pytest.raises(ToolFailure, match=r"did not answer within 0\.5 s"):
        await call_tool(echo.server, "sleep", {"seconds": 30}, None)
    # the server is still usable after both
    assert hub.status()[0].state == "ready"
    again = await call_tool(echo.server, "echo_header", {}, None)
    assert again.content[0].text == "x-api-key=[REDACTED]"  # type: ignore[union-attr]


async def test_tools_list_changed_refreshes_the_tools(hub: McpHub, demo_http: str) -> None:
    changed = asyncio.Event()
    configure(hub, {"demo": {"type": "http", "url": demo_http}})
    await hub.prepare(None)
    server = hub.ready()[0]
    hub.on_change = changed.set
    server._on_change = changed.set
    assert "extra" not in [t.name for t in server.tools]
    await call_tool(server, "grow", {}, None)
    while "extra" not in [t.name for t in server.tools]:
        changed.clear()
        await asyncio.wait_for(changed.wait(), 20)
    assert "mcp__demo__extra" in [t.name for t in direct_tools(hub.ready())]


async def test_a_server_exiting_mid_call_is_an_error_then_restarted_on_next_use(
    hub: McpHub,
) -> None:
    configure(hub, {"demo": demo_stdio()})
    await hub.prepare(None)
    server = hub.ready()[0]
    first_pid = (await call_tool(server, "pid", {}, None)).content[0].text  # type: ignore[union-attr]
    with pytest.raises(ToolFailure, match="restarted on its next use"):
        await call_tool(server, "crash", {}, None)
    assert hub.status()[0].state == "failed"
    await hub.prepare(None)  # the next turn
    assert hub.status()[0].state == "ready"
    second_pid = (await call_tool(server, "pid", {}, None)).content[0].text  # type: ignore[union-attr]
    assert second_pid != first_pid
    await hub.aclose()
    assert not os.path.exists(f"/proc/{first_pid}")
    assert not os.path.exists(f"/proc/{second_pid}")


async def test_a_command_that_does_not_exist_fails_with_a_message(hub: McpHub) -> None:
    configure(hub, {"nope": {"command": "/nonexistent/mcp-server"}})
    await hub.prepare(None)
    (status,) = hub.status()
    assert status.state == "failed"
    assert status.message
    assert "cannot start /nonexistent/mcp-server" in status.message  # the guard's stderr


async def test_a_server_dying_at_start_says_why_from_its_stderr_without_its_token(
    hub: McpHub, caplog: pytest.LogCaptureFixture
) -> None:
    token = "tok-3f9a6c1e52d84b7aa0c4"
    script = (
        "import os, sys\n"
        "print('starting up', file=sys.stderr, flush=True)\n"
        "print('auth failed for token ' + os.environ['DEMO_TOKEN'], file=sys.stderr)\n"
        "sys.exit(3)\n"
    )
    configure(
        hub,
        {"dies": {"command": sys.executable, "args": ["-c", script], "env": {"DEMO_TOKEN": token}}},
    )
    with caplog.at_level(logging.INFO, logger="pi_lsp.mcp"):
        await hub.prepare(None)
    (status,) = hub.status()
    assert status.state == "failed"
    assert status.message is not None
    assert "auth failed for token [REDACTED]" in status.message
    assert token not in status.message
    logged = [r.getMessage() for r in caplog.records if "(stderr)" in r.getMessage()]
    assert any("starting up" in line for line in logged)
    assert all(token not in line for line in logged)


async def test_names_fit_every_provider() -> None:
    from pi_lsp.mcp.names import tool_name, unique

    rule = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
    long = tool_name("my.server with spaces", "x" * 100)
    assert rule.match(long)
    assert len(long) == 64
    assert tool_name("a", "x" * 100) != tool_name("a", "x" * 99 + "y")
    assert rule.match(tool_name("gh", "issues/list"))
    assert tool_name("gh", "t") == "mcp__gh__t"
    assert unique(["a", "a", "b"]) == ["a", "a_2", "b"]


async def test_without_the_sdk_one_message_names_the_install_command() -> None:
    hub = McpHub(sdk=False)
    configure(hub, {"time": {"command": "mcp-server-time"}})
    notice = hub.sdk_notice()
    assert notice is not None
    assert "pip install 'pi-lsp[mcp]'" in notice
    assert "time" in notice
    assert hub.sdk_notice() is None  # once
    await hub.prepare(None)  # nothing starts, nothing fails
    assert hub.status()[0].state == "failed"
    assert "pi-lsp[mcp]" in (hub.status()[0].message or "")
