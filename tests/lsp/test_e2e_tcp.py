"""``pi-lsp --tcp HOST:PORT``: the server outlives its connections (docs/protocol.md#13-reconnect).

A client disconnects mid-run, the run goes on (a tool runs while nobody is connected), the
next connection initializes, sees the session streaming in ``pi/sessions`` and re-attaches
with ``pi/replay``: with the live events after it, the run arrives whole, in order, with no
gap in ``seq``. Other workspace folders, a second concurrent connection and a second
``initialize`` on one connection are refused; SIGTERM ends the server cleanly."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from tests.support.http_server import Pause, ScriptedHTTPServer

from .conftest import http_settings
from .harness import Harness, make_client, text_reply, tool_reply, uri_of, write_script
from .openai_sse import response, text_events, tool_events
from .raw import RawClient, read_message

EVENTS = {"clientCapabilities": {"events": True}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TcpClient:
    """A raw JSON-RPC client over one TCP connection (can drop it abruptly)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.messages: list[dict[str, Any]] = []
        self._changed = asyncio.Event()
        self._next = 0
        self._task = asyncio.ensure_future(self._read())

    @classmethod
    async def connect(cls, port: int) -> TcpClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def _read(self) -> None:
        try:
            while (message := await read_message(self.reader)) is not None:
                self.messages.append(message)
                self._bump()
        finally:  # EOF, or a reset when the server hangs up on unread data: wake the waiters
            self._bump()

    def _bump(self) -> None:
        old, self._changed = self._changed, asyncio.Event()
        old.set()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def call(self, method: str, params: Any = None) -> dict[str, Any]:
        self._next += 1
        msg_id = self._next
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        found: dict[str, Any] = await self.wait_for(
            lambda: next(
                (m for m in self.messages if m.get("id") == msg_id and "method" not in m), None
            )
        )
        return found

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def wait_for(self, predicate: Any, timeout: float = 30) -> Any:
        async def loop() -> Any:
            while not (value := predicate()):
                if self._task.done():
                    raise ConnectionError("connection closed")
                await self._changed.wait()
            return value

        return await asyncio.wait_for(loop(), timeout)

    async def initialize(self, root: Path, pi: dict[str, Any]) -> dict[str, Any]:
        result = await self.call(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri_of(root),
                "workspaceFolders": [{"uri": uri_of(root), "name": root.name}],
                "capabilities": {},
                "initializationOptions": {"pi": pi},
            },
        )
        self.notify("initialized", {})
        return result

    def events(self, sid: str) -> list[dict[str, Any]]:
        return [
            m["params"]
            for m in self.messages
            if m.get("method") == "pi/event" and m["params"]["sessionId"] == sid
        ]

    async def drop(self) -> None:
        """Close the socket without shutdown/exit (an editor that crashed)."""
        self.writer.close()
        self._task.cancel()


@pytest.fixture
async def tcp_server(data_dir: Path) -> AsyncIterator[tuple[int, asyncio.subprocess.Process]]:
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_lsp",
        "--tcp",
        f"127.0.0.1:{port}",
        env={**os.environ, "PI_LSP_DATA_DIR": str(data_dir)},
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        for _ in range(600):  # until the server listens (it imports pygls first)
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        yield port, proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def connect(port: int) -> TcpClient:
    """The next connection (the previous one may still be closing on the server side)."""
    for _ in range(200):
        client = await TcpClient.connect(port)
        probe = await client.call("pi/sessions", {})
        if probe.get("error", {}).get("code") != -32803:  # not "another client is connected"
            return client
        await client.drop()
        await asyncio.sleep(0.05)
    raise AssertionError("the server kept refusing connections")


