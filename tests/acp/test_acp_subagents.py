"""``task`` children over ACP, with the SDK's client plus a raw reader of the stream
(docs/subagents.md; the RFD's ``subagent_update`` has no SDK types, so the client declares
``clientCapabilities.subagents`` in a raw ``initialize`` and the test reads the raw
notifications): announce before any child update, one terminal per child, all before the
prompt's response; a child's permission question under the child's id; ``session/cancel``
on a child id stops only it; without the capability nothing but the ``task`` call."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.connection import StreamDirection, StreamEvent

from tests.subagents.helpers import calls, task, text, write_script

from .harness import Recorder, _client_streams
from .harness import text as prompt_blocks


class Raw:
    """Every raw message the agent sent, in order."""

    def __init__(self) -> None:
        self.incoming: list[dict[str, Any]] = []

    def __call__(self, event: StreamEvent) -> None:
        if event.direction == StreamDirection.INCOMING:
            self.incoming.append(event.message)

    def updates(self) -> list[tuple[str, dict[str, Any]]]:
        return [
            (m["params"]["sessionId"], m["params"]["update"])
            for m in self.incoming
            if m.get("method") == "session/update"
        ]


@contextlib.asynccontextmanager
async def served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, responses: list[dict[str, Any]], *extra: str
) -> AsyncIterator[tuple[Any, Recorder, Raw]]:
    from pi_lsp.acp.args import build_parser
    from pi_lsp.acp.factory import provision
    from pi_lsp.acp.main import serve
    from pi_lsp.acp.server import PiAcpAgent
    from pi_lsp.acp.stdio import LineTransport

    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    script = write_script(tmp_path / "script.json", responses)
    prov = provision(
        build_parser().parse_args(["--provider", "faux", "--faux-script", script, *extra])
    )
    agent = PiAcpAgent(prov)
    to_agent_r, to_agent_w = os.pipe()
    to_client_r, to_client_w = os.pipe()
    serving = asyncio.ensure_future(serve(LineTransport(to_agent_r, to_client_w), agent))
    reader, writer = await _client_streams(to_client_r, to_agent_w)
    client, raw = Recorder(), Raw()
    conn = acp.connect_to_agent(client, writer, reader, observers=[raw])
    try:
        yield conn, client, raw
    finally:
        await conn.close()
        writer.close()
        await asyncio.wait_for(serving, 30)
        for fd in (to_agent_r, to_client_w):
            with contextlib.suppress(OSError):
                os.close(fd)


async def initialize(conn: Any, subagents: bool) -> None:
    caps: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}}
    if subagents:
        caps["subagents"] = {}
    await conn._conn.send_request(  # raw: the SDK's model would drop "subagents"
        "initialize", {"protocolVersion": 1, "clientCapabilities": caps}
    )


async def test_children_are_announced_streamed_and_terminated_before_the_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    responses = [
        calls(task("one", "CHILD-1: run"), task("two", "CHILD-2: look")),
        calls(("bash", {"command": "echo one"}), when="CHILD-1"),
        text("one ran", when="CHILD-1"),
        text("two looked", when="CHILD-2"),
        text("Parent: done"),
    ]
    async with served(tmp_path, monkeypatch, responses) as (conn, client, raw):
        await initialize(conn, subagents=True)
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        result = await conn.prompt(session_id=sid, prompt=prompt_blocks("go"))
        responded_at = len(raw.incoming)
        assert result.stop_reason == "end_turn"
    updates = raw.updates()
    subs = [(i, u) for i, (s, u) in enumerate(updates) if u["sessionUpdate"] == "subagent_update"]
    children = {u["subagentSessionId"] for _, u in subs}
    assert len(children) == 2
    assert all(s == sid for s, u in updates if u["sessionUpdate"] == "subagent_update")
    for child in children:
        mine = [(i, u) for i, u in subs if u["subagentSessionId"] == child]
        announce, *rest = mine
        assert announce[1]["name"] == "general"
        assert announce[1]["capabilities"] == {"cancel": True}
        terminals = [u for _, u in rest if u.get("state") in ("completed", "failed", "cancelled")]
        assert [t["state"] for t in terminals] == ["completed"]
        own = [i for i, (s, _) in enumerate(updates) if s == child]
        assert own, "the child's own updates, under its id"
        assert announce[0] < own[0]
        assert own[-1] < mine[-1][0]
    # every update came before the prompt's response
    last_update = max(i for i, m in enumerate(raw.incoming) if m.get("method") == "session/update")
    assert last_update < responded_at
    # the child's permission question was asked under the child's id
    [question] = client.permission_requests
    assert question.session_id in children
    assert "echo one" in (question.tool_call.title or "")
    assert not (question.tool_call.title or "").startswith("[")  # its id says whose


async def test_without_the_capability_only_the_task_call_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    responses = [
        calls(task("one", "CHILD-1: run")),
        calls(("bash", {"command": "echo one"}), when="CHILD-1"),
        text("one ran", when="CHILD-1"),
        text("Parent: done"),
    ]
    async with served(tmp_path, monkeypatch, responses) as (conn, client, raw):
        await initialize(conn, subagents=False)
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=prompt_blocks("go"))
    assert {s for s, _ in raw.updates()} == {sid}
    kinds = [u["sessionUpdate"] for _, u in raw.updates()]
    assert "subagent_update" not in kinds
    [question] = client.permission_requests
    assert question.session_id == sid
    assert question.tool_call.title.startswith("[general] ")
    task_calls = [u for _, u in raw.updates() if u.get("title", "").startswith("task")]
    assert task_calls


async def test_cancel_with_a_child_id_stops_only_that_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    responses = [
        calls(task("slow", "CHILD-S: wait"), task("fast", "CHILD-F: go")),
        text("slow " * 3000, when="CHILD-S", chunkSize=1, delayMs=5),
        text("fast done", when="CHILD-F"),
        text("Parent: carried on"),
    ]
    async with served(tmp_path, monkeypatch, responses) as (conn, _client, raw):
        await initialize(conn, subagents=True)
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        running = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt_blocks("go")))

        def slow_child() -> str | None:
            for _s, u in raw.updates():
                if u["sessionUpdate"] == "subagent_update" and u.get("task") == "slow":
                    child = u["subagentSessionId"]
                    if any(s2 == child for s2, _ in raw.updates()):
                        return str(child)
            return None

        for _ in range(2000):
            if slow_child():
                break
            await asyncio.sleep(0.01)
        child = slow_child()
        assert child is not None
        await conn.cancel(session_id=child)
        result = await asyncio.wait_for(running, 30)
        assert result.stop_reason == "end_turn"
    states = {
        u["task"]: u.get("state")
        for _, u in raw.updates()
        if u["sessionUpdate"] == "subagent_update" and u.get("state") not in (None, "running")
    }
    assert states == {"slow": "cancelled", "fast": "completed"}


async def test_load_replays_children_in_place_and_ends_orphans_disconnected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_lsp.sessions import SessionStore

    responses = [
        calls(task("one", "CHILD-1: look")),
        text("one looked", when="CHILD-1"),
        text("Parent: done"),
    ]
    async with served(tmp_path, monkeypatch, responses) as (conn, _client, _raw):
        await initialize(conn, subagents=True)
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=prompt_blocks("go"))
    # a child recorded as started whose process died (kill -9): no end record
    file = SessionStore.for_workspace(tmp_path).open(sid)
    file.append_custom(
        "subagent",
        {
            "childSessionId": "orphan-child",
            "toolCallId": "call-gone",
            "agent": "general",
            "description": "lost",
            "state": "running",
        },
    )
    file.close()
    async with served(tmp_path, monkeypatch, responses) as (conn, _client, raw):
        await initialize(conn, subagents=True)
        await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
    updates = raw.updates()
    kinds = [(s == sid, u["sessionUpdate"]) for s, u in updates]
    task_call = next(
        i for i, (s, u) in enumerate(updates) if u["sessionUpdate"] == "tool_call" and s == sid
    )
    announce = next(
        i for i, (_, u) in enumerate(updates) if u["sessionUpdate"] == "subagent_update"
    )
    child = updates[announce][1]["subagentSessionId"]
    own = [i for i, (s, _) in enumerate(updates) if s == child]
    terminal = next(
        i
        for i, (_, u) in enumerate(updates)
        if u.get("subagentSessionId") == child and u.get("state") == "completed"
    )
    assert task_call < announce < own[0]
    assert own[-1] < terminal
    assert any(
        u.get("content", {}).get("text") == "one looked" for s, u in updates if s == child
    ), kinds
    # the orphan: recorded as started, never ended (its process died) — ended as disconnected
    orphan = [
        u.get("state")
        for _, u in updates
        if u["sessionUpdate"] == "subagent_update" and u["subagentSessionId"] == "orphan-child"
    ]
    assert orphan == [None, "disconnected"]


def _projection(updates: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str]]:
    """What the order of a tree's updates is checked on: each tool call's first update and
    each child's terminal state (live text streams in chunks, replayed text in one)."""
    out: list[tuple[str, str]] = []
    for _, u in updates:
        if u["sessionUpdate"] == "tool_call":
            out.append(("call", u["toolCallId"]))
        elif u["sessionUpdate"] == "subagent_update" and u.get("state") in ("completed", "failed"):
            out.append(("ended", u["subagentSessionId"]))
    return out


