"""Issue 26 over the real server (in process): the user's ``.mcp.json`` with the real
``mcp-server-time`` from PyPI — the trust question, the permission question, the scripted
model calling ``mcp__time__convert_time``, its result in the next model request, ``pi/mcp``
and ``pi/state`` listing the server, and no server process left after ``shutdown``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.support import processes_with, unique_time_server
from tests.support.http_server import ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import stop
from .openai_sse import response, text_events, tool_events
from .test_security import start_with_permissions, text_of

CONVERT = {"source_timezone": "Europe/Berlin", "time": "12:00", "target_timezone": "Asia/Tokyo"}


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return


def project_file(workspace: Path, command: Path, **extra: Any) -> None:
    servers = {"time": {"command": str(command), "args": ["--local-timezone", "UTC"], **extra}}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


async def test_time_server_from_mcp_json_is_trusted_asked_and_called(
    pi_in_process: Start, workspace: Path, tmp_path: Path, srv: ScriptedHTTPServer
) -> None:
    command = unique_time_server(tmp_path)
    project_file(workspace, command)
    srv.enqueue(response(tool_events([("mcp__time__convert_time", CONVERT)])))
    srv.enqueue(response(text_events("It is 20:00 in Tokyo.")))
    h, perms = await start_with_permissions(pi_in_process, http_settings(srv))
    perms.answer("allowAlways")  # trust the project's servers
    perms.answer("allowOnce")  # the call
    sid = await h.run("what time is noon in Berlin in Tokyo?")

    trust, call = perms.requests
    assert ".mcp.json" in trust["title"]
    assert "time" in trust["title"]
    assert str(command) in trust["detail"]
    assert [o["kind"] for o in trust["options"]] == ["allowAlways", "deny"]
    assert call["tool"] == "mcp__time__convert_time"
    assert "Asia/Tokyo" in call["detail"]
    assert [o["kind"] for o in call["options"]] == [
        "allowOnce",
        "allowSession",
        "allowAlways",
        "deny",
    ]

    first = srv.requests[0].json
    tools = {t["function"]["name"]: t["function"] for t in first["tools"]}
    schema = tools["mcp__time__convert_time"]["parameters"]
    assert set(schema["required"]) == {"source_timezone", "time", "target_timezone"}
    assert "mcp__time__get_current_time" in tools
    assert "bash" in tools

    (end,) = h.tool_ends(sid)
    assert not end["isError"]
    assert end["result"]["details"]["mcp"] == {"server": "time", "tool": "convert_time"}
    assert "+8.0h" in text_of(end)
    last = srv.requests[-1].json
    tool_msgs = [m for m in last["messages"] if m["role"] == "tool"]
    assert "2026" in json.dumps(tool_msgs) or "T20:00:00+09:00" in json.dumps(tool_msgs)
    assert "20:00:00+09:00" in json.dumps(tool_msgs)

    listed = await h.call("pi/mcp", {"op": "list"})
    (server,) = listed["servers"]
    assert (server["name"], server["source"], server["state"], server["toolCount"]) == (
        "time",
        "project",
        "ready",
        2,
    )
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["mcp"][0]["state"] == "ready"
    assert processes_with(command.name), "the server runs while the session lives"
    assert not list(workspace.rglob("*trust*"))  # the decision is not kept in the repository

    await stop(h)
    assert processes_with(command.name) == []


async def test_denied_trust_starts_nothing_and_is_remembered(
    pi_in_process: Start, workspace: Path, tmp_path: Path, srv: ScriptedHTTPServer
) -> None:
    command = unique_time_server(tmp_path)
    project_file(workspace, command)
    srv.enqueue(response(text_events("no tools then")))
    srv.enqueue(response(text_events("still none")))
    h, perms = await start_with_permissions(pi_in_process, http_settings(srv))
    perms.answer("deny")
    await h.run("hello")
    await h.run("again")
    assert len(perms.requests) == 1  # asked once
    for request in srv.requests:
        names = [t["function"]["name"] for t in request.json["tools"]]
        assert not [n for n in names if n.startswith("mcp")]
    (server,) = (await h.call("pi/mcp"))["servers"]
    assert server["state"] == "failed"
    assert "not allowed" in server["message"]
    assert processes_with(command.name) == []
