"""Shared HTTP plumbing for the streaming providers: one request, status check, SSE, retries.

``iter_sse`` POSTs a JSON body and yields server-sent events (parsed by httpx-sse). A failure
before the first event is retried per ``ai.retry`` (reported through ``options.on_retry``);
once an event was yielded, failures propagate. Every failure is a ``ProviderError`` whose
message is user-facing: the HTTP status plus the provider's own error text, or a plain
description of the network problem, with API keys redacted.

Exceptions: ``ProviderError`` (message, ``status``, ``retryable``, ``retry_after_ms``).
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import ssl
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

from ..events import RetryInfo
from ..options import StreamOptions
from ..retry import is_quota_error, is_retryable_status, parse_retry_after_ms, retry_delay_ms

DEFAULT_CONNECT_TIMEOUT_S = 30.0
DEFAULT_READ_TIMEOUT_S = 600.0
_MAX_ERROR_TEXT = 600
_SURROGATES = re.compile("[\ud800-\udfff]")
_KEY_LIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9._\-]{8,})")


class ProviderError(Exception):
    """A failed provider request, described for the user (never contains a key)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after_ms = retry_after_ms

    def __str__(self) -> str:
        return self.message


@dataclass(slots=True)
class HttpRequest:
    url: str
    headers: dict[str, str] = field(repr=False)
    body: dict[str, Any] = field(repr=False)
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """Values that must never appear in an error message (the API key)."""


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every secret and anything key-shaped replaced by ``[redacted]``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return _KEY_LIKE.sub("[redacted]", text)


def encode_json(body: Mapping[str, Any]) -> bytes:
    """UTF-8 JSON with lone surrogates removed (they cannot be encoded and providers reject
    them; pi's ``sanitizeSurrogates``)."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATES.sub("", text).encode("utf-8")


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()  # certifi's bundle (or SSL_CERT_FILE), built once


def new_client() -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` with the shared SSL context.

    Providers make one per request when the caller injected none; long-lived hosts (the
    language server, ``pi-lsp run``) create one and pass it as ``StreamOptions.http_client``
    so every turn reuses the provider connection instead of a new TLS handshake.
    """
    return httpx.AsyncClient(verify=_ssl_context())


def request_timeout(options: StreamOptions) -> httpx.Timeout:
    """``options.timeout_ms`` is the read timeout: no bytes for that long fails the request."""
    read = options.timeout_ms / 1000 if options.timeout_ms else DEFAULT_READ_TIMEOUT_S
    return httpx.Timeout(read, connect=min(read, DEFAULT_CONNECT_TIMEOUT_S))


# ------------------------------------------------------------------------ error messages


