"""The httpx transport that hands a run its early first request's response (``cli.prefetch``).

``PrefetchTransport`` wraps the client's usual transport. For the run's first request only,
it compares the request with the one ``cli.prefetch`` sent at spawn (method, URL, headers and
body bytes): when they are the same it reads the response from that connection — HTTP/1.1
parsed by h11, TLS continued from the thread's memory buffers, the read timeout honoured, and
failures raised as the httpx errors the providers already handle (so a dropped connection is
retried like any other). When they differ, or the early request failed, it closes that
connection unread and sends the request the usual way; after a success it records the
request as the next run's template. Every later request goes the usual way.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import h11
import httpx

from ..ai.endpoints import DEFAULT_CONNECT_TIMEOUT_S
from .prefetch import Channel, Prefetch, Prepared


def _header_pairs(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted((name.lower(), value) for name, value in headers)


def same_request(sent: Prepared, request: httpx.Request, headers: list[tuple[str, str]]) -> bool:
    return (
        sent.method == request.method
        and sent.url == str(request.url)
        and sent.body == request.content
        and _header_pairs(sent.headers) == _header_pairs(headers)
    )


class _Reader:
    """The early request's connection, read by the event loop and parsed by h11."""

    def __init__(self, channel: Channel, sent: Prepared, request: httpx.Request) -> None:
        self._channel = channel
        self._request = request
        timeouts = request.extensions.get("timeout") or {}
        self._read_timeout: float | None = timeouts.get("read")
        self._ended = False
        self._h11 = h11.Connection(our_role=h11.CLIENT)
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in sent.headers]
        target = request.url.raw_path
        self._h11.send(h11.Request(method=sent.method, target=target, headers=headers))
        self._h11.send(h11.Data(data=sent.body))
        self._h11.send(h11.EndOfMessage())
        channel.sock.setblocking(False)

    async def _read(self) -> bytes:
        loop = asyncio.get_running_loop()
        while not self._ended:
            try:
                async with asyncio.timeout(self._read_timeout):
                    raw = await loop.sock_recv(self._channel.sock, 65536)
            except TimeoutError:
                message = "timed out reading the response"
                raise httpx.ReadTimeout(message, request=self._request) from None
            except OSError as exc:
                raise httpx.ReadError(str(exc), request=self._request) from exc
            plain, reply, ended = self._channel.decrypt(raw)
            self._ended = ended
            if reply:
                try:
                    await loop.sock_sendall(self._channel.sock, reply)
                except OSError as exc:
                    raise httpx.WriteError(str(exc), request=self._request) from exc
            if plain:
                return plain
        return b""

    async def next_event(self) -> h11.Event | type[h11.PAUSED]:
        while True:
            try:
                event = self._h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise httpx.RemoteProtocolError(str(exc), request=self._request) from exc
            if event is h11.NEED_DATA:
                data = await self._read()
                if not data and self._h11.their_state is h11.SEND_RESPONSE:
                    raise httpx.RemoteProtocolError(
                        "Server disconnected without sending a response.", request=self._request
                    )
                self._h11.receive_data(data)
                continue
            if isinstance(event, h11.InformationalResponse):
                continue
            return event  # type: ignore[return-value]

    def close(self) -> None:
        self._channel.close()


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, reader: _Reader) -> None:
        self._reader = reader

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            event = await self._reader.next_event()
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                return

    async def aclose(self) -> None:
        self._reader.close()


async def _response(reader: _Reader, request: httpx.Request) -> httpx.Response:
    try:
        event = await reader.next_event()
        if not isinstance(event, h11.Response):
            raise httpx.RemoteProtocolError(f"unexpected {event!r}", request=request)
    except BaseException:
        reader.close()
        raise
    return httpx.Response(
        status_code=event.status_code,
        headers=list(event.headers.raw_items()),
        stream=_ResponseStream(reader),
        extensions={"http_version": b"HTTP/1.1", "reason_phrase": event.reason},
    )


class PrefetchTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, prefetch: Prefetch) -> None:
        self._inner = inner
        self._prefetch: Prefetch | None = prefetch

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        prefetch, self._prefetch = self._prefetch, None
        if prefetch is None:
            return await self._inner.handle_async_request(request)
        await request.aread()
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw]
        sent = prefetch.sent
        if sent is not None and same_request(sent, request, headers):
            if not prefetch.done.is_set():
                timeouts = request.extensions.get("timeout") or {}
                wait = timeouts.get("connect") or DEFAULT_CONNECT_TIMEOUT_S
                await asyncio.to_thread(prefetch.done.wait, wait)
            channel = prefetch.take()
            if channel is not None:
                try:
                    reader = _Reader(channel, sent, request)
                except h11.LocalProtocolError:  # h11 would not have sent it: go the usual way
                    channel.close()
                else:
                    return await _response(reader, request)
        prefetch.discard()
        response = await self._inner.handle_async_request(request)
        if response.is_success:
            prefetch.record(request.method, str(request.url), headers, request.content)
        return response

    async def aclose(self) -> None:
        if self._prefetch is not None:
            self._prefetch.discard()
            self._prefetch = None
        await self._inner.aclose()
