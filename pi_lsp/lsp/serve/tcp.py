"""Serving over TCP (``pi-lsp --tcp HOST:PORT``): one client at a time, sessions that
outlive a connection.

When the client disconnects the runs go on (requests that waited for the editor fail: a
pending ``bash`` question counts as denied, edits go to the disk) and their ``pi/event``s stay
in each session's replay buffer. The next connection starts with its own ``initialize`` and
gets the same sessions (``pi/sessions`` marks the live ones ``isStreaming``; ``pi/replay``
gives what it missed). A connection whose workspace folders differ is refused, and so is a
second connection while one is open. SIGTERM / SIGINT end the server: runs are aborted,
tool processes killed, session files flushed.

``pi-lsp --socket PATH`` serves the same on a Unix domain socket that only its user may open
(mode 0600, in a directory of mode 0700): the background server an editor starts per
workspace. ``--idle-timeout SECONDS`` ends the server once no client has been connected and no
run has been going for that long.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import stat
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
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


Listen = Callable[
    [Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]],
    Awaitable[asyncio.Server],
]


def serve_tcp(host: str, port: int, *, idle_timeout: float | None = None) -> int:
    async def listen(handler: Any) -> asyncio.Server:
        return await asyncio.start_server(handler, host, port)

    return _serve(listen, idle_timeout)


def serve_socket(path: str, *, idle_timeout: float | None = None) -> int:
    """Serve on the Unix domain socket ``path`` (mode 0600, its directory made 0700)."""
    sock_path = Path(path)
    _private_dir(sock_path.parent)
    _remove_stale(sock_path)

    async def listen(handler: Any) -> asyncio.Server:
        old = os.umask(0o177)  # the socket is created 0600: no moment another user may connect
        try:
            srv = await asyncio.start_unix_server(handler, str(sock_path))
        finally:
            os.umask(old)
        os.chmod(sock_path, 0o600)
        return srv

    try:
        return _serve(listen, idle_timeout)
    finally:
        with contextlib.suppress(OSError):
            sock_path.unlink()


def _private_dir(directory: Path) -> None:
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = directory.stat()
    if info.st_uid != os.getuid():
        raise SystemExit(f"pi-lsp: {directory} belongs to another user; choose another --socket")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(directory, 0o700)


def _remove_stale(path: Path) -> None:
    """A socket file left by a server that died is removed; a live server's is an error."""
    if not path.exists():
        return
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        path.unlink()
        return
    finally:
        probe.close()
    raise SystemExit(f"pi-lsp: a server already listens on {path}")


def _serve(listen: Listen, idle_timeout: float | None) -> int:
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
            except ConnectionError as exc:  # the peer reset its socket (a window reload)
                log.info("client connection closed by the peer (%s)", type(exc).__name__)
            except asyncio.CancelledError:  # the server is stopping with a client still there:
                # a normal end (asyncio logs a traceback for a connection task left cancelled)
                log.info("client connection closed: the server is stopping")
            finally:
                server.connection_closed()
                active.clear()
                free.set()
                with contextlib.suppress(OSError, ConnectionError):
                    await writer.drain()
                writer.close()
                log.info("client disconnected; the sessions go on")

        def busy() -> bool:
            manager = server.manager
            running = manager is not None and any(h.running for h in manager.sessions.values())
            return bool(active) or running

        tcp = await listen(on_connect)
        log.info("listening on %s", ", ".join(str(s.getsockname()) for s in tcp.sockets))
        watch = None
        if idle_timeout is not None:
            watch = asyncio.create_task(_idle_watch(idle_timeout, busy, stop))
        async with tcp:
            await stop.wait()
        if watch is not None:
            watch.cancel()
        await server.stop()
        return 0

    return run_event_loop(main())


async def _idle_watch(limit: float, busy: Callable[[], bool], stop: asyncio.Event) -> None:
    """Set ``stop`` once the server has been idle (no client, no run) for ``limit`` s."""
    loop = asyncio.get_running_loop()
    idle_since = busy_since = loop.time()
    kept = False  # "busy past the limit" said once per busy stretch
    step = min(1.0, max(limit / 4, 0.05))
    while not stop.is_set():
        await asyncio.sleep(step)
        now = loop.time()
        if busy():
            if not kept and now - busy_since >= limit:
                log.debug("busy for the idle timeout (a client or a run): staying")
                kept = True
            idle_since = now
        elif now - idle_since >= limit:
            log.info("idle for %.0f s: exiting", limit)
            stop.set()
        else:
            busy_since, kept = now, False


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