async def test_serves_over_tcp_and_outlives_the_connection(
    tmp_path: Path, workspace: Path, tcp_server: tuple[int, asyncio.subprocess.Process]
) -> None:
    port, proc = tcp_server
    client = make_client(recorders=False)
    await client.start_tcp("127.0.0.1", port)
    h = Harness(client, workspace)
    script = write_script(tmp_path / "s.json", [text_reply("over tcp")])
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim@v0.11.0"),
            root_uri=uri_of(workspace),
            initialization_options={
                "pi": {"provider": "faux", "fauxScript": str(script), **EVENTS}
            },
        )
    )
    sid = await h.run("hello")
    end = await h.wait_event(sid, "agent_end")
    assert end["messages"][-1]["content"][0]["text"] == "over tcp"
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()

    again = await connect(port)  # shutdown/exit ended the connection, not the server
    await again.initialize(workspace, {"provider": "faux", "fauxScript": str(script)})
    listed = (await again.call("pi/sessions", {}))["result"]["sessions"]
    assert [(s["sessionId"], s["isStreaming"]) for s in listed] == [(sid, False)]
    await again.drop()
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(proc.wait(), 20) == 0


async def test_disconnect_mid_run_then_reconnect_gets_the_rest_in_order(
    workspace: Path,
    srv: ScriptedHTTPServer,
    tcp_server: tuple[int, asyncio.subprocess.Process],
) -> None:
    port, _ = tcp_server
    before_tool = Pause(asyncio.Event())  # released once the first client is gone
    before_answer = Pause(asyncio.Event())  # released once the second client re-attached
    srv.enqueue(
        response(
            tool_events([("read", {"path": "a.py"})], text="Reading."),
            gate=before_tool,
            gate_after=2,
        )
    )
    srv.enqueue(
        response(text_events("It returns 1, as a.py says.", 6), gate=before_answer, gate_after=1)
    )
    settings = {**http_settings(srv), **EVENTS}

    first = await TcpClient.connect(port)
    await first.initialize(workspace, settings)
    sid = (await first.call("pi/prompt", {"text": "what does f return?"}))["result"]["sessionId"]
    await first.wait_for(
        lambda: any(e["event"]["type"] == "message_update" for e in first.events(sid))
    )
    seen = first.events(sid)
    await first.drop()

    before_tool.event.set()  # the run goes on with nobody connected: the tool runs
    await srv.wait_for_requests(2)  # ... and the next model call starts

    second = await connect(port)
    await second.initialize(workspace, settings)
    listed = (await second.call("pi/sessions", {}))["result"]["sessions"]
    assert [(s["sessionId"], s["isStreaming"]) for s in listed] == [(sid, True)]
    last = seen[-1]["seq"]
    replay = (await second.call("pi/replay", {"sessionId": sid, "afterSeq": last}))["result"]
    assert replay["complete"] is True
    before_answer.event.set()
    await second.wait_for(
        lambda: any(e["event"]["type"] == "agent_end" for e in second.events(sid))
    )
    later: dict[int, dict[str, Any]] = {}
    for event in [*replay["events"], *second.events(sid)]:
        later.setdefault(event["seq"], event)  # live events may repeat the replay's tail
    whole = [*seen, *(later[k] for k in sorted(later))]
    assert [e["seq"] for e in whole] == list(range(1, len(whole) + 1))  # no gap, in order
    kinds = [e["event"]["type"] for e in whole]
    assert kinds[0] == "agent_start"
    assert kinds[-1] == "agent_end"
    assert "tool_execution_end" in [e["event"]["type"] for e in replay["events"]]
    text = "".join(
        e["event"]["assistantMessageEvent"].get("delta", "")
        for e in whole
        if e["event"]["type"] == "message_update"
        and e["event"]["assistantMessageEvent"]["contentIndex"] == 0
        and e["seq"] > next(x["seq"] for x in whole if x["event"]["type"] == "tool_execution_end")
    )
    assert text == "It returns 1, as a.py says."
    end = whole[-1]["event"]
    assert [m["role"] for m in end["messages"]] == ["user", "assistant", "toolResult", "assistant"]
    await second.drop()


