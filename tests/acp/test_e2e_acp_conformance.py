"""The ACP v1 requirements clients and the conformance kit check, against ``pi-lsp acp`` as a
process: transport, JSON-RPC, initialize (unknown version too), session ids, prompt ordering
and cancel; and what only a process shows: a session held by another process, a client that
disconnects mid-run. Every message the agent sends is validated against ``acp.schema``
(``harness.Validator``); the model is the scripted HTTP server (OpenAI Chat Completions)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import acp
import pytest

from tests.cli.helpers import ROOT, clean_env
from tests.lsp.openai_sse import response, text_events
from tests.support.http_server import Pause, ScriptedHTTPServer

from .harness import model_args, spawn, text

pytestmark = pytest.mark.timeout(90)


async def _raw(
    tmp_path: Path, url: str, lines: list[bytes], expect: int
) -> tuple[list[bytes], str]:
    """Write ``lines`` to a raw ``pi-lsp acp``; read ``expect`` stdout lines; close stdin."""
    (tmp_path / "work").mkdir(exist_ok=True)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_lsp",
        "acp",
        *model_args(url),
        env=clean_env(tmp_path),
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    out: list[bytes] = []
    for line in lines:
        proc.stdin.write(line + b"\n")
    await proc.stdin.drain()
    for _ in range(expect):
        out.append(await asyncio.wait_for(proc.stdout.readline(), 30))
    proc.stdin.close()
    rest, err = await asyncio.wait_for(proc.communicate(), 30)
    out += [line for line in rest.splitlines(keepends=True) if line]
    assert proc.returncode == 0, err.decode()
    return out, err.decode()


def _req(id_: object, method: str, params: dict[str, object] | None = None) -> bytes:
    msg: dict[str, object] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode()


async def test_transport_one_json_message_per_line_and_nothing_else_on_stdout(
    tmp_path: Path,
) -> None:
    async with ScriptedHTTPServer() as srv:
        out, err = await _raw(
            tmp_path,
            srv.url,
            [
                b"this is not json",
                _req(1, "initialize", {"protocolVersion": 1}),
                _req(2, "session/new", {"cwd": str(tmp_path / "work"), "mcpServers": []}),
            ],
            expect=4,  # parse error, initialize, session/new, available commands
        )
    messages = [json.loads(line) for line in out]  # every line is one JSON value
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in out)
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    assert messages[0] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: the line is not JSON"},
    }
    assert messages[1]["id"] == 1
    assert messages[1]["result"]["protocolVersion"] == 1
    assert "not JSON" in err  # the log went to stderr


async def test_json_rpc_ids_errors_and_notifications(tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv:
        out, _ = await _raw(
            tmp_path,
            srv.url,
            [
                _req("init-a", "initialize", {"protocolVersion": 1}),
                json.dumps(
                    {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "x"}}
                ).encode(),
                _req(7, "no/such/method", {}),
                _req(8, "_piLsp/unknown", {}),
                json.dumps({"jsonrpc": "2.0", "method": "_piLsp/ping", "params": {}}).encode(),
                _req(9, "session/prompt", {"sessionId": "nope", "prompt": []}),
                b"[1, 2]",
            ],
            expect=5,
        )
    by_id = {m["id"]: m for m in map(json.loads, out)}
    assert set(by_id) == {"init-a", 7, 8, 9, None}  # notifications were not answered
    assert "result" in by_id["init-a"]
    assert by_id[7]["error"]["code"] == -32601
    assert by_id[8]["error"]["code"] == -32601  # an unknown extension request still answered
    assert by_id[9]["error"]["code"] == -32602  # unknown session
    assert by_id[None]["error"]["code"] == -32600
    for message in by_id.values():
        assert ("result" in message) != ("error" in message)


async def test_initialize_answers_version_1_even_for_an_unknown_version(tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv, spawn(tmp_path, srv.url) as agent:
        res = await agent.init(version=99)
        assert res.protocol_version == 1
        assert res.agent_info is not None
        assert res.agent_info.name == "pi-lsp"
        assert res.agent_capabilities.load_session is True
        caps = res.agent_capabilities
        assert caps.prompt_capabilities.image
        assert caps.prompt_capabilities.embedded_context
        assert caps.session_capabilities.list is not None
        assert caps.session_capabilities.close is not None
        assert caps.session_capabilities.resume is not None
        assert res.field_meta["piLsp"]["deliver"] == ["followUp", "steer"]
        assert (await agent.init(version=1)).protocol_version == 1


async def test_session_ids_are_distinct_and_cwd_must_be_absolute(tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv, spawn(tmp_path, srv.url) as agent:
        await agent.init()
        first, second = await agent.new(), await agent.new()
        assert first != second
        assert first
        assert second
        with pytest.raises(acp.RequestError) as relative:
            await agent.conn.new_session(cwd="relative/dir", mcp_servers=[])
        assert relative.value.code == -32602
        with pytest.raises(acp.RequestError) as unknown:
            await agent.conn.prompt(session_id="no-such-session", prompt=text("hi"))
        assert unknown.value.code == -32602


async def test_prompt_streams_every_update_before_its_response(tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv, spawn(tmp_path, srv.url) as agent:
        srv.enqueue(response(text_events("Hello from the scripted model.", pieces=5)))
        await agent.init()
        sid = await agent.new()
        assert await agent.prompt(sid, "say hello") == "end_turn"
        assert agent.client.text(sid) == "Hello from the scripted model."
        order = agent.validator.updates_then_response()
        assert order[-1] == "response"
        assert order.count("update:agent_message_chunk") >= 2
        assert "update:usage_update" in order[: order.index("response")]
        chunks = agent.client.of("agent_message_chunk", sid)
        assert len({c.message_id for c in chunks}) == 1  # one message, one stable id
        assert agent.client.of("session_info_update", sid)[0].title == "say hello"
        usage = agent.client.of("usage_update", sid)[-1]
        assert usage.used > 0
        assert usage.size > 0
        assert usage.cost is not None


async def test_cancel_resolves_the_prompt_cancelled_and_the_next_prompt_works(
    tmp_path: Path,
) -> None:
    gate = Pause(asyncio.Event())
    async with ScriptedHTTPServer() as srv, spawn(tmp_path, srv.url) as agent:
        srv.enqueue(response(text_events("one two three four", pieces=4), gate=gate, gate_after=2))
        srv.enqueue(response(text_events("Second answer.")))
        await agent.init()
        sid = await agent.new()
        pending = asyncio.ensure_future(agent.prompt(sid, "count"))
        await agent.client.wait_for(lambda: bool(agent.client.of("agent_message_chunk", sid)))
        await agent.conn.cancel(session_id=sid)
        assert await asyncio.wait_for(pending, 30) == "cancelled"
        gate.event.set()
        assert await agent.prompt(sid, "again") == "end_turn"
        assert agent.client.text(sid).endswith("Second answer.")


async def test_a_session_open_in_another_process_is_not_loaded_twice(tmp_path: Path) -> None:
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("Hi.")))
        async with spawn(tmp_path, srv.url) as first, spawn(tmp_path, srv.url) as second:
            await first.init()
            await second.init()
            sid = await first.new()
            assert await first.prompt(sid, "hello") == "end_turn"
            with pytest.raises(acp.RequestError) as held:
                await second.conn.load_session(cwd=str(second.cwd), session_id=sid, mcp_servers=[])
            assert "another process" in str(held.value.data)
            assert len(list((tmp_path / "data").rglob("*.jsonl"))) == 1  # no copy left


async def test_a_client_that_disconnects_mid_run_leaves_a_consistent_session(
    tmp_path: Path,
) -> None:
    gate = Pause(asyncio.Event())
    async with ScriptedHTTPServer() as srv:
        srv.enqueue(response(text_events("never finished", pieces=4), gate=gate, gate_after=2))
        async with spawn(tmp_path, srv.url) as agent:
            await agent.init()
            sid = await agent.new()
            asyncio.ensure_future(agent.prompt(sid, "one")).add_done_callback(
                lambda f: f.cancelled() or f.exception()
            )
            await agent.client.wait_for(lambda: bool(agent.client.of("agent_message_chunk", sid)))
            proc = agent.proc
            assert proc.stdin is not None
            proc.stdin.close()  # the editor went away
            assert await asyncio.wait_for(proc.wait(), 30) == 0
        gate.event.set()
    files = list((tmp_path / "data").rglob(f"*_{sid}.jsonl"))
    assert len(files) == 1
    entries = [json.loads(line) for line in files[0].read_text().splitlines()]
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    assert roles == ["user", "assistant"]
    assert entries[-1]["message"]["stopReason"] == "aborted"
