"""The retry policy (pure parts) and overflow detection."""

from __future__ import annotations

import asyncio
from email.utils import formatdate

import pytest

from pi_lsp.ai import (
    AbortSignal,
    AssistantMessage,
    Usage,
    abortable_sleep,
    backoff_delay_ms,
    is_context_overflow,
    is_quota_error,
    is_request_too_large,
    is_retryable_error_message,
    is_retryable_status,
    parse_retry_after_ms,
)
from pi_lsp.ai.providers._http import error_from_response, redact
from pi_lsp.ai.retry import retry_delay_ms


def test_backoff_doubles_from_the_base():
    assert [backoff_delay_ms(n, 1000) for n in (1, 2, 3)] == [1000, 2000, 4000]


@pytest.mark.parametrize(
    ("status", "body", "retryable"),
    [
        (408, "", True),
        (409, "", True),
        (429, "slow down", True),
        (500, "", True),
        (502, "", True),
        (503, "", True),
        (529, "overloaded", True),
        (400, "", False),
        (401, "", False),
        (403, "", False),
        (404, "", False),
        (422, "", False),
        (429, '{"error": {"code": "insufficient_quota"}}', False),
        (402, "billing hard limit reached", False),
    ],
)
def test_retryable_statuses(status: int, body: str, retryable: bool):
    assert is_retryable_status(status, body) is retryable


def test_retry_after_forms():
    assert parse_retry_after_ms({"Retry-After": "2"}) == 2000
    assert parse_retry_after_ms({"retry-after": "1.5"}) == 1500
    assert parse_retry_after_ms({"retry-after-ms": "250", "retry-after": "9"}) == 250
    now = 1_700_000_000.0
    date = formatdate(now + 30, usegmt=True)
    assert parse_retry_after_ms({"retry-after": date}, now=now) == 30_000
    assert parse_retry_after_ms({"retry-after": formatdate(now - 30, usegmt=True)}, now=now) == 0
    assert parse_retry_after_ms({"retry-after": "soon"}) is None
    assert parse_retry_after_ms({}) is None


def test_retry_delay_caps():
    assert retry_delay_ms(3, 1000, None, 60_000) == (4000, None)
    assert retry_delay_ms(1, 1000, 5000, 60_000) == (5000, None)
    delay, reason = retry_delay_ms(1, 1000, 90_000, 60_000)
    assert delay is None
    assert reason == "Server requested 90s retry delay (max: 60s)."
    assert retry_delay_ms(1, 1000, 90_000, 0) == (90_000, None)  # 0 disables the cap
    assert retry_delay_ms(10, 1000, None, 60_000) == (60_000, None)


def test_session_level_retryable_messages():
    assert is_retryable_error_message("529 overloaded_error: Overloaded")
    assert is_retryable_error_message("Connection lost: peer closed connection")
    assert is_retryable_error_message("Request timed out: no data for 5 s")
    assert is_retryable_error_message("Stream ended before message_stop (closed early)")
    assert is_retryable_error_message("Server requested 90s retry delay (max: 60s). 429 x")
    assert not is_retryable_error_message("429 insufficient_quota: You exceeded your quota")
    assert not is_retryable_error_message("400 invalid_request_error: bad")
    assert not is_retryable_error_message(None)
    assert is_quota_error("Monthly usage limit reached")


def test_error_bodies_become_readable_messages():
    assert str(error_from_response(500, {}, b"")) == "500 status code (no body)"
    assert str(error_from_response(502, {}, b"<html><body>Bad   gateway</body></html>")) == (
        "502 Bad gateway (an HTML page)"
    )
    assert str(error_from_response(404, {}, b'{"error": "model \'x\' not found"}')) == (
        "404 model 'x' not found"
    )
    assert str(
        error_from_response(
            400, {}, b'{"object": "error", "message": "too long", "type": "BadRequestError"}'
        )
    ) == ("400 BadRequestError: too long")
    err = error_from_response(429, {"retry-after": "3"}, b"{}")
    assert err.retryable
    assert err.retry_after_ms == 3000


def test_redaction_hides_keys_bearer_tokens_and_named_secrets():
    text = "key sk-live-abcdefghijklmnop and Bearer abc.def.ghijklmnop and mysecretvalue"
    out = redact(text, ["mysecretvalue"])
    assert "abcdefghijklmnop" not in out
    assert "ghijklmnop" not in out
    assert "mysecretvalue" not in out
    assert out.count("[redacted]") == 3


async def test_abortable_sleep():
    signal = AbortSignal()
    task = asyncio.ensure_future(abortable_sleep(60_000, signal))
    await asyncio.sleep(0)
    signal.abort()
    assert await task is False
    assert await abortable_sleep(1, AbortSignal()) is True
    assert await abortable_sleep(1, None) is True


def _error(text: str) -> AssistantMessage:
    return AssistantMessage(stop_reason="error", error_message=text)


def test_context_overflow_detection():
    assert is_context_overflow(
        _error("400 invalid_request_error: prompt is too long: 213462 tokens > 200000 maximum")
    )
    assert is_context_overflow(_error("400 Your input exceeds the context window of this model"))
    assert is_context_overflow(
        _error("400 the request exceeds the available context size, try increasing it")
    )
    assert is_context_overflow(_error("413 status code (no body)"))
    assert not is_context_overflow(_error("429 rate_limit_error: slow down"))
    silent = AssistantMessage(stop_reason="stop", usage=Usage(input=150_000, cache_read=60_000))
    assert is_context_overflow(silent, context_window=200_000)
    assert not is_context_overflow(silent)
    assert is_request_too_large(_error("413 request_too_large: Request exceeds the maximum size"))
    assert not is_request_too_large(_error("413 status code (no body)"))


def test_keys_stay_out_of_reprs():
    from pi_lsp.ai import StreamOptions
    from pi_lsp.ai.providers._http import HttpRequest

    assert "sk-hidden" not in repr(StreamOptions(api_key="sk-hidden"))
    request = HttpRequest("https://x", {"authorization": "Bearer sk-hidden"}, {}, ("sk-hidden",))
    assert "sk-hidden" not in repr(request)
