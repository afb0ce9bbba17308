"""The ACP connection's bytes: one JSON-RPC message per line on the process's real stdout.

``protect_stdout`` moves the protocol to a private copy of file descriptor 1 and points fd 1
at stderr, so nothing else (a stray ``print``, a library's banner, a child process that
inherited stdout) can ever write into the protocol stream. ``LineTransport`` is the SDK's
message-level ``Transport`` over those streams; unlike the SDK's own stdio transport it answers
what it cannot use instead of only logging it: a line that is not JSON gets a ``-32700`` Parse
error, a JSON value that is not a request, notification or response a ``-32600`` Invalid
Request (both with ``id: null``, JSON-RPC 2.0 §5.1), and the connection keeps going. At
start-up it takes over what ``early`` read, and drops the SDK's answer to the ``initialize``
``early`` already answered. Imports nothing of ours.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

log = logging.getLogger("pi_lsp.acp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
LINE_LIMIT = 64 * 1024 * 1024
"""The longest line read (an embedded image or file in a prompt can be large)."""


def error_message(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _is_message(value: Any) -> bool:
    """A request/notification (``method`` a string) or a response (``id`` and a result or an
    error)."""
    if not isinstance(value, dict):
        return False
    if "method" in value:
        return isinstance(value["method"], str)
    return "id" in value and ("result" in value or "error" in value)


class LineTransport:
    """Newline-delimited JSON-RPC over two file descriptors.

    Both ends use a thread of their own (a reader feeding an ``asyncio.StreamReader``, a
    writer doing blocking writes in order), so any kind of stdin/stdout works (pipes,
    sockets, files) on asyncio's loop and uvloop alike, and a client that stops reading
    blocks only the sessions waiting to send, never the event loop.
    """

    def __init__(
        self, in_fd: int, out_fd: int, *, read_ahead: bytes = b"", answered: Any = None
    ) -> None:
        """``read_ahead``: bytes already read from ``in_fd`` (they come first); ``answered``:
        the id of an ``initialize`` already answered (the SDK's answer to it is dropped)."""
        self._in_fd = in_fd
        self._out_fd = out_fd
        self._answered = answered
        self._loop = asyncio.get_running_loop()
        self._reader = asyncio.StreamReader(limit=LINE_LIMIT)
        if read_ahead:
            self._reader.feed_data(read_ahead)
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="pi-lsp-acp-out")
        self._lock = asyncio.Lock()
        self._closed = False
        threading.Thread(target=self._read_loop, name="pi-lsp-acp-in", daemon=True).start()

    def _read_loop(self) -> None:
        try:
            while True:
                data = os.read(self._in_fd, 65536)
                if not data:
                    break
                self._loop.call_soon_threadsafe(self._reader.feed_data, data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                self._loop.call_soon_threadsafe(self._reader.feed_eof)

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._out_fd, view)
            view = view[written:]

    async def send(self, message: dict[str, Any]) -> None:
        if self._closed:
            raise ConnectionError("the connection is closed")
        if self._answered is not None and _answers(message, self._answered):
            self._answered = None  # early.answer_initialize sent this answer already
            return
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        async with self._lock:
            try:
                await self._loop.run_in_executor(self._writer, self._write_all, data)
            except OSError as exc:  # EPIPE: the client went away
                self._closed = True
                raise ConnectionError(str(exc)) from exc

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self._reader.readline()
            except ValueError:
                # readline dropped what it had buffered; the rest of the line follows as junk
                await self._answer(INVALID_REQUEST, "Invalid Request: the line is too long")
                continue
            if not line:
                return None
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError:
                log.warning("not JSON: %.200r", line)
                await self._answer(PARSE_ERROR, "Parse error: the line is not JSON")
                continue
            if not _is_message(value):
                request_id = value.get("id") if isinstance(value, dict) else None
                if not isinstance(request_id, str | int):
                    request_id = None
                log.warning("not a JSON-RPC message: %.200r", line)
                await self._answer(INVALID_REQUEST, "Invalid Request", request_id)
                continue
            return value  # type: ignore[no-any-return]

    async def _answer(self, code: int, message: str, request_id: Any = None) -> None:
        with contextlib.suppress(ConnectionError):
            await self.send(error_message(code, message, request_id))

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._writer.shutdown(wait=False)


def _answers(message: dict[str, Any], request_id: Any) -> bool:
    return "method" not in message and message.get("id") == request_id


async def open_stdio(
    protocol_fd: int, read_ahead: bytes = b"", answered: Any = None
) -> LineTransport:
    """The transport over stdin and the protocol's copy of stdout."""
    return LineTransport(0, protocol_fd, read_ahead=read_ahead, answered=answered)