async def test_other_workspace_and_a_second_connection_are_refused(
    tmp_path: Path, workspace: Path, tcp_server: tuple[int, asyncio.subprocess.Process]
) -> None:
    port, _ = tcp_server
    script = write_script(tmp_path / "s.json", [text_reply("hi")])
    settings = {"provider": "faux", "fauxScript": str(script), **EVENTS}
    first = await TcpClient.connect(port)
    await first.initialize(workspace, settings)
    sid = (await first.call("pi/newSession", {}))["result"]["sessionId"]

    busy = await TcpClient.connect(port)  # while the first is connected
    refused = await busy.call(
        "initialize", {"processId": None, "rootUri": uri_of(workspace), "capabilities": {}}
    )
    assert refused["error"]["code"] == -32803
    assert "one connection at a time" in refused["error"]["message"]
    await first.drop()

    other = tmp_path / "other"
    other.mkdir()
    stranger = await connect(port)
    answer = await stranger.initialize(other, settings)
    assert answer["error"]["code"] == -32803
    assert "One server serves one workspace" in answer["error"]["message"]
    assert str(other) in answer["error"]["message"]
    await stranger.wait_for(lambda: stranger._task.done() or None)  # the server hung up

    back = await connect(port)
    assert "result" in await back.initialize(workspace, settings)
    listed = (await back.call("pi/sessions", {}))["result"]["sessions"]
    assert sid in [s["sessionId"] for s in listed]
    await back.drop()


async def test_second_initialize_on_one_connection_is_refused(
    tmp_path: Path, workspace: Path, data_dir: Path
) -> None:
    """Issue 10 item 4: it would make running sessions unreachable and could root the
    tools at ``/``."""
    script = write_script(
        tmp_path / "s.json",
        [tool_reply("bash", {"command": "echo started; sleep 30"}), text_reply("never")],
    )
    c = await RawClient.start(data_dir)
    try:
        await c.initialize(
            workspace,
            {"provider": "faux", "fauxScript": str(script), "permissions": {"bash": "allow"}},
        )
        sid = (await c.call("pi/prompt", {"text": "run"}))["result"]["sessionId"]
        await c.wait_for(
            lambda: any(e["event"]["type"] == "tool_execution_update" for e in c.events(sid))
        )
        again = await c.call(
            "initialize", {"processId": None, "rootUri": "file:///", "capabilities": {}}
        )
        assert again["error"]["code"] == -32600
        assert "already initialized" in again["error"]["message"]
        aborted = await c.call("pi/abort", {"sessionId": sid})
        assert aborted["result"] == {"aborted": True}  # the session is still reachable
        await c.wait_for(lambda: any(e["event"]["type"] == "agent_end" for e in c.events(sid)))
        state = await c.call("pi/state", {"sessionId": sid})
        assert state["result"]["isStreaming"] is False
    finally:
        await c.close()


async def test_a_peer_that_resets_the_connection_is_a_normal_disconnect(
    data_dir: Path, workspace: Path
) -> None:
    """A window reload drops its socket with a reset (RST), not a FIN: the server logs a
    normal disconnect — no "Unhandled exception in client_connected_cb", no traceback — and
    serves the next connection."""
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_lsp",
        "--tcp",
        f"127.0.0.1:{port}",
        env={**os.environ, "PI_LSP_DATA_DIR": str(data_dir)},
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        for _ in range(600):
            try:
                client = await TcpClient.connect(port)
                break
            except OSError:
                await asyncio.sleep(0.05)
        await client.initialize(workspace, {})
        client.send({"jsonrpc": "2.0", "id": 99, "method": "pi/sessions", "params": {}})
        sock = client.writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        client.writer.transport.abort()  # close with SO_LINGER 0: the peer gets a reset
        await client.drop()
        again = await connect(port)
        assert "result" in await again.call("pi/sessions", {})
        await again.drop()
        proc.send_signal(signal.SIGTERM)
        assert proc.stderr is not None
        log = (await asyncio.wait_for(proc.stderr.read(), 30)).decode()
        await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert "client disconnected" in log, log
    assert "client_connected_cb" not in log, log
    assert "Traceback" not in log, log
