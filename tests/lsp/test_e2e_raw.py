"""Raw JSON-RPC: malformed input gets error responses and the server keeps serving; a
client that stops reading does not stop the server (other sessions keep going, nothing is
lost, order is kept)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.http_server import ScriptedHTTPServer

from .conftest import http_settings
from .openai_sse import response, text_events, tool_events
from .raw import RawClient


async def test_malformed_messages_get_errors(workspace: Path, data_dir: Path) -> None:
    c = await RawClient.start(data_dir)
    try:
        await c.initialize(workspace, {"provider": "faux"})
        c.send_bytes(b'{"jsonrpc": "2.0", "id": 1, "method": ')  # cut JSON
        parse = await c.wait_for(
            lambda: [m for m in c.messages if m.get("error", {}).get("code") == -32700]
        )
        assert parse[0]["id"] is None
        c.send_bytes(b"[1, 2, 3]")
        await c.wait_for(
            lambda: [m for m in c.messages if m.get("error", {}).get("code") == -32600]
        )
        bad = await c.call("textDocument/codeAction", {"range": "bogus"})
        assert bad["error"]["code"] == -32602
        assert "textDocument" in bad["error"]["message"] or "range" in bad["error"]["message"]
        unknown = await c.call("pi/whatever", {})
        assert unknown["error"]["code"] == -32601
        c.send({"jsonrpc": "1.0", "id": 77, "method": "pi/sessions"})
        old = await c.response(77)
        assert old["error"]["code"] == -32600
        c.notify("pi/notAThing", {"x": 1})  # unknown notifications are ignored
        ok = await c.call("pi/sessions", {})
        assert ok["result"] == {"sessions": []}
    finally:
        assert await c.close() == 0


async def test_requests_after_shutdown_are_refused(workspace: Path, data_dir: Path) -> None:
    c = await RawClient.start(data_dir)
    await c.initialize(workspace, {"provider": "faux"})
    assert (await c.call("shutdown"))["result"] is None
    refused = await c.call("pi/sessions", {})
    assert refused["error"]["code"] == -32600
    c.notify("exit")
    assert await asyncio.wait_for(c.proc.wait(), 10) == 0


async def test_stdin_eof_ends_the_server(workspace: Path, data_dir: Path) -> None:
    c = await RawClient.start(data_dir)
    await c.initialize(workspace, {"provider": "faux"})
    assert c.proc.stdin is not None
    c.proc.stdin.close()
    await asyncio.wait_for(c.proc.wait(), 10)


async def test_a_client_that_stops_reading_does_not_stop_the_server(
    workspace: Path, data_dir: Path, srv: ScriptedHTTPServer
) -> None:
    big = "".join(f"line {i:05d} of a very long answer that fills the pipe\n" for i in range(8000))
    srv.enqueue(response(text_events(big, 400)))  # session A: ~450 KB of output
    for turn in range(3):  # session B: three model turns, two of them tool calls
        if turn < 2:
            srv.enqueue(response(tool_events([("read", {"path": "a.py"})])))
        else:
            srv.enqueue(response(text_events("B is done.")))
    c = await RawClient.start(data_dir)
    try:
        await c.initialize(workspace, http_settings(srv))
        sid_a = (await c.call("pi/newSession", {}))["result"]["sessionId"]
        sid_b = (await c.call("pi/newSession", {}))["result"]["sessionId"]
        c.reading.clear()  # the editor stops reading its pipe
        c.request("pi/prompt", {"text": "write a lot", "sessionId": sid_a})
        await srv.wait_for_requests(1)
        c.request("pi/prompt", {"text": "read a.py twice", "sessionId": sid_b})
        # B's three turns reach the model while nobody reads the server's output
        await asyncio.wait_for(srv.wait_for_requests(4), 30)
        c.reading.set()
        await c.wait_for(
            lambda: len([e for e in c.events() if e["event"]["type"] == "agent_end"]) == 2, 60
        )
        for sid in (sid_a, sid_b):
            seqs = [e["seq"] for e in c.events(sid)]
            assert seqs == list(range(1, len(seqs) + 1))
        text = "".join(
            e["event"]["assistantMessageEvent"].get("delta", "")
            for e in c.events(sid_a)
            if e["event"]["type"] == "message_update"
        )
        assert text == big
        b_end = c.events(sid_b)[-1]["event"]
        assert b_end["messages"][-1]["content"][0]["text"] == "B is done."
    finally:
        await c.close()


async def test_pi_requests_before_initialize_are_refused(data_dir: Path) -> None:
    """At once: pi/prompt used to wait ~5 s for the settings first (issue 10 item 7)."""
    c = await RawClient.start(data_dir)
    try:
        prompt = c.request("pi/prompt", {"text": "hi"})
        sessions = c.request("pi/sessions", {})
        early = await c.response(sessions)
        assert early["error"]["code"] == -32002
        answers = [m.get("id") for m in c.messages if "method" not in m]
        assert answers.index(prompt) < answers.index(sessions)  # not held back first
        assert (await c.response(prompt))["error"]["code"] == -32002
    finally:
        c.proc.kill()
        await c.proc.wait()


async def test_eof_mid_run_kills_tool_processes_and_keeps_the_session(
    tmp_path: Path, workspace: Path, data_dir: Path
) -> None:
    import json
    import os

    script = tmp_path / "s.json"
    script.write_text(
        json.dumps(
            {
                "responses": [
                    {
                        "content": [
                            {
                                "type": "toolCall",
                                "name": "bash",
                                "arguments": {"command": "sleep 30 & echo child=$!; wait"},
                            }
                        ]
                    },
                    {"content": [{"type": "text", "text": "never"}]},
                ]
            }
        )
    )
    c = await RawClient.start(data_dir)
    await c.initialize(
        workspace, {"provider": "faux", "fauxScript": str(script), "permissions": {"bash": "allow"}}
    )
    sid = (await c.call("pi/prompt", {"text": "sleep"}))["result"]["sessionId"]

    def child() -> int | None:
        for e in c.events(sid):
            if e["event"]["type"] == "tool_execution_update":
                text = "".join(b.get("text", "") for b in e["event"]["partialResult"]["content"])
                if "child=" in text:
                    return int(text.split("child=")[1].split()[0])
        return None

    pid = await c.wait_for(child)
    assert c.proc.stdin is not None
    c.proc.stdin.close()  # the editor went away
    await asyncio.wait_for(c.proc.wait(), 10)
    for _ in range(200):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the bash child outlived the server")
    again = await RawClient.start(data_dir)
    try:
        await again.initialize(workspace, {"provider": "faux"})
        resumed = await again.call("pi/resumeSession", {"sessionId": sid})
        roles = [m["role"] for m in resumed["result"]["messages"]]
        assert roles[:2] == ["user", "assistant"]
    finally:
        await again.close()
