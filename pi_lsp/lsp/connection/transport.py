"""JSON-RPC over stdio / TCP: framing, compact encoding, and a dispatch loop that never dies.

Replaces pygls' IO loop so that (1) output goes through the non-blocking ``Outbox``;
(2) malformed JSON gets a Parse error and a request with bad params an InvalidParams error
naming the field (pygls only logs both); (3) ``exit`` / EOF end the loop after our cleanup.
Bodies are compact UTF-8 JSON with a byte-exact ``Content-Length`` (no Content-Type header).
Must not import the session or agent modules.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from typing import Any

import cattrs
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.protocol import LanguageServerProtocol, lsp_method

from ...ai.surrogates import replace_lone_surrogates
from ..protocol.features import experimental
from .framing import READ_CHUNK, BlockingFrameReader, FrameError, FrameParser, frame

log = logging.getLogger(__name__)


def encode_body(obj: Any, default: Callable[[Any], Any] | None = None) -> bytes:
    """Compact JSON as UTF-8. Lone surrogates (half an emoji, a non-UTF-8 byte kept by a
    read) become U+FFFD: escaped they are still rejected by strict JSON readers (Rust's)."""
    text = json.dumps(obj, default=default, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return replace_lone_surrogates(text).encode("utf-8")


class PiProtocol(LanguageServerProtocol):
    """pygls' protocol with compact byte-exact output and an exit hook we control."""

    on_exit: Callable[[int], None] | None = None
    suppressed_response: Any = None
    """Id of an ``initialize`` already answered by the start-up path (``stdio``)."""
    initialize_seen: bool = False
    """This connection sent its ``initialize``: another one is refused (InvalidRequest)."""

    def _send_data(self, data: Any) -> None:
        if not data:
            return
        if (
            self.suppressed_response is not None
            and getattr(data, "id", None) == self.suppressed_response
            and getattr(data, "method", None) is None
        ):
            self.suppressed_response = None
            return
        writer = self.writer
        if writer is None:
            log.error("unable to send data: no transport")
            return
        try:
            payload = frame(encode_body(data, self._serialize_message))
        except Exception:
            log.exception("could not encode an outgoing message")
            return
        writer.write(payload)

    def notify_raw(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification whose params are already JSON-ready (no cattrs pass)."""
        self._send_data({"jsonrpc": "2.0", "method": method, "params": params})

    def send_error(self, msg_id: Any, error: JsonRpcException) -> None:
        self._send_data(
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "error": {"code": error.code, "message": error.message},
            }
        )

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        """pygls' answer plus ``capabilities.experimental.pi``: the ``pi/*`` features this
        server has (``protocol.features``; the stdio fast path declares the same)."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        result.capabilities.experimental = experimental()
        return result

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        """Unlike pygls (close the writer, ``sys.exit``), let the main loop end cleanly."""
        if (user_handler := self.fm.features.get(types.EXIT)) is not None:
            yield user_handler, args, None
        code = 0 if self._shutdown else 1
        if self.on_exit is not None:
            self.on_exit(code)


def _params_error(exc: BaseException) -> str:
    cause = exc.__cause__
    if isinstance(cause, cattrs.BaseValidationError):
        details = "; ".join(cattrs.transform_error(cause, path="params")[:5])
        return f"Invalid params: {details}"
    return f"Invalid params: {cause or exc}"


def _resolve_raw_reply(protocol: PiProtocol, msg_id: Any, raw: dict[str, Any]) -> None:
    future = protocol._request_futures.pop(msg_id, None)
    if future is None or future.done():
        return
    error = raw.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        future.set_exception(
            JsonRpcException(
                str(error.get("message", "")), code=code if isinstance(code, int) else -32603
            )
        )
    else:
        future.set_result(raw.get("result"))


def dispatch(protocol: PiProtocol, body: bytes) -> None:
    """Handle one framed body; every failure becomes an error response or a log line."""
    try:
        raw = json.loads(body)
    except ValueError as exc:
        protocol.send_error(None, JsonRpcParseError(f"Parse error: {exc}"))
        return
    if not isinstance(raw, dict):
        protocol.send_error(None, JsonRpcInvalidRequest("Invalid Request: expected an object"))
        return
    msg_id = raw.get("id")
    method = raw.get("method")
    is_request = "id" in raw and "method" in raw
    if raw.get("jsonrpc") != "2.0" or ("method" in raw and not isinstance(method, str)):
        if "id" in raw:
            protocol.send_error(
                msg_id if isinstance(msg_id, str | int) else None,
                JsonRpcInvalidRequest("Invalid Request: not a JSON-RPC 2.0 message"),
            )
        else:
            log.warning("dropping a message that is not JSON-RPC 2.0")
        return
    if is_request and not isinstance(msg_id, str | int):
        protocol.send_error(None, JsonRpcInvalidRequest("Invalid Request: bad id"))
        return
    if is_request and protocol._shutdown:
        protocol.send_error(msg_id, JsonRpcInvalidRequest("Server is shutting down"))
        return
    if method == "initialize" and is_request and protocol.initialize_seen:
        # a second one would re-root the tools and orphan the running sessions
        protocol.send_error(
            msg_id,
            JsonRpcInvalidRequest(
                "Invalid Request: this connection is already initialized; a second "
                "`initialize` is refused (reconnect to start over)"
            ),
        )
        return
    try:
        message = protocol.structure_message(raw)
    except JsonRpcException as exc:
        if is_request:
            protocol.send_error(msg_id, JsonRpcInvalidParams(_params_error(exc)))
        elif method is None and "id" in raw:
            # A reply whose result does not have the expected shape (``null`` for
            # ShowDocumentResult, …): resolve the waiting request with the raw value
            # instead of leaving it pending forever.
            log.info("reply %r has an unexpected shape: %s", msg_id, _params_error(exc))
            _resolve_raw_reply(protocol, msg_id, raw)
        else:
            log.warning("dropping malformed %s: %s", method or "response", _params_error(exc))
        return
    if method == "initialize" and is_request:
        protocol.initialize_seen = True
    try:
        protocol.handle_message(message)
    except Exception:
        log.exception("failed to handle %s", method or "a response")
        if is_request:
            protocol.send_error(msg_id, JsonRpcInvalidRequest("Internal error handling request"))


# ------------------------------------------------------------------------------- readers


def _read_frames_blocking(
    reader: BlockingFrameReader, deliver: Callable[[bytes | FrameError | None], None]
) -> None:
    """Reader thread body: deliver framed bodies (and framing errors), then ``None`` at EOF."""
    try:
        while (item := reader.read()) is not None:
            deliver(item)
    except (OSError, ValueError) as exc:
        log.warning("client input closed: %s", exc)
    finally:
        deliver(None)


def thread_frames(reader: BlockingFrameReader) -> AsyncIterator[bytes | FrameError]:
    """Frames read by a daemon thread (works for pipes, files and ttys alike)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | FrameError | None] = asyncio.Queue()

    def deliver(body: bytes | FrameError | None) -> None:
        with contextlib.suppress(RuntimeError):  # loop already closed
            loop.call_soon_threadsafe(queue.put_nowait, body)

    threading.Thread(
        target=_read_frames_blocking, args=(reader, deliver), name="pi-lsp-reader", daemon=True
    ).start()

    async def frames() -> AsyncIterator[bytes | FrameError]:
        while (body := await queue.get()) is not None:
            yield body

    return frames()


async def stream_frames(reader: asyncio.StreamReader) -> AsyncIterator[bytes | FrameError]:
    """Frames from an asyncio stream (TCP), read in chunks (see ``framing``)."""
    parser = FrameParser()
    while True:
        while (item := parser.next()) is not None:
            yield item
        data = await reader.read(READ_CHUNK)
        if not data:
            error = parser.finish()
            if error is not None:
                yield error
            return
        parser.feed(data)


# ---------------------------------------------------------------------------- main loop


async def run_loop(
    protocol: PiProtocol,
    frames: AsyncIterator[bytes | FrameError],
    cleanup: Callable[[], Awaitable[None]],
) -> int:
    """Dispatch frames until ``exit`` or EOF, then run ``cleanup``; returns the exit code."""
    exit_code: list[int] = []
    stop = asyncio.Event()

    def on_exit(code: int) -> None:
        exit_code.append(code)
        stop.set()

    protocol.on_exit = on_exit
    iterator = frames.__aiter__()
    while not stop.is_set():
        next_frame = asyncio.ensure_future(iterator.__anext__())
        stopper = asyncio.ensure_future(stop.wait())
        done, _ = await asyncio.wait({next_frame, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if next_frame not in done:
            next_frame.cancel()
            break
        stopper.cancel()
        try:
            body = next_frame.result()
        except StopAsyncIteration:
            log.info("client input ended")
            break
        if isinstance(body, FrameError):
            log.warning("%s", body.message)
            protocol.send_error(None, JsonRpcParseError(body.message))
            continue
        dispatch(protocol, body)
    try:
        await cleanup()
    except Exception:
        log.exception("cleanup failed")
    return exit_code[0] if exit_code else 0


class StreamWriterAdapter:
    """pygls' writer interface over an asyncio ``StreamWriter`` (already non-blocking)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, data: bytes) -> None:
        if not self._writer.is_closing():
            self._writer.write(data)

    def close(self) -> None:
        self._writer.close()


class NullWriter:
    """The writer while no client is connected: output is dropped (not logged per message)."""

    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass
