"""anthropic-messages against a real HTTP server on 127.0.0.1 (named SSE events, real sockets)."""

from __future__ import annotations

import asyncio
import json

import pytest

from pi_lsp.ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    stream,
)
from tests.ai.helpers import (
    TEST_KEY,
    ArgLockstep,
    RetryLog,
    an_end,
    an_start,
    an_text_block,
    an_text_events,
    an_tool_block,
    anthropic_model,
    collect,
    context,
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
    sse_response,
)

TEXT = "Grüße aus Köln — ☕ 東京 🎌"


def named(events: list, split: int | None = None, tail: list | None = None) -> ScriptedResponse:
    return sse_response(events, split, done=False, named=True, tail=tail)


@pytest.mark.parametrize("split", [1, 6, None])
async def test_text_usage_and_headers(srv: ScriptedHTTPServer, split: int | None):
    events = [
        an_start(input_tokens=1000, cache_read=2000, cache_write=500),
        {"type": "ping"},
        *an_text_block(0, TEXT, pieces=5),
        *an_end(output_tokens=300),
    ]
    srv.enqueue(named(events, split))
    got, final = await collect(stream(anthropic_model(srv), context("hi"), options()))
    kinds = types_of(got)
    assert kinds[:2] == ["start", "text_start"]
    assert kinds[-2:] == ["text_end", "done"]
    assert "".join(e.delta for e in got if e.type == "text_delta") == TEXT  # type: ignore[union-attr]
    assert final.content == [TextContent(text=TEXT)]
    assert final.stop_reason == "stop"
    assert final.response_id == "msg_01"
    u = final.usage
    assert (u.input, u.output, u.cache_read, u.cache_write) == (1000, 300, 2000, 500)
    assert u.total_tokens == 3800
    assert u.cost.total == pytest.approx((1000 * 3 + 300 * 15 + 2000 * 0.3 + 500 * 3.75) / 1e6)
    req = srv.requests[0]
    assert req.path == "/v1/messages"
    assert req.headers["x-api-key"] == TEST_KEY
    assert req.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in req.headers
    assert req.json["stream"] is True
    assert req.json["max_tokens"] == 64_000
    assert req.json["system"] == [
        {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}
    ]


async def test_thinking_signature_and_redacted_thinking(srv: ScriptedHTTPServer):
    events = [
        an_start(),
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Consider "},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "the file."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "EqQBCkYIBxgCKkA"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "+rest=="},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "redacted_thinking", "data": "OPAQUE-PAYLOAD"},
        },
        {"type": "content_block_stop", "index": 1},
        *an_text_block(2, "Done."),
        *an_end(),
    ]
    srv.enqueue(named(events, 13))
    got, final = await collect(stream(anthropic_model(srv), context(), options(reasoning="medium")))
    assert types_of(got)[:6] == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "thinking_start",
    ]
    assert final.content == [
        ThinkingContent(thinking="Consider the file.", thinking_signature="EqQBCkYIBxgCKkA+rest=="),
        ThinkingContent(
            thinking="[Reasoning redacted]", thinking_signature="OPAQUE-PAYLOAD", redacted=True
        ),
        TextContent(text="Done."),
    ]
    body = srv.requests[0].json
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert body["max_tokens"] == 64_000


async def test_signed_thinking_is_replayed_to_the_same_model(srv: ScriptedHTTPServer):
    srv.enqueue(named(an_text_events("ok")))
    model = anthropic_model(srv)
    previous = AssistantMessage(
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason="toolUse",
        content=[
            ThinkingContent(thinking="plan", thinking_signature="SIG"),
            ThinkingContent(
                thinking="[Reasoning redacted]", thinking_signature="BLOB", redacted=True
            ),
            ThinkingContent(thinking="unsigned thought"),
            TextContent(text="   "),
            ToolCall(id="toolu_1", name="read", arguments={"path": "a"}),
        ],
    )
    ctx = Context(
        messages=[
            UserMessage(content="go"),
            previous,
            ToolResultMessage(
                tool_call_id="toolu_1", tool_name="read", content=[TextContent(text="file")]
            ),
        ]
    )
    await collect(stream(model, ctx, options()))
    assistant = srv.requests[0].json["messages"][1]
    assert assistant["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": "SIG"},
        {"type": "redacted_thinking", "data": "BLOB"},
        {"type": "text", "text": "unsigned thought"},
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
    ]