async def test_load_replays_parallel_children_interleaved_as_they_happened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    responses = [
        calls(task("slow", "CHILD-1: take your time"), task("fast", "CHILD-2: be quick")),
        text("slow " * 60, when="CHILD-1", delayMs=8),  # streams for about half a second
        calls(("ls", {"path": "."}), when="CHILD-2"),
        calls(("find", {"pattern": "*.json"}), when="CHILD-2"),
        text("two done", when="CHILD-2"),
        text("Parent: done"),
    ]
    async with served(tmp_path, monkeypatch, responses) as (conn, _client, raw):
        await initialize(conn, subagents=True)
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=prompt_blocks("go"))
    live = raw.updates()
    announced = [u for _, u in live if u["sessionUpdate"] == "subagent_update"]
    slow, fast = announced[0]["subagentSessionId"], announced[1]["subagentSessionId"]
    live_order = _projection(live)
    # live, the quick child ran both its tools and ended while the slow one was streaming
    assert live_order.index(("ended", fast)) < live_order.index(("ended", slow))
    async with served(tmp_path, monkeypatch, responses) as (conn, _client, raw):
        await initialize(conn, subagents=True)
        await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
    replayed = raw.updates()
    assert _projection(replayed) == live_order
    slow_text = next(
        i
        for i, (s, u) in enumerate(replayed)
        if s == slow and u["sessionUpdate"] == "agent_message_chunk"
    )
    fast_calls = [
        i for i, (s, u) in enumerate(replayed) if s == fast and u["sessionUpdate"] == "tool_call"
    ]
    assert len(fast_calls) == 2
    assert fast_calls[-1] < slow_text  # interleaved under each child's id, as it happened
    # each child: announced after its task call, its updates, then its end, before the result
    for child in (slow, fast):
        own = [i for i, (s, _) in enumerate(replayed) if s == child]
        marks = [
            i
            for i, (_, u) in enumerate(replayed)
            if u["sessionUpdate"] == "subagent_update" and u["subagentSessionId"] == child
        ]
        assert marks[0] < own[0]
        assert own[-1] < marks[-1]
    results = [
        i
        for i, (s, u) in enumerate(replayed)
        if s == sid and u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"
    ]
    ends = [i for i, (_, u) in enumerate(replayed) if u.get("state") == "completed"]
    assert max(ends) < max(results)


