"""A scripted HTTP/1.1 server on 127.0.0.1 for provider and end-to-end tests (real sockets).

``async with ScriptedHTTPServer() as srv:`` binds a free port; ``srv.url`` is its base URL.
Tests queue ``ScriptedResponse``s (FIFO, optionally per path); every request is recorded in
``srv.requests``. A response body is a list of steps: byte/str chunks (each written as its own
socket write, so SSE events and even UTF-8 characters can be split anywhere), ``Pause`` (wait
for the test to set an event), ``Delay`` (slow model) and ``Cut`` (drop the connection
mid-body). Nothing assumes the client lives in this process: a subprocess can connect too.
A ``handler`` (a function of the recorded request) answers what the queues do not: a fake
API that checks each request body as the real one would (``tests/support/fake_*.py``).
Test support only; imports nothing of ``pi_lsp``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any, Literal, TypeAlias

# ------------------------------------------------------------------------------ body steps


@dataclass(slots=True)
class Pause:
    """Stop writing the body until the test sets ``event`` (deterministic gating)."""

    event: asyncio.Event


@dataclass(slots=True)
class Delay:
    """Sleep before the next step (slow-model simulation)."""

    seconds: float


@dataclass(slots=True)
class Cut:
    """Drop the connection here, mid-body. ``reset=True`` aborts (RST) instead of closing."""

    reset: bool = False


Step: TypeAlias = bytes | str | Pause | Delay | Cut
Framing: TypeAlias = Literal["chunked", "close", "length"]


@dataclass(slots=True)
class ScriptedResponse:
    """One scripted reply.

    ``framing``: ``chunked`` (default for a list body), ``length`` (default for a single
    bytes/str body; ``Content-Length`` is the sum of all byte steps), or ``close`` (no length,
    the body ends when the server closes the connection).
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: list[Step] | bytes | str = b""
    framing: Framing | None = None

    def steps(self) -> list[Step]:
        return list(self.body) if isinstance(self.body, list) else [self.body]

    def resolved_framing(self) -> Framing:
        if self.framing is not None:
            return self.framing
        return "chunked" if isinstance(self.body, list) else "length"


@dataclass(slots=True)
class RecordedRequest:
    method: str
    path: str
    """The path without the query string."""
    query: str
    headers: dict[str, str]
    """Header names lower-cased (the last value wins for repeated headers)."""
    body: bytes
    json: Any
    """The body parsed as JSON, or ``None`` when it is empty or not JSON."""


# ---------------------------------------------------------------------------------- helpers


def _as_bytes(chunk: bytes | str) -> bytes:
    return chunk.encode("utf-8") if isinstance(chunk, str) else chunk


