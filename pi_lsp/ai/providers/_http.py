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
import json
import re
import ssl
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

from ..endpoints import connect_timeout_for_host, is_loopback_host
from ..events import RetryInfo
from ..google_rpc import rpc_details
from ..options import StreamOptions
from ..retry import (
    RATE_LIMIT_NOTE,
    is_quota_error,
    is_retryable_status,
    parse_retry_after_ms,
    retry_delay_ms,
)
from ..tls import ssl_context

DEFAULT_READ_TIMEOUT_S = 600.0
READ_TIMEOUT_SETTING = "readTimeout"
_MAX_ERROR_TEXT = 600
_MAX_HTML_TEXT = 200
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]{0,2000}>")
_HTML_SKIP = re.compile(r"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_SURROGATES = re.compile("[\ud800-\udfff]")
_ITEM_NOT_FOUND = re.compile(r"\bitem with id\b.{0,200}?\bnot found\b", re.IGNORECASE | re.DOTALL)
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
    not_found_hint: str | None = None
    """Said after a 404: what the provider appends to ``baseUrl`` and what to check."""


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


def new_client(
    wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None,
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` with the shared SSL context.

    Providers make one per request when the caller injected none; long-lived hosts (the
    language server, ``pi-lsp run``) create one and pass it as ``StreamOptions.http_client``
    so every turn reuses the provider connection instead of a new TLS handshake. ``wrap``
    puts a transport of the host's around the usual one (``pi-lsp run``'s early request).
    """
    if wrap is None:
        return httpx.AsyncClient(verify=ssl_context())
    return httpx.AsyncClient(transport=wrap(httpx.AsyncHTTPTransport(verify=ssl_context())))


def _host(url: str) -> str | None:
    try:
        return httpx.URL(url).host
    except (httpx.InvalidURL, TypeError, ValueError):
        return None


def is_loopback(url: str) -> bool:
    host = _host(url)
    return host is not None and is_loopback_host(host)


def connect_timeout_s(url: str, read: float) -> float:
    return min(read, connect_timeout_for_host(_host(url) or ""))


def request_timeout(options: StreamOptions, url: str = "") -> httpx.Timeout:
    """``options.timeout_ms`` is the read timeout: no bytes for that long fails the request."""
    read = options.timeout_ms / 1000 if options.timeout_ms else DEFAULT_READ_TIMEOUT_S
    return httpx.Timeout(read, connect=connect_timeout_s(url, read))


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


def _context_sizes(payload: Any) -> str:
    """llama.cpp's overflow error carries the numbers: keep them for the user."""
    err = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(err, dict):
        return ""
    prompt, window = err.get("n_prompt_tokens"), err.get("n_ctx")
    if isinstance(prompt, int) and isinstance(window, int):
        return f" (the prompt has {prompt} tokens; the context size is {window})"
    return ""


def describe_error_payload(payload: Any) -> str | None:
    """``kind: message`` (or just the message) from a JSON error payload, if it has one."""
    kind, message = _error_parts(payload)
    if message is None:
        return None
    message += _context_sizes(payload)
    if kind and kind not in message:
        return f"{kind}: {message}"
    return message


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ERROR_TEXT else text[:_MAX_ERROR_TEXT] + "…"


def _looks_like_html(text: str) -> bool:
    head = text[:200].lstrip().lower()
    return head.startswith(("<!doctype html", "<html", "<head", "<body")) or "<html" in head


def html_summary(text: str) -> str:
    """A short line for an HTML error page: its ``<title>``, else its first words."""
    title = _HTML_TITLE.search(text[:20_000])
    if title is not None and title.group(1).strip():
        words = " ".join(title.group(1).split())
    else:
        words = " ".join(_HTML_TAG.sub(" ", _HTML_SKIP.sub(" ", text[:20_000])).split())
    if len(words) > _MAX_HTML_TEXT:
        words = words[:_MAX_HTML_TEXT] + "…"
    return f"{words} (an HTML page)" if words else "(an HTML page)"


def _without_status(detail: str, status: int) -> str:
    """``"400: x"`` / ``"400 x"`` → ``"x"``, so the message does not say the code twice."""
    code = str(status)
    stripped = detail.lstrip()
    if stripped.startswith(code):
        rest = stripped[len(code) :]
        if not rest or rest[0] in " :-":
            return rest.lstrip(" :-") or detail
    return detail


def error_from_response(status: int, headers: Mapping[str, str], body: bytes) -> ProviderError:
    """An HTTP error status turned into ``"<status> <provider's error text>"``."""
    text = body.decode("utf-8", errors="replace").strip()
    detail: str | None = None
    payload: Any = None
    if text:
        try:
            payload = json.loads(text)
            detail = describe_error_payload(payload)
        except ValueError:
            detail = None
        if detail is None:
            detail = html_summary(text) if _looks_like_html(text) else _excerpt(text)
        detail = _without_status(detail, status)
    message = f"{status} {detail}" if detail else f"{status} status code (no body)"
    retryable = is_retryable_status(status, text) or (
        status not in (400, 401, 403, 404)
        and "overloaded" in text.lower()
        and not is_quota_error(text)
    )
    retry_after = parse_retry_after_ms(headers)
    google = rpc_details(payload) if status == 429 else None
    if google is not None:
        if google.rate_limited:
            retryable = True
            if retry_after is None:
                retry_after = google.retry_delay_ms
            wait = f"{(retry_after or 0) / 1000:g} s"
            message += f" ({RATE_LIMIT_NOTE} {google.quota_names}: the server asks to wait {wait})"
        else:
            retryable = False
            named = f" ({google.quota_names})" if google.quota_ids else ""
            message = (
                f"{status} quota exhausted{named}: waiting a minute will not lift it; it resets "
                f"later or needs another plan or key. {detail}"
            )
    return ProviderError(message, status=status, retryable=retryable, retry_after_ms=retry_after)


def error_from_stream_payload(payload: Any) -> ProviderError:
    """An error event inside a 200 stream (Anthropic ``event: error``, OpenRouter mid-stream
    ``{"error": …}``); retryable only when it says overloaded / rate-limited / server error."""
    detail = describe_error_payload(payload) or _excerpt(json.dumps(payload))
    lowered = detail.lower()
    transient = any(
        word in lowered
        for word in (
            "overloaded",
            "rate_limit",
            "rate limit",
            "api_error",
            "server_error",
            "internal server error",
            "timeout",
        )
    )
    return ProviderError(detail, retryable=transient and not is_quota_error(detail))


def _origin(url: str) -> str:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        return url
    port = f":{parsed.port}" if parsed.port else ""
    return f"{parsed.scheme}://{parsed.host}{port}"


def error_from_exception(exc: Exception, options: StreamOptions, url: str = "") -> ProviderError:
    """A transport failure described for the user: what failed, where, and what to check."""
    text = str(exc) or type(exc).__name__
    where = _origin(url) if url else "the provider"
    local = is_loopback(url)
    if isinstance(exc, httpx.ConnectTimeout):
        read = options.timeout_ms / 1000 if options.timeout_ms else DEFAULT_READ_TIMEOUT_S
        message = f"Connecting to {where} timed out after {connect_timeout_s(url, read):g} s"
        if url.startswith("https://"):
            message += (
                "; if that server speaks plain HTTP (llama.cpp, Ollama and most local servers "
                "do), use http:// in `baseUrl` (--base-url)"
            )
        else:
            message += "; check the host and port in `baseUrl` (--base-url)"
        return ProviderError(message, retryable=not local)
    if isinstance(exc, httpx.TimeoutException):
        seconds = (options.timeout_ms or DEFAULT_READ_TIMEOUT_S * 1000) / 1000
        return ProviderError(
            f"Request timed out: no data from {where} for {seconds:g} s "
            f"(raise `{READ_TIMEOUT_SETTING}` (--read-timeout) for a slow server)",
            retryable=True,
        )
    if isinstance(exc, httpx.ConnectError):
        if isinstance(exc.__cause__, ssl.SSLError) or "SSL" in text or "TLS" in text:
            hint = (
                "; if that server speaks plain HTTP, use http:// in `baseUrl` (--base-url)"
                if url.startswith("https://")
                else ""
            )
            return ProviderError(f"TLS error connecting to {where}: {text}{hint}")
        # Nothing listening on this machine is not transient: say so at once.
        return ProviderError(
            f"Connection error: cannot connect to {where} ({text}): is the server running? "
            "Check the host and port in `baseUrl` (--base-url)",
            retryable=not local,
        )
    if isinstance(exc, httpx.RemoteProtocolError):
        return ProviderError(f"Connection lost ({where}): {text}", retryable=True)
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return ProviderError(f"Invalid URL {url}: {text}; check `baseUrl` (--base-url)")
    if isinstance(exc, httpx.NetworkError | httpx.ProxyError):
        return ProviderError(f"Network error talking to {where}: {text}", retryable=True)
    if isinstance(exc, SSEError):
        return ProviderError(f"Invalid event stream from {where}: {text}")
    return ProviderError(f"{type(exc).__name__} talking to {where}: {text}")


def is_item_not_found(message: str) -> bool:
    """A 404 about something the request names (the Responses API's "Item with id 'rs_…' not
    found"), not about the URL: the path was right, so the ``baseUrl`` hint would mislead."""
    return _ITEM_NOT_FOUND.search(message) is not None


def _located(error: ProviderError, request: HttpRequest) -> ProviderError:
    """An HTTP status error with the request's URL (and the 404 hint) appended."""
    if error.status is None:
        return error
    message = f"{error.message} (POST {request.url})"
    if error.status == 404 and request.not_found_hint and not is_item_not_found(error.message):
        message += f": {request.not_found_hint}"
    return ProviderError(
        message,
        status=error.status,
        retryable=error.retryable,
        retry_after_ms=error.retry_after_ms,
    )


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
        timeout=request_timeout(options, request.url),
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
        raise ProviderError(
            "The provider ended the stream without sending any event", retryable=True
        )


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
            error = _located(exc, request)
        except (httpx.HTTPError, SSEError) as exc:
            error = error_from_exception(exc, options, request.url)
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