@pytest.mark.parametrize("subagents", [True, False])
async def test_a_childs_mcp_question_is_attributed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, subagents: bool
) -> None:
    """The child calls the client's MCP server (the parent's connection); its question goes
    under the child's id with the capability, else on the parent titled ``[agent] …``."""
    import sys

    from acp.schema import EnvVariable, McpServerStdio

    from tests.mcp.conftest import DEMO

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    responses = [
        calls(task("sleep", "CHILD-M: nap")),
        calls(("mcp__demo__sleep", {"seconds": 0}), when="CHILD-M"),
        text("napped", when="CHILD-M"),
        text("Parent: done"),
    ]
    server = McpServerStdio(
        name="demo",
        command=sys.executable,
        args=[str(DEMO), "stdio"],
        env=[EnvVariable(name="PYTHONPATH", value=os.pathsep.join(sys.path))],
    )
    async with served(tmp_path, monkeypatch, responses) as (conn, client, raw):
        client.answer = lambda req: "allowOnce"
        await initialize(conn, subagents=subagents)
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[server])).session_id
        await conn.prompt(session_id=sid, prompt=prompt_blocks("go"))
    [question] = client.permission_requests
    title = question.tool_call.title or ""
    if subagents:
        child = next(
            u["subagentSessionId"]
            for _, u in raw.updates()
            if u["sessionUpdate"] == "subagent_update"
        )
        assert question.session_id == child
        assert title == "Call MCP tool sleep (server demo)"
    else:
        assert question.session_id == sid
        assert title == "[general] Call MCP tool sleep (server demo)"
    results = [
        u
        for _, u in raw.updates()
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"
    ]
    assert any("napped" in json.dumps(u) for u in results)


async def test_cancelling_the_parent_with_a_childs_question_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The question is withdrawn, the child ends ``cancelled`` (its terminal update before the
    prompt's response), and the prompt ends ``cancelled``: nothing hangs."""
    responses = [
        calls(task("one", "CHILD-1: run")),
        calls(("bash", {"command": "touch never"}), when="CHILD-1"),
        text("never", when="CHILD-1"),
        text("never"),
    ]
    async with served(tmp_path, monkeypatch, responses) as (conn, client, raw):
        await initialize(conn, subagents=True)
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        asked = asyncio.Event()

        async def never(_request: Any) -> str:
            asked.set()
            await asyncio.get_running_loop().create_future()
            return "allow_once"

        client.answer = never
        running = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt_blocks("go")))
        await asyncio.wait_for(asked.wait(), 30)
        await conn.cancel(session_id=sid)
        result = await asyncio.wait_for(running, 30)
        responded_at = len(raw.incoming)
    assert result.stop_reason == "cancelled"
    states = [
        (i, u.get("state"))
        for i, (_, u) in enumerate(raw.updates())
        if u["sessionUpdate"] == "subagent_update" and u.get("state") not in (None, "running")
    ]
    assert [s for _, s in states] == ["cancelled"]
    assert not (tmp_path / "never").exists()
    last_update = max(i for i, m in enumerate(raw.incoming) if m.get("method") == "session/update")
    assert last_update < responded_at