async def test_parallel_tool_use_with_split_input_json(srv: ScriptedHTTPServer):
    a = json.dumps({"path": "README.md", "offset": 10, "limit": 5})
    b = json.dumps({"command": "ls -la && echo 'ünïcode'"}, ensure_ascii=False)
    events = [
        an_start(),
        *an_text_block(0, "Two things."),
        *an_tool_block(1, "toolu_A", "read", a, piece=2),
        *an_tool_block(2, "toolu_B", "bash", b, piece=4),
        *an_end("tool_use"),
    ]
    lockstep = ArgLockstep(events, named=True, done=False)
    srv.enqueue(lockstep.response())
    s = stream(anthropic_model(srv), context(tools=True), options())
    partials: list[dict] = []
    async for event in s:
        if event.type == "toolcall_delta":
            if event.content_index == 1:
                block = event.partial.content[1]
                assert isinstance(block, ToolCall)
                partials.append(dict(block.arguments))
            lockstep.saw_delta()
    final = await s.result()
    assert final.stop_reason == "toolUse"
    calls = [b for b in final.content if isinstance(b, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("toolu_A", "read", {"path": "README.md", "offset": 10, "limit": 5}),
        ("toolu_B", "bash", {"command": "ls -la && echo 'ünïcode'"}),
    ]
    assert any(p.get("path") == "README.md" and "limit" not in p for p in partials)
    assert partials[-1] == {"path": "README.md", "offset": 10, "limit": 5}


@pytest.mark.parametrize(
    ("reason", "extra", "stop", "message"),
    [
        ("end_turn", {}, "stop", None),
        ("pause_turn", {}, "stop", None),
        ("stop_sequence", {}, "stop", None),
        ("max_tokens", {}, "length", None),
        ("tool_use", {}, "toolUse", None),
        ("refusal", {}, "error", "The model refused to complete the request"),
        ("refusal", {"stop_details": {"explanation": "Not allowed."}}, "error", "Not allowed."),
        ("sensitive", {}, "error", "safety filters"),
        ("brand_new", {}, "error", "Unhandled stop reason: brand_new"),
    ],
)
async def test_each_stop_reason(
    srv: ScriptedHTTPServer, reason: str, extra: dict, stop: str, message: str | None
):
    srv.enqueue(named([an_start(), *an_text_block(0, "partial"), *an_end(reason, **extra)]))
    events, final = await collect(stream(anthropic_model(srv), context(), options()))
    assert final.stop_reason == stop
    assert final.content == [TextContent(text="partial")]
    if message is None:
        assert events[-1].type == "done"
    else:
        assert events[-1].type == "error"
        assert message in (final.error_message or "")


async def test_400_error_body(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            400,
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "messages: at least one message is required",
                },
            },
        )
    )
    events, final = await collect(stream(anthropic_model(srv), context(), options()))
    assert types_of(events) == ["error"]
    assert final.error_message == (
        "400 invalid_request_error: messages: at least one message is required"
        f" (POST {srv.url}/v1/messages)"
    )
    assert len(srv.requests) == 1


async def test_401_is_not_retried(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            401,
            {
                "type": "error",
                "error": {"type": "authentication_error", "message": "invalid x-api-key"},
            },
        )
    )
    log = RetryLog()
    _, final = await collect(stream(anthropic_model(srv), context(), options(on_retry=log)))
    assert final.error_message == (
        f"401 authentication_error: invalid x-api-key (POST {srv.url}/v1/messages)"
    )
    assert log.calls == []