def sse_bytes(
    events: Iterable[dict[str, Any] | str | tuple[str, dict[str, Any] | str]],
    *,
    done: bool = True,
    named: bool = False,
) -> bytes:
    """SSE-framed bytes: ``data: <json>\\n\\n`` per event, then ``data: [DONE]`` if ``done``.

    A ``str`` event is sent verbatim as the data (e.g. malformed JSON). A ``(name, data)`` tuple
    adds an ``event: name`` line; with ``named=True`` a dict's ``type`` becomes the event name
    (the Anthropic style).
    """
    out: list[str] = []
    for item in events:
        name: str | None = None
        data: dict[str, Any] | str
        if isinstance(item, tuple):
            name, data = item
        else:
            data = item
            if named and isinstance(data, dict) and isinstance(data.get("type"), str):
                name = data["type"]
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        if name is not None:
            out.append(f"event: {name}\n")
        out.append(f"data: {text}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode("utf-8")


def split_bytes(data: bytes, every: int | None) -> list[Step]:
    """``data`` cut into pieces of ``every`` bytes (``None``: one piece). Cuts may fall inside
    a multi-byte UTF-8 character on purpose."""
    if not every or every <= 0:
        return [data]
    return [data[i : i + every] for i in range(0, len(data), every)]


def sse(
    events: Iterable[dict[str, Any] | str | tuple[str, dict[str, Any] | str]],
    split_every: int | None = None,
    *,
    done: bool = True,
    named: bool = False,
) -> list[Step]:
    """Body steps for an SSE stream (see ``sse_bytes``), split every ``split_every`` bytes."""
    return split_bytes(sse_bytes(events, done=done, named=named), split_every)


def sse_response(
    events: Iterable[dict[str, Any] | str | tuple[str, dict[str, Any] | str]],
    split_every: int | None = None,
    *,
    done: bool = True,
    named: bool = False,
    status: int = 200,
    headers: dict[str, str] | None = None,
    tail: list[Step] | None = None,
    framing: Framing | None = None,
) -> ScriptedResponse:
    """A ``text/event-stream`` response; ``tail`` steps (e.g. ``[Cut()]``) follow the events."""
    body = sse(events, split_every, done=done, named=named) + list(tail or [])
    hdrs = {"content-type": "text/event-stream", "cache-control": "no-cache", **(headers or {})}
    return ScriptedResponse(status=status, headers=hdrs, body=body, framing=framing)


def json_response(
    status: int, body: Any, headers: dict[str, str] | None = None
) -> ScriptedResponse:
    """A JSON response with ``Content-Length`` framing."""
    payload = json.dumps(body).encode("utf-8")
    return ScriptedResponse(
        status=status,
        headers={"content-type": "application/json", **(headers or {})},
        body=payload,
    )


# ----------------------------------------------------------------------------------- server

_MAX_HEAD = 64 * 1024


class ScriptedHTTPServer:
    """See the module docstring. Use as ``async with`` inside the test's event loop."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, tls: ssl.SSLContext | None = None
    ) -> None:
        self.host = host
        self.port = port
        self.tls = tls
        """Serve HTTPS with this server context (``tests/support/tls_certs.py``)."""
        self.requests: list[RecordedRequest] = []
        self.unmatched: list[RecordedRequest] = []
        """Requests that found no queued response (answered 418 with an error body)."""
        self.connections = 0
        self.handler: Callable[[RecordedRequest], ScriptedResponse] | None = None
        """Answers a request no queued response is waiting for (before the 418 fallback)."""
        self._queue: deque[ScriptedResponse] = deque()
        self._routes: dict[str, deque[ScriptedResponse]] = {}
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._arrived = asyncio.Event()

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self.port}"

    def enqueue(self, *responses: ScriptedResponse, path: str | None = None) -> None:
        """Queue responses in order; with ``path``, only requests to that path take them."""
        queue = self._queue if path is None else self._routes.setdefault(path, deque())
        queue.extend(responses)

    @property
    def pending(self) -> int:
        """Responses still queued (all routes)."""
        return len(self._queue) + sum(len(q) for q in self._routes.values())

    async def wait_for_requests(self, count: int = 1) -> RecordedRequest:
        """Wait until at least ``count`` requests arrived; return the ``count``-th."""
        while len(self.requests) < count:
            self._arrived.clear()
            await self._arrived.wait()
        return self.requests[count - 1]

    # ---------------------------------------------------------------- lifecycle

    async def __aenter__(self) -> ScriptedHTTPServer:
        self._server = await asyncio.start_server(
            self._on_connect, self.host, self.port, ssl=self.tls
        )
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await server.wait_closed()

    # ---------------------------------------------------------------- connection

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self._writers.add(writer)
        self.connections += 1
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    break
                self.requests.append(request)
                self._arrived.set()
                response = self._take(request)
                keep_alive = await self._write(writer, response)
                if not keep_alive or request.headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except ssl.SSLError:  # an HTTPS client that went away mid-record
            pass
        except asyncio.CancelledError:
            # close() cancels paused handlers; end quietly (asyncio's stream callback would
            # otherwise log the cancelled task as an error)
            pass
        finally:
            self._writers.discard(writer)
            if not writer.is_closing():
                writer.close()
            if task is not None:
                self._tasks.discard(task)

    def _take(self, request: RecordedRequest) -> ScriptedResponse:
        routed = self._routes.get(request.path)
        if routed:
            return routed.popleft()
        if self._queue:
            return self._queue.popleft()
        if self.handler is not None:
            return self.handler(request)
        self.unmatched.append(request)
        message = f"ScriptedHTTPServer: no response queued for {request.method} {request.path}"
        return json_response(418, {"error": {"type": "test_error", "message": message}})

    async def _read_request(self, reader: asyncio.StreamReader) -> RecordedRequest | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None  # the client closed the connection between requests
        if len(head) > _MAX_HEAD:
            return None
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if not line:
                continue
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = await self._read_chunked(reader)
        else:
            length = int(headers.get("content-length", "0") or "0")
            body = await reader.readexactly(length) if length else b""
        path, _, query = target.partition("?")
        parsed: Any = None
        if body:
            with contextlib.suppress(ValueError):
                parsed = json.loads(body)
        return RecordedRequest(method, path, query, headers, body, parsed)

    @staticmethod
    async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
        parts: list[bytes] = []
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                await reader.readuntil(b"\r\n")  # trailer end (no trailers expected)
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)

    async def _write(self, writer: asyncio.StreamWriter, response: ScriptedResponse) -> bool:
        """Send ``response``; False when the connection must not be reused."""
        framing = response.resolved_framing()
        steps = response.steps()
        try:
            phrase = HTTPStatus(response.status).phrase
        except ValueError:
            phrase = "Scripted"
        head = [f"HTTP/1.1 {response.status} {phrase}"]
        names = {k.lower() for k in response.headers}
        head += [f"{k}: {v}" for k, v in response.headers.items()]
        if framing == "chunked":
            head.append("transfer-encoding: chunked")
        elif framing == "length" and "content-length" not in names:
            total = sum(len(_as_bytes(s)) for s in steps if isinstance(s, bytes | str))
            head.append(f"content-length: {total}")
        if framing == "close":
            head.append("connection: close")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        for step in steps:
            if isinstance(step, Pause):
                await step.event.wait()
            elif isinstance(step, Delay):
                await asyncio.sleep(step.seconds)
            elif isinstance(step, Cut):
                if step.reset:
                    writer.transport.abort()
                else:
                    writer.close()
                return False
            else:
                data = _as_bytes(step)
                if not data:
                    continue
                if framing == "chunked":
                    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                else:
                    writer.write(data)
                await writer.drain()
                await asyncio.sleep(0)  # give each write its own turn on the socket
        if framing == "chunked":
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        return framing != "close"


__all__ = [
    "Cut",
    "Delay",
    "Pause",
    "RecordedRequest",
    "ScriptedHTTPServer",
    "ScriptedResponse",
    "Step",
    "json_response",
    "split_bytes",
    "sse",
    "sse_bytes",
    "sse_response",
]
