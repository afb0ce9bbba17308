"""openai-completions against a real HTTP server on 127.0.0.1 (real sockets, real SSE framing)."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from pi_lsp.ai import (
    AbortSignal,
    TextContent,
    ThinkingContent,
    ToolCall,
    stream,
)
from pi_lsp.ai.providers.openai_completions import stream_openai_completions
from tests.ai.helpers import (
    TEST_KEY,
    ArgLockstep,
    RetryLog,
    collect,
    context,
    oa_chunk,
    oa_text_events,
    oa_usage,
    openai_model,
    options,
    types_of,
)
from tests.support.http_server import (
    Cut,
    Pause,
    ScriptedHTTPServer,
    ScriptedResponse,
    json_response,
    sse,
    sse_bytes,
    sse_response,
)

UNICODE_TEXT = "héllo wörld ☕ 日本語 🎉 done"


@pytest.mark.parametrize("split", [1, 5, 7, None])
async def test_text_streams_and_decodes_split_utf8(srv: ScriptedHTTPServer, split: int | None):
    srv.enqueue(sse_response(oa_text_events(UNICODE_TEXT, pieces=4), split_every=split))
    events, final = await collect(stream(openai_model(srv), context("hi"), options()))
    kinds = types_of(events)
    assert kinds[0] == "start"
    assert kinds[1] == "text_start"
    assert kinds[-2:] == ["text_end", "done"]
    deltas = "".join(e.delta for e in events if e.type == "text_delta")  # type: ignore[union-attr]
    assert deltas == UNICODE_TEXT
    assert final.content == [TextContent(text=UNICODE_TEXT)]
    assert final.stop_reason == "stop"
    assert final.response_id == "chatcmpl-123"
    assert (final.api, final.provider, final.model) == ("openai-completions", "openai", "gpt-test")
    req = srv.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {TEST_KEY}"
    body = req.json
    assert body["model"] == "gpt-test"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["store"] is False
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "hi"},
    ]


async def test_multibyte_char_split_between_two_sends(srv: ScriptedHTTPServer):
    """The first send ends inside "☕" (3 bytes); the rest is only sent after the client has
    parsed the complete event before it, so the character really arrives in two reads."""
    raw = sse_bytes(
        [oa_chunk({"content": "A"}), oa_chunk({"content": "x☕y"}), oa_chunk({}, "stop")]
    )
    cut = raw.index("☕".encode()) + 1
    gate = asyncio.Event()
    srv.enqueue(
        ScriptedResponse(
            headers={"content-type": "text/event-stream"}, body=[raw[:cut], Pause(gate), raw[cut:]]
        )
    )
    s = stream(openai_model(srv), context(), options())
    deltas = []
    async for event in s:
        if event.type == "text_delta":
            deltas.append(event.delta)
            gate.set()
    assert deltas == ["A", "x☕y"]
    assert (await s.result()).content == [TextContent(text="Ax☕y")]


async def test_reasoning_deltas_become_a_thinking_block(srv: ScriptedHTTPServer):
    events = [
        oa_chunk({"role": "assistant"}),
        oa_chunk({"reasoning_content": "Let me "}),
        oa_chunk({"reasoning_content": "think."}),
        oa_chunk({"content": "Answer."}),
        oa_chunk({}, "stop"),
    ]
    srv.enqueue(sse_response(events, split_every=9))
    got, final = await collect(stream(openai_model(srv), context(), options()))
    assert types_of(got) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "done",
    ]
    assert final.content == [
        ThinkingContent(thinking="Let me think.", thinking_signature="reasoning_content"),
        TextContent(text="Answer."),
    ]


async def test_reasoning_field_and_duplicate_fields(srv: ScriptedHTTPServer):
    # a server that sends the same text in two fields must not duplicate it
    events = [
        oa_chunk({"reasoning": "R1", "reasoning_content": "R1"}),
        oa_chunk({"content": "ok"}),
        oa_chunk({}, "stop"),
    ]
    srv.enqueue(sse_response(events))
    _, final = await collect(stream(openai_model(srv), context(), options()))
    expected = ThinkingContent(thinking="R1", thinking_signature="reasoning_content")
    assert final.content[0] == expected


def _tool_call_events(interleave: bool) -> list[dict]:
    a = json.dumps({"path": "src/main.py", "limit": 20})
    b = json.dumps({"pattern": "TODO", "glob": "*.py"})
    first = [
        oa_chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "read", "arguments": ""},
                    }
                ]
            }
        )
    ]
    second = [
        oa_chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "grep", "arguments": ""},
                    }
                ]
            }
        )
    ]
    a_parts = [
        oa_chunk({"tool_calls": [{"index": 0, "function": {"arguments": a[i : i + 2]}}]})
        for i in range(0, len(a), 2)
    ]
    b_parts = [
        oa_chunk({"tool_calls": [{"index": 1, "function": {"arguments": b[i : i + 3]}}]})
        for i in range(0, len(b), 3)
    ]
    if interleave:
        body = first + second
        for i in range(max(len(a_parts), len(b_parts))):
            body += a_parts[i : i + 1] + b_parts[i : i + 1]
    else:
        body = first + a_parts + second + b_parts
    return [
        oa_chunk({"role": "assistant", "content": "Looking."}),
        *body,
        oa_chunk({}, "tool_calls"),
        oa_usage(100, 40),
    ]


@pytest.mark.parametrize("interleave", [False, True])
async def test_parallel_tool_calls_assembled_by_index(srv: ScriptedHTTPServer, interleave: bool):
    lockstep = ArgLockstep(_tool_call_events(interleave))
    srv.enqueue(lockstep.response())
    s = stream(openai_model(srv), context(tools=True), options())
    partials: dict[int, list[dict]] = {}
    events = []
    async for event in s:
        events.append(event)
        if event.type == "toolcall_delta":
            block = event.partial.content[event.content_index]
            assert isinstance(block, ToolCall)
            partials.setdefault(event.content_index, []).append(dict(block.arguments))
            lockstep.saw_delta()
    final = await s.result()
    assert final.stop_reason == "toolUse"
    calls = [b for b in final.content if isinstance(b, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_a", "read", {"path": "src/main.py", "limit": 20}),
        ("call_b", "grep", {"pattern": "TODO", "glob": "*.py"}),
    ]
    assert types_of(events).count("toolcall_end") == 2
    ends = [e for e in events if e.type == "toolcall_end"]
    assert [e.tool_call.id for e in ends] == ["call_a", "call_b"]  # type: ignore[union-attr]
    # partial arguments grow as the JSON streams (parsed on every delta)
    first = partials[1]
    assert first[0] == {} or set(first[0]) <= {"path"}
    assert any(p.get("path") == "src/main.py" and "limit" not in p for p in first)
    assert first[-1] == {"path": "src/main.py", "limit": 20}
    tools = srv.requests[0].json["tools"]
    assert tools[0]["type"] == "function"
    assert tools[0]["function"]["name"] == "read"


async def test_tool_call_without_index_or_id(srv: ScriptedHTTPServer):
    events = [
        oa_chunk({"tool_calls": [{"function": {"name": "ls", "arguments": '{"path"'}}]}),
        oa_chunk({"tool_calls": [{"function": {"arguments": ': "."}'}}]}),
        oa_chunk({}, "stop"),  # Ollama-style: "stop" although it called a tool
    ]
    srv.enqueue(sse_response(events))
    _, final = await collect(stream(openai_model(srv), context(), options()))
    call = final.content[0]
    assert isinstance(call, ToolCall)
    assert call.name == "ls"
    assert call.arguments == {"path": "."}
    assert call.id.startswith("call_")
    assert final.stop_reason == "toolUse"


async def test_usage_and_cost(srv: ScriptedHTTPServer):
    events = [oa_chunk({"content": "x"}), oa_chunk({}, "stop"), oa_usage(1000, 500, cached=200)]
    srv.enqueue(sse_response(events))
    _, final = await collect(stream(openai_model(srv), context(), options()))
    usage = final.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (800, 500, 200, 0)
    assert usage.total_tokens == 1500
    assert usage.cost.input == pytest.approx(800 * 2.0 / 1e6)
    assert usage.cost.output == pytest.approx(500 * 8.0 / 1e6)
    assert usage.cost.cache_read == pytest.approx(200 * 0.5 / 1e6)
    assert usage.cost.total == pytest.approx((1600 + 4000 + 100) / 1e6)


@pytest.mark.parametrize(
    ("finish", "stop", "message"),
    [
        ("stop", "stop", None),
        ("length", "length", None),
        ("tool_calls", "toolUse", None),
        ("content_filter", "error", "content filter"),
        ("network_error", "error", "Provider finish_reason: network_error"),
        ("weird_reason", "error", "Provider finish_reason: weird_reason"),
    ],
)
async def test_each_finish_reason(
    srv: ScriptedHTTPServer, finish: str, stop: str, message: str | None
):
    srv.enqueue(sse_response([oa_chunk({"content": "partial"}), oa_chunk({}, finish)]))
    events, final = await collect(stream(openai_model(srv), context(), options()))
    assert final.stop_reason == stop
    assert final.content == [TextContent(text="partial")]
    if message is None:
        assert events[-1].type == "done"
        assert final.error_message is None
    else:
        assert events[-1].type == "error"
        assert message in (final.error_message or "")


async def test_400_with_error_body_is_not_retried(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            400,
            {
                "error": {
                    "message": "Unsupported parameter: 'foo'",
                    "type": "invalid_request_error",
                    "code": None,
                }
            },
        )
    )
    log = RetryLog()
    events, final = await collect(stream(openai_model(srv), context(), options(on_retry=log)))
    assert types_of(events) == ["error"]  # no start: the request failed before any output
    assert final.stop_reason == "error"
    assert final.error_message == (
        "400 invalid_request_error: Unsupported parameter: 'foo'"
        f" (POST {srv.url}/v1/chat/completions)"
    )
    assert len(srv.requests) == 1
    assert log.calls == []


async def test_401_names_the_status_and_never_the_key(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            401,
            {
                "error": {
                    "message": f"Incorrect API key provided: {TEST_KEY}.",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
        )
    )
    _, final = await collect(stream(openai_model(srv), context(), options()))
    assert final.error_message is not None
    assert final.error_message.startswith("401 invalid_api_key: Incorrect API key provided")
    assert TEST_KEY not in final.error_message
    assert TEST_KEY not in repr(final)
    assert len(srv.requests) == 1


async def test_429_honours_retry_after_then_succeeds(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            429,
            {
                "error": {
                    "message": "Rate limit reached",
                    "type": "requests",
                    "code": "rate_limit_exceeded",
                }
            },
            headers={"retry-after": "0.02"},
        )
    )
    srv.enqueue(sse_response(oa_text_events("after retry")))
    log = RetryLog()
    events, final = await collect(
        stream(openai_model(srv), context(), options(on_retry=log, base_retry_delay_ms=5000))
    )
    assert final.stop_reason == "stop"
    assert final.content == [TextContent(text="after retry")]
    assert types_of(events).count("start") == 1
    assert len(log.calls) == 1
    assert log.calls[0].attempt == 1
    assert log.calls[0].delay_ms == 20  # the server's Retry-After, not the 5 s backoff
    assert "429" in log.calls[0].error_message
    assert "rate_limit_exceeded" in log.calls[0].error_message


async def test_429_asking_for_more_than_the_cap_fails_at_once(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(429, {"error": {"message": "slow down"}}, headers={"retry-after": "120"})
    )
    log = RetryLog()
    _, final = await collect(
        stream(openai_model(srv), context(), options(on_retry=log, max_retry_delay_ms=60_000))
    )
    assert final.error_message == (
        "Server requested 120s retry delay (max: 60s). 429 slow down"
        f" (POST {srv.url}/v1/chat/completions)"
    )
    assert log.calls == []


async def test_quota_429_is_not_retried(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            429,
            {
                "error": {
                    "message": (
                        "You exceeded your current quota, please check your plan and billing "
                        "details."
                    ),
                    "type": "insufficient_quota",
                    "code": "insufficient_quota",
                }
            },
        )
    )
    log = RetryLog()
    _, final = await collect(stream(openai_model(srv), context(), options(on_retry=log)))
    assert final.error_message is not None
    assert final.error_message.startswith("429 insufficient_quota:")
    assert log.calls == []
    assert len(srv.requests) == 1


async def test_500_then_success_is_retried_with_backoff(srv: ScriptedHTTPServer):
    srv.enqueue(json_response(500, {"error": {"message": "Internal error"}}))
    srv.enqueue(json_response(503, {"error": {"message": "Unavailable"}}))
    srv.enqueue(sse_response(oa_text_events("third time lucky")))
    log = RetryLog()
    _, final = await collect(
        stream(openai_model(srv), context(), options(on_retry=log, base_retry_delay_ms=2))
    )
    assert final.content == [TextContent(text="third time lucky")]
    assert [(c.attempt, c.delay_ms) for c in log.calls] == [(1, 2), (2, 4)]
    assert log.calls[0].error_message == f"500 Internal error (POST {srv.url}/v1/chat/completions)"
    assert len(srv.requests) == 3
    assert srv.requests[0].json == srv.requests[2].json


async def test_retries_give_up_after_max_retries(srv: ScriptedHTTPServer):
    for _ in range(3):
        srv.enqueue(json_response(502, {"error": {"message": "Bad gateway"}}))
    log = RetryLog()
    _, final = await collect(
        stream(openai_model(srv), context(), options(on_retry=log, max_retries=2))
    )
    assert final.stop_reason == "error"
    assert final.error_message == f"502 Bad gateway (POST {srv.url}/v1/chat/completions)"
    assert len(log.calls) == 2
    assert len(srv.requests) == 3


async def test_connection_cut_after_output_is_an_error_without_retry(srv: ScriptedHTTPServer):
    body = sse([oa_chunk({"content": "Hello "}), oa_chunk({"content": "wor"})], done=False)
    srv.enqueue(
        ScriptedResponse(headers={"content-type": "text/event-stream"}, body=[*body, Cut()])
    )
    log = RetryLog()
    events, final = await collect(stream(openai_model(srv), context(), options(on_retry=log)))
    assert events[-1].type == "error"
    assert final.stop_reason == "error"
    assert final.content == [TextContent(text="Hello wor")]  # partial content kept
    assert final.error_message is not None
    assert final.error_message.startswith("Connection lost")
    assert log.calls == []
    assert len(srv.requests) == 1


async def test_connection_cut_before_output_is_retried(srv: ScriptedHTTPServer):
    srv.enqueue(
        ScriptedResponse(headers={"content-type": "text/event-stream"}, body=["", Cut(reset=True)])
    )
    srv.enqueue(sse_response(oa_text_events("second")))
    log = RetryLog()
    _, final = await collect(stream(openai_model(srv), context(), options(on_retry=log)))
    assert final.content == [TextContent(text="second")]
    assert len(log.calls) == 1


async def test_connection_refused_on_this_machine_is_reported_at_once():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model = openai_model(ScriptedHTTPServer(port=port))
    model.base_url = f"http://127.0.0.1:{port}/v1"
    log = RetryLog()
    _, final = await collect(stream(model, context(), options(on_retry=log, max_retries=1)))
    assert final.stop_reason == "error"
    assert final.error_message is not None
    assert final.error_message.startswith("Connection error")
    assert f"http://127.0.0.1:{port}" in final.error_message
    assert log.calls == []  # nothing listens on a loopback port: retrying cannot help


async def test_malformed_json_chunk(srv: ScriptedHTTPServer):
    srv.enqueue(sse_response([oa_chunk({"content": "ok so far"}), '{"choices": [ broken']))
    events, final = await collect(stream(openai_model(srv), context(), options()))
    assert events[-1].type == "error"
    assert final.stop_reason == "error"
    assert final.error_message == 'Invalid JSON in stream chunk: {"choices": [ broken'
    assert final.content == [TextContent(text="ok so far")]


async def test_error_object_inside_the_stream(srv: ScriptedHTTPServer):
    srv.enqueue(sse_response([{"error": {"message": "Provider overloaded", "code": 502}}]))
    srv.enqueue(sse_response(oa_text_events("recovered")))
    log = RetryLog()
    _, final = await collect(stream(openai_model(srv), context(), options(on_retry=log)))
    assert final.content == [TextContent(text="recovered")]
    assert log.calls[0].error_message == "Provider overloaded"


async def test_abort_mid_stream_is_prompt_and_keeps_the_partial(srv: ScriptedHTTPServer):
    gate = asyncio.Event()  # never released: the server stalls after two chunks
    body = sse([oa_chunk({"content": "Hel"}), oa_chunk({"content": "lo"})], done=False)
    srv.enqueue(
        ScriptedResponse(
            headers={"content-type": "text/event-stream"},
            body=[*body, Pause(gate), *sse([oa_chunk({}, "stop")])],
        )
    )
    signal = AbortSignal()
    s = stream(openai_model(srv), context(), options(signal=signal))
    seen = []
    async for event in s:
        seen.append(event.type)
        if event.type == "text_delta" and event.partial.content[0].text == "Hello":  # type: ignore[union-attr]
            signal.abort()
    final = await s.result()
    assert seen[-1] == "error"
    assert not gate.is_set()  # the stream ended while the server was still stalled
    assert final.stop_reason == "aborted"
    assert final.error_message == "Request was aborted"
    assert final.content == [TextContent(text="Hello")]


async def test_abort_during_retry_sleep(srv: ScriptedHTTPServer):
    srv.enqueue(json_response(500, {"error": {"message": "boom"}}))
    signal = AbortSignal()

    def on_retry(info: object) -> None:
        signal.abort()  # abort while the provider sleeps 60 s before retrying

    _, final = await collect(
        stream(
            openai_model(srv),
            context(),
            options(signal=signal, on_retry=on_retry, base_retry_delay_ms=60_000),
        )
    )
    assert final.stop_reason == "aborted"
    assert len(srv.requests) == 1


async def test_already_aborted_signal_sends_nothing(srv: ScriptedHTTPServer):
    signal = AbortSignal()
    signal.abort()
    events, final = await collect(stream(openai_model(srv), context(), options(signal=signal)))
    assert types_of(events) == ["error"]
    assert final.stop_reason == "aborted"
    assert srv.requests == []


async def test_read_timeout_after_output(srv: ScriptedHTTPServer):
    body = sse([oa_chunk({"content": "slow"})], done=False)
    srv.enqueue(
        ScriptedResponse(
            headers={"content-type": "text/event-stream"}, body=[*body, Pause(asyncio.Event())]
        )
    )
    _, final = await collect(stream(openai_model(srv), context(), options(timeout_ms=200)))
    assert final.stop_reason == "error"
    assert final.error_message.startswith(f"Request timed out: no data from {srv.url} for 0.2 s")
    assert final.content == [TextContent(text="slow")]
    assert len(srv.requests) == 1


async def test_read_timeout_before_output_is_retried(srv: ScriptedHTTPServer):
    srv.enqueue(
        ScriptedResponse(
            headers={"content-type": "text/event-stream"}, body=[Pause(asyncio.Event())]
        )
    )
    srv.enqueue(sse_response(oa_text_events("fast now")))
    log = RetryLog()
    _, final = await collect(
        stream(openai_model(srv), context(), options(timeout_ms=200, on_retry=log))
    )
    assert final.content == [TextContent(text="fast now")]
    assert "timed out" in log.calls[0].error_message


async def test_stream_closed_without_finish_reason(srv: ScriptedHTTPServer):
    srv.enqueue(sse_response([oa_chunk({"content": "cut"})], done=False, framing="close"))
    _, final = await collect(stream(openai_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert "ended without a finish_reason" in (final.error_message or "")


async def test_non_stream_response_is_an_error(srv: ScriptedHTTPServer):
    srv.enqueue(ScriptedResponse(headers={"content-type": "text/html"}, body="<h1>proxy</h1>"))
    _, final = await collect(stream(openai_model(srv), context(), options(max_retries=0)))
    assert final.error_message == "Expected an event stream, got text/html: <h1>proxy</h1>"


async def test_missing_key_fails_before_any_request(srv: ScriptedHTTPServer):
    events, final = await collect(
        stream_openai_completions(openai_model(srv), context(), options(api_key="  "))
    )
    assert types_of(events) == ["error"]
    assert final.error_message == (
        "No API key for provider 'openai': set OPENAI_API_KEY "
        "(or name another variable with the apiKeyEnv setting)"
    )
    assert srv.requests == []


async def test_key_from_named_env_variable(srv: ScriptedHTTPServer):
    srv.enqueue(sse_response(oa_text_events("ok")))
    opts = options(api_key=None, api_key_env="MY_KEY", env={"MY_KEY": "sk-from-env-xyz"})
    await collect(stream(openai_model(srv), context(), opts))
    assert srv.requests[0].headers["authorization"] == "Bearer sk-from-env-xyz"


async def test_local_server_needs_no_key(srv: ScriptedHTTPServer):
    srv.enqueue(sse_response(oa_text_events("local")))
    model = openai_model(
        srv,
        provider="ollama",
        compat={"maxTokensField": "max_tokens", "supportsUsageInStreaming": False},
    )
    _, final = await collect(stream(model, context(), options(api_key=None, max_tokens=99)))
    assert final.content == [TextContent(text="local")]
    req = srv.requests[0]
    assert "authorization" not in req.headers
    assert "stream_options" not in req.json
    assert req.json["max_tokens"] == 99
    assert "store" not in req.json