async def test_429_retry_after_ms_then_success(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            429,
            {
                "type": "error",
                "error": {
                    "type": "rate_limit_error",
                    "message": "Number of request tokens has exceeded your limit",
                },
            },
            headers={"retry-after-ms": "15", "retry-after": "30"},
        )
    )
    srv.enqueue(named(an_text_events("ok")))
    log = RetryLog()
    _, final = await collect(stream(anthropic_model(srv), context(), options(on_retry=log)))
    assert final.stop_reason == "stop"
    assert [(c.attempt, c.delay_ms) for c in log.calls] == [(1, 15)]


@pytest.mark.parametrize(
    ("status", "kind", "text"),
    [(529, "overloaded_error", "Overloaded"), (500, "api_error", "Internal server error")],
)
async def test_5xx_then_success(srv: ScriptedHTTPServer, status: int, kind: str, text: str):
    srv.enqueue(json_response(status, {"type": "error", "error": {"type": kind, "message": text}}))
    srv.enqueue(named(an_text_events("made it")))
    log = RetryLog()
    _, final = await collect(
        stream(anthropic_model(srv), context(), options(on_retry=log, base_retry_delay_ms=3))
    )
    assert final.content == [TextContent(text="made it")]
    assert [(c.attempt, c.delay_ms) for c in log.calls] == [(1, 3)]
    assert log.calls[0].error_message == f"{status} {kind}: {text} (POST {srv.url}/v1/messages)"


async def test_429_retry_after_seconds(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            429,
            {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
            headers={"retry-after": "0"},
        )
    )
    srv.enqueue(named(an_text_events("ok")))
    log = RetryLog()
    _, final = await collect(
        stream(anthropic_model(srv), context(), options(on_retry=log, base_retry_delay_ms=60_000))
    )
    assert final.stop_reason == "stop"
    assert [(c.attempt, c.delay_ms) for c in log.calls] == [(1, 0)]


async def test_overloaded_error_event_before_output_is_retried(srv: ScriptedHTTPServer):
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    srv.enqueue(named([error]))
    srv.enqueue(named(an_text_events("second try")))
    log = RetryLog()
    _, final = await collect(stream(anthropic_model(srv), context(), options(on_retry=log)))
    assert final.content == [TextContent(text="second try")]
    assert len(log.calls) == 1


async def test_error_event_after_output_ends_the_reply(srv: ScriptedHTTPServer):
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    srv.enqueue(named([an_start(input_tokens=77), *an_text_block(0, "half", pieces=1)[:2], error]))
    log = RetryLog()
    _, final = await collect(stream(anthropic_model(srv), context(), options(on_retry=log)))
    assert final.stop_reason == "error"
    assert final.error_message == "overloaded_error: Overloaded"
    assert final.content == [TextContent(text="half")]
    assert final.usage.input == 77  # usage from message_start survives the failure
    assert log.calls == []


async def test_cut_mid_stream_keeps_partial_and_usage(srv: ScriptedHTTPServer):
    events = [an_start(input_tokens=42), *an_text_block(0, "abcdef", pieces=2)[:3]]
    srv.enqueue(named(events, tail=[Cut()]))
    log = RetryLog()
    events_out, final = await collect(
        stream(anthropic_model(srv), context(), options(on_retry=log))
    )
    assert events_out[-1].type == "error"
    assert final.stop_reason == "error"
    assert final.error_message is not None
    assert final.error_message.startswith("Connection lost")
    assert final.content == [TextContent(text="abcdef")]
    assert final.usage.input == 42
    assert log.calls == []


