"""Provider errors name the URL and the setting to change (issue 10 item 12)."""

from __future__ import annotations

import socket

from pi_lsp.ai import stream
from tests.ai.helpers import (
    RetryLog,
    an_text_events,
    anthropic_model,
    collect,
    context,
    oa_text_events,
    openai_model,
    options,
)
from tests.support.http_server import (
    ScriptedHTTPServer,
    ScriptedResponse,
    json_response,
    sse_response,
)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _error(model, **kw) -> str:  # type: ignore[no-untyped-def]
    _, final = await collect(stream(model, context(), options(**kw)))
    assert final.stop_reason == "error"
    assert final.error_message
    return final.error_message


async def test_closed_port_names_the_url_at_once(srv: ScriptedHTTPServer) -> None:
    port = _closed_port()
    retries = RetryLog()
    message = await _error(
        openai_model(srv, base_url=f"http://127.0.0.1:{port}/v1"), on_retry=retries
    )
    assert f"127.0.0.1:{port}" in message
    assert "baseUrl" in message
    assert retries.calls == []  # nothing listens on this machine: no 7 s of retries


async def test_404_names_the_url_and_what_is_appended(srv: ScriptedHTTPServer) -> None:
    srv.enqueue(json_response(404, {"error": {"message": "File Not Found", "code": 404}}))
    message = await _error(openai_model(srv, base_url=srv.url))
    assert f"{srv.url}/chat/completions" in message
    assert "appends /chat/completions" in message
    assert "/v1" in message


async def test_anthropic_404_says_what_is_appended(srv: ScriptedHTTPServer) -> None:
    srv.enqueue(json_response(404, {"type": "error", "error": {"message": "not found"}}))
    message = await _error(anthropic_model(srv, base_url=srv.url + "/api"))
    assert f"{srv.url}/api/v1/messages" in message
    assert "appends /v1/messages" in message


async def test_https_on_a_plain_http_port_fails_fast_with_a_hint(
    srv: ScriptedHTTPServer,
) -> None:
    retries = RetryLog()
    message = await _error(
        openai_model(srv, base_url=f"https://127.0.0.1:{srv.port}/v1"),
        timeout_ms=300,
        on_retry=retries,
    )
    assert f"127.0.0.1:{srv.port}" in message
    assert "http://" in message
    assert retries.calls == []


async def test_501_is_not_retried_and_an_html_page_is_reduced(srv: ScriptedHTTPServer) -> None:
    page = (
        "<!DOCTYPE html><html><head><title>501 Not Implemented</title>"
        "<style>body{color:red}</style></head><body>" + "<p>filler</p>" * 500 + "</body></html>"
    )
    srv.enqueue(ScriptedResponse(status=501, headers={"content-type": "text/html"}, body=page))
    srv.enqueue(ScriptedResponse(status=501, headers={"content-type": "text/html"}, body=page))
    message = await _error(openai_model(srv))
    assert len(srv.requests) == 1
    assert "Not Implemented" in message
    assert "<" not in message
    assert len(message) < 400


async def test_status_code_is_not_said_twice(srv: ScriptedHTTPServer) -> None:
    srv.enqueue(json_response(400, {"error": {"message": "400: bad input", "code": "400"}}))
    message = await _error(openai_model(srv))
    assert message.startswith("400 bad input")
    assert "400 400" not in message


async def test_read_timeout_names_the_setting(srv: ScriptedHTTPServer) -> None:
    import asyncio

    from tests.support.http_server import Pause

    never = asyncio.Event()
    srv.enqueue(
        ScriptedResponse(headers={"content-type": "text/event-stream"}, body=[Pause(never)])
    )
    message = await _error(openai_model(srv), timeout_ms=200, max_retries=0)
    assert "readTimeout" in message
    assert srv.url.removeprefix("http://") in message
    never.set()


async def test_unknown_anthropic_model_asks_for_a_modest_answer(
    srv: ScriptedHTTPServer,
) -> None:
    from pi_lsp.ai.models import resolve_model

    model = resolve_model("anthropic", "smollm2", srv.url)
    assert model.max_tokens <= 8192
    srv.enqueue(sse_response(an_text_events("hi"), named=True, done=False))
    await collect(stream(model, context(), options()))
    assert srv.requests[-1].json["max_tokens"] == model.max_tokens
    capped = resolve_model("anthropic", "smollm2", srv.url, max_tokens=100)
    srv.enqueue(sse_response(an_text_events("hi"), named=True, done=False))
    await collect(stream(capped, context(), options()))
    assert srv.requests[-1].json["max_tokens"] == 100


async def test_max_tokens_option_reaches_openai_compatible_servers(
    srv: ScriptedHTTPServer,
) -> None:
    srv.enqueue(sse_response(oa_text_events("hi")))
    model = openai_model(srv, compat={"maxTokensField": "max_tokens"})
    await collect(stream(model, context(), options(max_tokens=77)))
    assert srv.requests[-1].json["max_tokens"] == 77
