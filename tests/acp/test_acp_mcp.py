"""Issue 26 through ``pi-lsp acp`` (in process): the MCP servers a client passes in
``session/new`` — the real ``mcp-server-time`` over stdio — become the session's tools; the
call is asked with ``session/request_permission`` and its result reaches the next model
request; the server stops with the session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp.schema import McpServerStdio

from tests.lsp.openai_sse import response, text_events, tool_events
from tests.mcp.support import processes_with, unique_time_server
from tests.support.http_server import ScriptedHTTPServer

from .harness import in_process

pytestmark = pytest.mark.timeout(120)
CONVERT = {"source_timezone": "Europe/Berlin", "time": "12:00", "target_timezone": "Asia/Tokyo"}


async def test_client_mcp_servers_are_tools_asked_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    command = unique_time_server(tmp_path)
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(tool_events([("mcp__time__convert_time", CONVERT)])))
        srv.enqueue(response(text_events("Tokyo.")))
        async with in_process(tmp_path, srv.url, monkeypatch) as agent:
            agent.client.answer = lambda req: "allowOnce"
            await agent.init()
            server = McpServerStdio(name="time", command=str(command), args=[], env=[])
            res = await agent.conn.new_session(cwd=str(agent.cwd), mcp_servers=[server])
            sid = str(res.session_id)
            assert await agent.prompt(sid, "convert") == "end_turn"
            (asked,) = agent.client.permission_requests
            assert "convert_time" in (asked.tool_call.title or "")
            assert {o.kind for o in asked.options} == {"allow_once", "allow_always", "reject_once"}
            tools = [t["function"]["name"] for t in srv.requests[0].json["tools"]]
            assert "mcp__time__convert_time" in tools
            assert "20:00:00+09:00" in json.dumps(srv.requests[1].json["messages"])
            assert processes_with(command.name)
        assert processes_with(command.name) == []  # closed with the session