async def test_stream_closed_before_message_stop(srv: ScriptedHTTPServer):
    srv.enqueue(
        sse_response([an_start(), *an_text_block(0, "x")], done=False, named=True, framing="close")
    )
    _, final = await collect(stream(anthropic_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert final.error_message == ("Stream ended before message_stop (the connection closed early)")


async def test_malformed_json_event(srv: ScriptedHTTPServer):
    srv.enqueue(
        named(
            [
                an_start(),
                *an_text_block(0, "fine", pieces=1)[:2],
                ("content_block_delta", "{not json"),
            ]
        )
    )
    _, final = await collect(stream(anthropic_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert final.error_message == "Invalid JSON in stream event: {not json"
    assert final.content == [TextContent(text="fine")]


async def test_abort_mid_stream(srv: ScriptedHTTPServer):
    gate = asyncio.Event()
    head = [an_start(input_tokens=9), *an_text_block(0, "streaming", pieces=1)[:2]]
    first = sse(head, done=False, named=True)
    rest = sse([*an_text_block(0, "never")[1:], *an_end()], done=False, named=True)
    srv.enqueue(
        ScriptedResponse(
            headers={"content-type": "text/event-stream"}, body=[*first, Pause(gate), *rest]
        )
    )
    signal = AbortSignal()
    s = stream(anthropic_model(srv), context(), options(signal=signal))
    kinds = []
    async for event in s:
        kinds.append(event.type)
        if event.type == "text_delta":
            signal.abort()
    final = await s.result()
    assert kinds == ["start", "text_start", "text_delta", "error"]
    assert not gate.is_set()
    assert final.stop_reason == "aborted"
    assert final.content == [TextContent(text="streaming")]
    assert final.usage.input == 9


async def test_read_timeout_mid_stream_keeps_the_text_so_far(srv: ScriptedHTTPServer):
    first = sse([an_start(), *an_text_block(0, "tick", pieces=1)[:2]], done=False, named=True)
    srv.enqueue(
        ScriptedResponse(
            headers={"content-type": "text/event-stream"}, body=[*first, Pause(asyncio.Event())]
        )
    )
    _, final = await collect(stream(anthropic_model(srv), context(), options(timeout_ms=150)))
    assert final.stop_reason == "error"
    assert "timed out" in (final.error_message or "")
    assert final.content == [TextContent(text="tick")]


async def test_oauth_token_uses_bearer_identity_and_tool_name_casing(srv: ScriptedHTTPServer):
    token = "sk-ant-oat01-abcdefghijklmnop"
    events = [
        an_start(),
        *an_tool_block(0, "toolu_1", "Read", '{"path": "x"}'),
        *an_end("tool_use"),
    ]
    srv.enqueue(named(events))
    ctx = Context(
        system_prompt="Be brief.",
        messages=[UserMessage(content="go")],
        tools=[Tool(name="read", description="r", parameters={"type": "object"})],
    )
    _, final = await collect(stream(anthropic_model(srv), ctx, options(api_key=token)))
    call = final.content[0]
    assert isinstance(call, ToolCall)
    assert call.name == "read"  # mapped back to our tool's name
    req = srv.requests[0]
    assert req.headers["authorization"] == f"Bearer {token}"
    assert "x-api-key" not in req.headers
    assert req.headers["anthropic-beta"].startswith("claude-code-20250219,oauth-2025-04-20")
    system = req.json["system"]
    assert [b["text"] for b in system] == [
        "You are Claude Code, Anthropic's official CLI for Claude.",
        "Be brief.",
    ]
    assert all(b["cache_control"] == {"type": "ephemeral"} for b in system)
    assert req.json["tools"][0]["name"] == "Read"


async def test_missing_key_names_the_variables_and_sends_nothing(srv: ScriptedHTTPServer):
    _, final = await collect(stream(anthropic_model(srv), context(), options(api_key=None)))
    assert final.error_message == (
        "No API key for provider 'anthropic': set ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY "
        "(or name another variable with the apiKeyEnv setting)"
    )
    assert srv.requests == []