def _error_parts(payload: Any) -> tuple[str | None, str | None]:
    """(kind, message) from the usual error shapes: OpenAI ``{"error": {message, type, code}}``,
    Anthropic ``{"type": "error", "error": {type, message}}``, Ollama ``{"error": "..."}``,
    vLLM / FastAPI ``{"message": ...}`` / ``{"detail": ...}``."""
    if not isinstance(payload, dict):
        return None, None
    err = payload.get("error")
    if isinstance(err, str):
        return None, err
    if isinstance(err, dict):
        code = err.get("code")
        kind = code if isinstance(code, str) and code else err.get("type")
        message = err.get("message")
        if isinstance(message, str) and message:
            return (kind if isinstance(kind, str) else None), message
        metadata = err.get("metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("raw"), str):
            return (kind if isinstance(kind, str) else None), metadata["raw"]
    for key in ("message", "detail"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            kind = payload.get("type") or payload.get("code")
            return (kind if isinstance(kind, str) else None), value
    return None, None


def describe_error_payload(payload: Any) -> str | None:
    """``kind: message`` (or just the message) from a JSON error payload, if it has one."""
    kind, message = _error_parts(payload)
    if message is None:
        return None
    if kind and kind not in message:
        return f"{kind}: {message}"
    return message


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ERROR_TEXT else text[:_MAX_ERROR_TEXT] + "…"


def error_from_response(
    status: int, headers: Mapping[str, str], body: bytes
) -> ProviderError:
    """An HTTP error status turned into ``"<status> <provider's error text>"``."""
    text = body.decode("utf-8", errors="replace").strip()
    detail: str | None = None
    if text:
        try:
            detail = describe_error_payload(json.loads(text))
        except ValueError:
            detail = None
        if detail is None:
            detail = _excerpt(text)
    message = f"{status} {detail}" if detail else f"{status} status code (no body)"
    retryable = is_retryable_status(status, text) or (
        status not in (400, 401, 403, 404)
        and "overloaded" in text.lower()
        and not is_quota_error(text)
    )
    return ProviderError(
        message,
        status=status,
        retryable=retryable,
        retry_after_ms=parse_retry_after_ms(headers),
    )


def error_from_stream_payload(payload: Any) -> ProviderError:
    """An error event inside a 200 stream (Anthropic ``event: error``, OpenRouter mid-stream
    ``{"error": …}``); retryable only when it says overloaded / rate-limited / server error."""
    detail = describe_error_payload(payload) or _excerpt(json.dumps(payload))
    lowered = detail.lower()
    transient = any(
        word in lowered
        for word in ("overloaded", "rate_limit", "rate limit", "api_error", "server_error",
                     "internal server error", "timeout")
    )
    return ProviderError(detail, retryable=transient and not is_quota_error(detail))


def error_from_exception(exc: Exception, options: StreamOptions) -> ProviderError:
    """A transport failure described for the user."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectTimeout):
        return ProviderError(f"Connection timed out: {text}", retryable=True)
    if isinstance(exc, httpx.TimeoutException):
        seconds = (options.timeout_ms or DEFAULT_READ_TIMEOUT_S * 1000) / 1000
        return ProviderError(
            f"Request timed out: no data from the provider for {seconds:g} s", retryable=True
        )
    if isinstance(exc, httpx.ConnectError):
        return ProviderError(f"Connection error: {text}", retryable=True)
    if isinstance(exc, httpx.RemoteProtocolError):
        return ProviderError(f"Connection lost: {text}", retryable=True)
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return ProviderError(f"Invalid base URL: {text}")
    if isinstance(exc, httpx.NetworkError | httpx.ProxyError):
        return ProviderError(f"Network error: {text}", retryable=True)
    if isinstance(exc, SSEError):
        return ProviderError(f"Invalid event stream: {text}")
    return ProviderError(f"{type(exc).__name__}: {text}")


# -------------------------------------------------------------------------- the request


StreamErrorDetector = Callable[[ServerSentEvent], ProviderError | None]


async def _check_event_stream(response: httpx.Response) -> None:
    content_type = response.headers.get("content-type", "")
    if "text/event-stream" in content_type:
        return
    body = await response.aread()
    text = body.decode("utf-8", errors="replace")
    try:
        detail = describe_error_payload(json.loads(text))
    except ValueError:
        detail = None
    if detail is not None:
        raise error_from_stream_payload(json.loads(text))
    raise ProviderError(
        f"Expected an event stream, got {content_type or 'no content type'}: "
        f"{_excerpt(text) or '(empty body)'}"
    )


async def _attempt(
    client: httpx.AsyncClient,
    request: HttpRequest,
    payload: bytes,
    options: StreamOptions,
    detect_error: StreamErrorDetector,
    progress: list[bool],
) -> AsyncGenerator[ServerSentEvent, None]:
    async with client.stream(
        "POST",
        request.url,
        headers=request.headers,
        content=payload,
        timeout=request_timeout(options),
    ) as response:
        if not response.is_success:
            body = await response.aread()
            raise error_from_response(response.status_code, response.headers, body)
        await _check_event_stream(response)
        async for event in EventSource(response).aiter_sse():
            error = detect_error(event)
            if error is not None:
                raise error
            progress[0] = True
            yield event
    if not progress[0]:
        raise ProviderError("The provider ended the stream without sending any event",
                            retryable=True)


async def iter_sse(
    client: httpx.AsyncClient,
    request: HttpRequest,
    options: StreamOptions,
    detect_error: StreamErrorDetector,
) -> AsyncGenerator[ServerSentEvent, None]:
    """Yield the response's events, retrying transient failures that happen before the first
    event (see the module docstring). Cancellation (abort) interrupts any wait at once."""
    payload = encode_json(request.body)
    attempt = 0
    while True:
        progress = [False]
        try:
            attempt_events = _attempt(client, request, payload, options, detect_error, progress)
            async with contextlib.aclosing(attempt_events) as events:
                async for event in events:
                    yield event
            return
        except ProviderError as exc:
            error = exc
        except (httpx.HTTPError, SSEError) as exc:
            error = error_from_exception(exc, options)
        if progress[0] or not error.retryable or attempt >= options.max_retries:
            raise error
        attempt += 1
        delay, refusal = retry_delay_ms(
            attempt, options.base_retry_delay_ms, error.retry_after_ms, options.max_retry_delay_ms
        )
        if delay is None:
            raise ProviderError(f"{refusal} {error.message}", status=error.status)
        if options.on_retry is not None:
            info = RetryInfo(attempt, delay, redact(error.message, request.secrets))
            with contextlib.suppress(Exception):  # a listener must not break the request
                options.on_retry(info)
        await anyio.sleep(delay / 1000)
