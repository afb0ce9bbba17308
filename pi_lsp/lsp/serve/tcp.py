"""Serving over TCP (``pi-lsp --tcp HOST:PORT``): one client at a time, sessions that
outlive a connection.

When the client disconnects the runs go on (requests that waited for the editor fail: a
pending ``bash`` question counts as denied, edits go to the disk) and their ``pi/event``s stay
in each session's replay buffer. The next connection starts with its own ``initialize`` and
gets the same sessions (``pi/sessions`` marks the live ones ``isStreaming``; ``pi/replay``
gives what it missed). A connection whose workspace folders differ is refused, and so is a
second connection while one is open. SIGTERM / SIGINT end the server: runs are aborted,
tool processes killed, session files flushed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
from collections.abc import AsyncIterator
from typing import Any

from pygls.exceptions import JsonRpcException

from ...runtime.event_loop import run as run_event_loop
from ..connection.framing import FrameError, frame
from ..connection.transport import (
    PiProtocol,
    StreamWriterAdapter,
    encode_body,
    run_loop,
    stream_frames,
)
from ..server import PiLanguageServer, create_server

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803
TAKEOVER_WAIT = 2.0
"""How long a new connection waits for the previous one to end before it is refused."""
BUSY = (
    "Another client is connected to this pi-lsp; it serves one connection at a time. Close "
    "the other editor's connection, or start another pi-lsp."
)


def serve_tcp(host: str, port: int) -> int:
    server = create_server()
    server.persistent = True
    protocol = server.protocol
    assert isinstance(protocol, PiProtocol)

    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        active: list[asyncio.StreamWriter] = []
        free = asyncio.Event()
        free.set()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if active:  # the previous client may be just going (an editor restarting)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(free.wait(), TAKEOVER_WAIT)
            if active:
                await _refuse(reader, writer, BUSY)
                return
            active.append(writer)
            free.clear()
            server.connection_opened()
            protocol.set_writer(StreamWriterAdapter(writer))
            try:
                frames = _checked(server, stream_frames(reader), writer)
                await run_loop(protocol, frames, _nothing)
            finally:
                server.connection_closed()
                active.clear()
                free.set()
                with contextlib.suppress(OSError, ConnectionError):
                    await writer.drain()
                writer.close()
                log.info("client disconnected; the sessions go on")

        tcp = await asyncio.start_server(on_connect, host, port)
        log.info("listening on %s", ", ".join(str(s.getsockname()) for s in tcp.sockets))
        async with tcp:
            await stop.wait()
        await server.stop()
        return 0

    return run_event_loop(main())


async def _nothing() -> None:
    """A connection's end does not stop the server."""


async def _checked(
    server: PiLanguageServer,
    frames: AsyncIterator[bytes | FrameError],
    writer: asyncio.StreamWriter,
) -> AsyncIterator[bytes | FrameError]:
    """The connection's frames; an ``initialize`` for other workspace folders than the
    running sessions' is answered with an error and ends the connection."""
    async for body in frames:
        if isinstance(body, bytes) and server.manager is not None:
            refusal = _other_workspace(server, body)
            if refusal is not None:
                msg_id, reason = refusal
                log.warning("refusing a connection: %s", reason)
                _send_error(writer, msg_id, reason)
                return
        yield body


def _other_workspace(server: PiLanguageServer, body: bytes) -> tuple[Any, str] | None:
    try:
        raw = json.loads(body)
    except ValueError:
        return None
    if not isinstance(raw, dict) or raw.get("method") != "initialize" or "id" not in raw:
        return None
    protocol = server.protocol
    assert isinstance(protocol, PiProtocol)
    try:
        message = protocol.structure_message(raw)
    except JsonRpcException:
        return None  # dispatch answers the bad params
    reason = server.roots_differ(message.params)
    return None if reason is None else (raw["id"], reason)


def _send_error(writer: asyncio.StreamWriter, msg_id: Any, message: str) -> None:
    error = {"code": REQUEST_FAILED, "message": message}
    writer.write(frame(encode_body({"jsonrpc": "2.0", "id": msg_id, "error": error})))


async def _refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reason: str) -> None:
    """Answer the first request of a connection we cannot serve, then close it."""
    log.warning("refusing a connection: %s", reason)
    try:
        async with asyncio.timeout(10):
            async for body in stream_frames(reader):
                if isinstance(body, bytes):
                    with contextlib.suppress(ValueError):
                        raw = json.loads(body)
                        if isinstance(raw, dict) and "id" in raw:
                            _send_error(writer, raw["id"], reason)
                break
        await writer.drain()
    except (TimeoutError, OSError, ConnectionError):
        pass
    finally:
        writer.close()
