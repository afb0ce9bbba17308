"""Issue 26 over the real server (in process), with the SDK-built demo server
(tests/mcp/servers/demo_server.py) from the ``pi.mcpServers`` setting (trusted: no trust
question): the permission rules (``alwaysAllow``, read-only with ``readOnlyWithoutAsking``,
a deny reason reaching the model), the ``mcp`` proxy tool for 300 generated tools with the
request's tool definitions below 10 % of the context window, and the one message when the
MCP library is missing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import demo_stdio
from tests.support.http_server import ScriptedHTTPServer

from .conftest import Start, http_settings
from .openai_sse import response, text_events, tool_events
from .test_security import start_with_permissions, text_of


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def tool_messages(request: Any) -> str:
    return json.dumps([m for m in request.json["messages"] if m["role"] == "tool"])


async def test_always_allow_read_only_and_a_deny_reason(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    calls = [
        ("mcp__demo__pid", {}),  # alwaysAllow
        ("mcp__demo__echo_header", {}),  # read-only, readOnlyWithoutAsking
        ("mcp__demo__sleep", {"seconds": 0}),  # asked: denied with a reason
    ]
    srv.enqueue(response(tool_events(calls)))
    srv.enqueue(response(text_events("ok")))
    settings = http_settings(
        srv,
        mcpServers={"demo": demo_stdio(alwaysAllow=["pid"])},
        permissions={"mcp": "readOnlyWithoutAsking"},
    )
    h, perms = await start_with_permissions(pi_in_process, settings)
    perms.answer("deny", "not now, thanks")
    sid = await h.run("use the demo tools")
    (question,) = perms.requests
    assert question["tool"] == "mcp__demo__sleep"
    assert '"seconds": 0' in question["detail"]
    ends = {e["toolName"]: e for e in h.tool_ends(sid)}  # parallel: any order
    pid, echo, sleep = (ends[name] for name, _ in calls)
    assert text_of(pid).isdigit()
    assert text_of(echo) == "x-api-key=<none>"
    assert sleep["isError"]
    assert "not now, thanks" in tool_messages(srv.requests[-1])


async def test_300_tools_go_behind_the_proxy_tool(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    window = 128_000
    srv.enqueue(response(tool_events([("mcp", {"search": "warehouse 123"})])))
    call = {"tool": "mcp__demo__generated_tool_123", "arguments": {"query": "bolts"}}
    srv.enqueue(response(tool_events([("mcp", call)])))
    srv.enqueue(response(text_events("found")))
    settings = http_settings(
        srv,
        contextWindow=window,
        mcpServers={"demo": demo_stdio(env={"DEMO_TOOLS": "300"})},
        permissions={"mcp": "allow"},
    )
    h, _ = await start_with_permissions(pi_in_process, settings)
    sid = await h.run("find bolts")
    first = srv.requests[0].json
    names = [t["function"]["name"] for t in first["tools"]]
    assert "mcp" in names
    assert not [n for n in names if n.startswith("mcp__")]
    assert len(json.dumps(first["tools"])) < 0.10 * window * 4  # ≈ 4 characters a token
    search, result = h.tool_ends(sid)  # two turns: in order
    assert "mcp__demo__generated_tool_123" in text_of(search)
    assert '"query"' in text_of(search)  # the schema comes with the name
    assert text_of(result) == "tool 123: bolts 10"
    (server,) = (await h.call("pi/mcp"))["servers"]
    assert server["toolCount"] == 306


async def test_without_the_library_one_message_and_the_run_goes_on(
    pi_in_process: Start, srv: ScriptedHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pi_lsp.mcp.hub.sdk_available", lambda: False)
    srv.enqueue(response(text_events("hello")))
    srv.enqueue(response(text_events("again")))
    settings = http_settings(srv, mcpServers={"demo": demo_stdio()})
    h, _ = await start_with_permissions(pi_in_process, settings)
    await h.run("hi")
    await h.run("hi again")
    shown = [
        m.message
        for m in h.client.messages  # type: ignore[attr-defined]
        if "pi-lsp[mcp]" in m.message
    ]
    assert len(shown) == 1
    assert "demo" in shown[0]
    (server,) = (await h.call("pi/mcp"))["servers"]
    assert server["state"] == "failed"
