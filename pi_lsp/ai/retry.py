"""Retry policy for provider requests: what is transient, how long to wait, abortable sleeps.

Two levels (docs/reference/pi.md#retries). The provider level (used by ``providers/_http``) retries
a request that failed *before any output was streamed*: connection errors, timeouts, HTTP
408/409/429/5xx/529 and ``overloaded`` errors, with ``base × 2^(attempt-1)`` backoff that honours
``Retry-After`` / ``retry-after-ms`` (and Google's ``RetryInfo.retryDelay``: ``google_rpc``);
never 400/401/403/404 or quota/billing errors (a 429 whose details show a per-minute limit is
not one, though Gemini's text says "billing").
``is_retryable_error_message`` is the session-level rule (coding-agent ``_isRetryableError``)
for higher layers. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

import anyio

from .abort import AbortSignal

RETRYABLE_STATUS = frozenset({408, 409, 429})
NEVER_RETRY_STATUS = frozenset({400, 401, 403, 404, 501, 505})
"""501 Not Implemented / 505 HTTP Version Not Supported will not change on a retry."""

QUOTA_PATTERN = re.compile(
    r"GoUsageLimitError|FreeUsageLimitError|Monthly usage limit reached|available balance|"
    r"insufficient_quota|out of budget|quota exceeded|billing",
    re.IGNORECASE,
)
"""Quota / billing failures: retrying cannot help (docs/reference/pi.md#retries)."""

RATE_LIMIT_NOTE = "per-minute rate limit"
"""Said in a 429's message when the server's details show a limit that waiting lifts (Gemini's
per-minute quota, whose text also says "check your plan and billing": ``google_rpc``)."""
_RATE_LIMIT = re.compile(re.escape(RATE_LIMIT_NOTE), re.IGNORECASE)

SESSION_RETRYABLE_PATTERN = re.compile(
    r"overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|"
    r"service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|"
    r"connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|"
    r"fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|"
    r"stream ended before message_stop|http2 request did not get a response|timed? out|timeout|"
    r"terminated|retry delay",
    re.IGNORECASE,
)


def is_quota_error(text: str | None) -> bool:
    """True for quota / billing / usage-limit failures (never retried); not for a per-minute
    rate limit, whatever else its text says."""
    if not text or QUOTA_PATTERN.search(text) is None:
        return False
    return _RATE_LIMIT.search(text) is None


def is_retryable_status(status: int, body_text: str = "") -> bool:
    """Transient HTTP statuses: 408, 409, 429 and every 5xx (incl. 529 overloaded) but 501
    and 505, unless the body says the account is out of quota."""
    if status in NEVER_RETRY_STATUS:
        return False
    if status not in RETRYABLE_STATUS and not 500 <= status <= 599:
        return False
    return not is_quota_error(body_text)


def is_retryable_error_message(message: str | None) -> bool:
    """The session-level rule: a transient-looking message that is not a quota error.

    (Context overflow is the caller's separate check: see ``overflow.is_context_overflow``.)
    """
    if not message or is_quota_error(message):
        return False
    return SESSION_RETRYABLE_PATTERN.search(message) is not None


def parse_retry_after_ms(headers: Mapping[str, str], *, now: float | None = None) -> int | None:
    """The server-requested delay in ms: ``retry-after-ms``, else ``Retry-After`` given as
    seconds or as an HTTP date. ``None`` when absent or unparsable."""
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0, int(float(raw_ms.strip())))
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    raw = raw.strip()
    try:
        return max(0, int(float(raw) * 1000))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(0, int((when.timestamp() - current) * 1000))


def backoff_delay_ms(attempt: int, base_delay_ms: int) -> int:
    """Exponential backoff for retry number ``attempt`` (1-based): base, 2×base, 4×base…"""
    return int(base_delay_ms * (2 ** max(0, attempt - 1)))


def retry_delay_ms(
    attempt: int,
    base_delay_ms: int,
    retry_after_ms: int | None,
    max_delay_ms: int,
) -> tuple[int | None, str | None]:
    """The delay before retry ``attempt``, or ``(None, reason)`` when the server asks for more
    than ``max_delay_ms`` (0 disables the cap). Then the request fails at once with a message
    saying so, which lets a higher layer retry visibly (pi's ``maxRetryDelayMs``)."""
    if retry_after_ms is not None:
        if max_delay_ms > 0 and retry_after_ms > max_delay_ms:
            return None, (
                f"Server requested {retry_after_ms / 1000:g}s retry delay "
                f"(max: {max_delay_ms / 1000:g}s)."
            )
        return retry_after_ms, None
    delay = backoff_delay_ms(attempt, base_delay_ms)
    if max_delay_ms > 0:
        delay = min(delay, max_delay_ms)
    return delay, None


async def abortable_sleep(delay_ms: float, signal: AbortSignal | None) -> bool:
    """Sleep ``delay_ms``; return False at once if ``signal`` aborts (True when slept fully)."""
    if signal is None:
        await anyio.sleep(delay_ms / 1000)
        return True
    if signal.aborted:
        return False
    with anyio.move_on_after(delay_ms / 1000):
        await signal.wait()
    return not signal.aborted
