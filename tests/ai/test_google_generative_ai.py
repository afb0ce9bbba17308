"""google-generative-ai against a real HTTP server on 127.0.0.1: byte-exact SSE fixtures
(each event a whole GenerateContentResponse), thought signatures kept with their blocks and
replayed from a session file read back from disk, generated call ids, thinking config, and
the failure paths the other providers share."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    stream,
)
from pi_lsp.ai.env_keys import is_secret_env_name, scrub_env
from pi_lsp.ai.models import resolve_model
from pi_lsp.sessions.session_file import SessionFile
from tests.ai.helpers import TEST_KEY, RetryLog, collect, context, options, types_of
from tests.support.http_server import (
    Cut,
    Pause,
    ScriptedHTTPServer,
    ScriptedResponse,
    json_response,
    sse,
    sse_response,
)

SIG_A = "c2lnbmF0dXJlLWE="  # base64 of "signature-a"
SIG_CALL = "Q2FsbFNpZw=="  # base64 of "CallSig"


def gemini_model(srv: ScriptedHTTPServer, **kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": "gemini-3-pro-preview",
        "api": "google-generative-ai",
        "provider": "google",
        "base_url": srv.url + "/v1beta",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=2.0, output=12.0, cache_read=0.2),
        "thinking_level_map": {"off": None, "minimal": None, "low": "LOW", "medium": None},
    }
    fields.update(kw)
    return Model(**fields)


def chunk(
    *parts: dict[str, Any], finish: str | None = None, usage: dict[str, int] | None = None
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [candidate], "responseId": "resp-g1"}
    if usage:
        out["usageMetadata"] = usage
    return out


USAGE = {
    "promptTokenCount": 1000,
    "cachedContentTokenCount": 300,
    "candidatesTokenCount": 40,
    "thoughtsTokenCount": 60,
    "totalTokenCount": 1100,
}


def respond(events: list[dict[str, Any]], split: int | None = None, **kw: Any) -> Any:
    return sse_response(events, split, done=False, **kw)  # Gemini ends by closing the stream


@pytest.mark.parametrize("split", [3, None])
async def test_thinking_text_signature_usage_and_request(srv: ScriptedHTTPServer, split: Any):
    srv.enqueue(
        respond(
            [
                chunk({"text": "Let me ", "thought": True}),
                chunk({"text": "think.", "thought": True, "thoughtSignature": SIG_A}),
                chunk({"text": "Answer: ☕"}),
                chunk({"text": " done"}, finish="STOP", usage=USAGE),
            ],
            split,
        )
    )
    events, final = await collect(
        stream(gemini_model(srv), context("hi"), options(reasoning="high", max_tokens=500))
    )
    assert types_of(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    assert final.content == [
        ThinkingContent(thinking="Let me think.", thinking_signature=SIG_A),
        TextContent(text="Answer: ☕ done"),
    ]
    assert (final.stop_reason, final.response_id) == ("stop", "resp-g1")
    assert (final.usage.input, final.usage.output, final.usage.cache_read) == (700, 100, 300)
    assert final.usage.total_tokens == 1100
    assert final.usage.cost.output == pytest.approx(100 * 12.0 / 1e6)
    req = srv.requests[0]
    assert req.path == "/v1beta/models/gemini-3-pro-preview:streamGenerateContent"
    assert req.query == "alt=sse"
    assert req.headers["x-goog-api-key"] == TEST_KEY
    assert "authorization" not in req.headers
    assert req.json == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "systemInstruction": {"parts": [{"text": "You are terse."}]},
        "generationConfig": {
            "maxOutputTokens": 500,
            "thinkingConfig": {"includeThoughts": True, "thinkingLevel": "HIGH"},
        },
    }


async def test_function_calls_whole_with_signature_and_generated_ids(srv: ScriptedHTTPServer):
    srv.enqueue(
        respond(
            [
                chunk({"text": "Reading."}),
                chunk(
                    {
                        "functionCall": {"name": "read", "args": {"path": "a.py"}, "id": "c1"},
                        "thoughtSignature": SIG_CALL,
                    }
                ),
                chunk({"functionCall": {"name": "read", "args": {"path": "b.py"}, "id": "c1"}}),
                chunk({"functionCall": {"name": "ls", "args": {}}}, finish="STOP"),
            ]
        )
    )
    events, final = await collect(stream(gemini_model(srv), context(tools=True), options()))
    kinds = types_of(events)
    assert kinds.count("toolcall_start") == kinds.count("toolcall_delta") == 3
    assert kinds.count("toolcall_end") == 3
    calls = [b for b in final.content if isinstance(b, ToolCall)]
    assert calls[0].id == "c1"
    assert calls[0].thought_signature == SIG_CALL
    assert calls[0].arguments == {"path": "a.py"}
    assert calls[1].id.startswith("read_")  # a repeated id is replaced
    assert calls[2].id.startswith("ls_")  # a missing id is generated
    assert len({c.id for c in calls}) == 3
    assert calls[1].thought_signature is None
    assert final.stop_reason == "toolUse"
    decls = srv.requests[0].json["tools"][0]["functionDeclarations"]
    assert decls[0]["name"] == "read"
    assert decls[0]["parametersJsonSchema"]["required"] == ["path"]


async def test_signature_is_replayed_after_a_session_is_read_back_from_disk(
    srv: ScriptedHTTPServer, tmp_path: Path
):
    """The most reported Gemini integration bug: Gemini 3 answers 400 when a replayed call
    has lost its thoughtSignature. Here the turn goes through a session file on disk."""
    model = gemini_model(srv)
    srv.enqueue(
        respond(
            [
                chunk({"text": "plan", "thought": True, "thoughtSignature": SIG_A}),
                chunk(
                    {
                        "functionCall": {"name": "read", "args": {"path": "a.py"}},
                        "thoughtSignature": SIG_CALL,
                    },
                    finish="STOP",
                ),
            ]
        )
    )
    user = UserMessage(content="read a.py")
    _, answer = await collect(stream(model, Context(messages=[user]), options(reasoning="low")))
    call = answer.content[1]
    assert isinstance(call, ToolCall)
    result = ToolResultMessage(
        tool_call_id=call.id, tool_name="read", content=[TextContent(text="x = 1")]
    )
    session = SessionFile.new(tmp_path, tmp_path)
    for message in (user, answer, result):
        session.append_message(message)
    session.close()
    stored = [json.loads(line) for line in session.path.read_text().splitlines()]
    assert any(SIG_CALL in json.dumps(entry) for entry in stored)

    resumed = SessionFile.load(session.path)
    messages = resumed.build_context().messages
    resumed.close()
    srv.enqueue(respond([chunk({"text": "x is 1"}, finish="STOP")]))
    await collect(stream(model, Context(messages=messages), options(reasoning="low")))
    contents = srv.requests[1].json["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [
            {"thought": True, "text": "plan", "thoughtSignature": SIG_A},
            {
                "functionCall": {"name": "read", "args": {"path": "a.py"}},
                "thoughtSignature": SIG_CALL,
            },
        ],
    }
    assert contents[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "read", "response": {"output": "x = 1"}}}],
    }


async def test_signatures_are_not_sent_to_another_model(srv: ScriptedHTTPServer):
    answer = AssistantMessage(
        content=[
            ThinkingContent(thinking="hmm", thinking_signature=SIG_A),
            TextContent(text="t", text_signature=SIG_A),
            ToolCall(id="c1", name="ls", thought_signature=SIG_CALL),
        ],
        api="google-generative-ai",
        provider="google",
        model="gemini-2.5-flash",
        stop_reason="toolUse",
    )
    result = ToolResultMessage(
        tool_call_id="c1", tool_name="ls", is_error=True, content=[TextContent(text="no")]
    )
    srv.enqueue(respond([chunk({"text": "ok"}, finish="STOP")]))
    ctx = Context(messages=[UserMessage(content="q"), answer, result])
    await collect(stream(gemini_model(srv), ctx, options()))
    contents = srv.requests[0].json["contents"]
    assert contents[1]["parts"] == [
        {"text": "hmm"},  # another model's thinking is plain text
        {"text": "t"},
        {"functionCall": {"name": "ls", "args": {}}},
    ]
    assert contents[2]["parts"][0]["functionResponse"]["response"] == {"error": "no"}


@pytest.mark.parametrize(
    ("model_id", "level", "expected"),
    [
        ("gemini-3-pro-preview", None, {"thinkingLevel": "LOW"}),
        ("gemini-3-flash-preview", None, {"thinkingLevel": "MINIMAL"}),
        ("gemini-3-flash-preview", "medium", {"includeThoughts": True, "thinkingLevel": "MEDIUM"}),
        ("gemini-2.5-flash", None, {"thinkingBudget": 0}),
        ("gemini-2.5-flash", "low", {"includeThoughts": True, "thinkingBudget": 2048}),
        ("gemini-2.5-pro", "high", {"includeThoughts": True, "thinkingBudget": 32768}),
        ("gemini-2.5-flash-lite", "minimal", {"includeThoughts": True, "thinkingBudget": 512}),
    ],
)
async def test_thinking_config(srv: ScriptedHTTPServer, model_id: str, level: Any, expected: Any):
    model = resolve_model("google", model_id, srv.url + "/v1beta")
    srv.enqueue(respond([chunk({"text": "ok"}, finish="STOP")]))
    await collect(stream(model, context(), options(reasoning=level)))
    assert srv.requests[0].json["generationConfig"]["thinkingConfig"] == expected


@pytest.mark.parametrize(
    ("finish", "reason", "message"),
    [
        ("MAX_TOKENS", "length", None),
        (
            "SAFETY",
            "error",
            "Gemini stopped the response for safety reasons (finishReason: SAFETY)",
        ),
        (
            "MALFORMED_FUNCTION_CALL",
            "error",
            "Gemini produced a malformed function call (finishReason: MALFORMED_FUNCTION_CALL)",
        ),
        ("OTHER", "error", "Gemini finishReason: OTHER"),
    ],
)
async def test_finish_reasons(srv: ScriptedHTTPServer, finish: str, reason: str, message: Any):
    srv.enqueue(respond([chunk({"text": "partial"}, finish=finish)]))
    _, final = await collect(stream(gemini_model(srv), context(), options()))
    assert (final.stop_reason, final.error_message) == (reason, message)
    assert final.content == [TextContent(text="partial")]


async def test_mid_stream_disconnect(srv: ScriptedHTTPServer):
    srv.enqueue(respond([chunk({"text": "half"})], tail=[Cut()]))
    _, final = await collect(stream(gemini_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert final.content == [TextContent(text="half")]
    assert len(srv.requests) == 1


async def test_stream_closed_without_finish_reason(srv: ScriptedHTTPServer):
    srv.enqueue(respond([chunk({"text": "half"})]))
    _, final = await collect(stream(gemini_model(srv), context(), options()))
    assert (
        final.error_message
        == "The Gemini stream ended without a finishReason (the connection closed early)"
    )


async def test_http_errors_name_the_problem_and_503_is_retried(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            503,
            {
                "error": {
                    "code": 503,
                    "message": "The model is overloaded.",
                    "status": "UNAVAILABLE",
                }
            },
        )
    )
    srv.enqueue(respond([chunk({"text": "ok"}, finish="STOP")]))
    log = RetryLog()
    _, final = await collect(stream(gemini_model(srv), context(), options(on_retry=log)))
    assert final.content == [TextContent(text="ok")]
    assert "overloaded" in log.calls[0].error_message
    srv.enqueue(
        json_response(
            404,
            {
                "error": {
                    "code": 404,
                    "message": "models/gemini-9 is not found",
                    "status": "NOT_FOUND",
                }
            },
        )
    )
    _, final = await collect(stream(gemini_model(srv, id="gemini-9"), context(), options()))
    assert final.error_message is not None
    assert final.error_message.startswith("404 models/gemini-9 is not found")
    assert "model id is unknown" in final.error_message


async def test_error_inside_the_stream(srv: ScriptedHTTPServer):
    error = {
        "error": {
            "code": 400,
            "message": "Function call is missing a thought_signature",
            "status": "INVALID_ARGUMENT",
        }
    }
    srv.enqueue(respond([error]))
    _, final = await collect(stream(gemini_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert "thought_signature" in (final.error_message or "")
    assert len(srv.requests) == 1


async def test_openai_shaped_answer_is_named(srv: ScriptedHTTPServer):
    srv.enqueue(sse_response([{"id": "x", "choices": [{"index": 0, "delta": {"content": "hi"}}]}]))
    _, final = await collect(stream(gemini_model(srv), context(), options()))
    assert "set `api`" in (final.error_message or "")


async def test_key_from_gemini_or_google_variable(srv: ScriptedHTTPServer):
    for env, expected in (
        ({"GEMINI_API_KEY": "g-key-1", "GOOGLE_API_KEY": "g-key-2"}, "g-key-1"),
        ({"GOOGLE_API_KEY": "g-key-2"}, "g-key-2"),
    ):
        srv.enqueue(respond([chunk({"text": "ok"}, finish="STOP")]))
        await collect(stream(gemini_model(srv), context(), options(api_key=None, env=env)))
        assert srv.requests[-1].headers["x-goog-api-key"] == expected
    _, final = await collect(stream(gemini_model(srv), context(), options(api_key=None, env={})))
    assert final.error_message is not None
    assert "GEMINI_API_KEY or GOOGLE_API_KEY" in final.error_message


async def test_abort_mid_stream_and_read_timeout(srv: ScriptedHTTPServer):
    gate = asyncio.Event()
    body = sse([chunk({"text": "Hel"}), chunk({"text": "lo"})], done=False)
    srv.enqueue(
        ScriptedResponse(headers={"content-type": "text/event-stream"}, body=[*body, Pause(gate)])
    )
    signal = AbortSignal()
    s = stream(gemini_model(srv), context(), options(signal=signal))
    async for event in s:
        if event.type == "text_delta" and event.partial.content[0].text == "Hello":  # type: ignore[union-attr]
            signal.abort()
    final = await s.result()
    assert (final.stop_reason, final.error_message) == ("aborted", "Request was aborted")
    assert final.content == [TextContent(text="Hello")]
    assert not gate.is_set()
    srv.enqueue(
        ScriptedResponse(
            headers={"content-type": "text/event-stream"},
            body=[*sse([chunk({"text": "slow"})], done=False), Pause(asyncio.Event())],
        )
    )
    _, final = await collect(stream(gemini_model(srv), context(), options(timeout_ms=200)))
    assert final.error_message is not None
    assert final.error_message.startswith("Request timed out")
    assert final.content == [TextContent(text="slow")]


def test_gemini_keys_are_secrets_kept_from_tools():
    env = {"GEMINI_API_KEY": "g1", "GOOGLE_API_KEY": "g2", "PATH": "/bin"}
    assert scrub_env(env) == {"PATH": "/bin"}
    assert is_secret_env_name("GOOGLE_API_KEY")
    assert is_secret_env_name("GEMINI_API_KEY")


def test_images_tool_choice_and_ids_for_claude_behind_gemini():
    from pi_lsp.ai import ImageContent
    from pi_lsp.ai.providers.google_convert import build_params

    image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    call = ToolCall(id="toolu|01:x", name="shot")
    messages = [
        UserMessage(content=[TextContent(text="look"), image]),
        AssistantMessage(content=[call], api="anthropic-messages", provider="anthropic", model="c"),
        ToolResultMessage(tool_call_id=call.id, tool_name="shot", content=[image]),
    ]
    inline = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    ctx = Context(messages=messages, tools=context(tools=True).tools)
    gemini3 = Model(
        id="gemini-3-pro-preview",
        api="google-generative-ai",
        provider="google",
        input=["text", "image"],
    )
    body = build_params(gemini3, ctx, options(), tool_choice="any")
    assert body["contents"][0]["parts"][1] == inline
    response = body["contents"][2]["parts"][0]["functionResponse"]
    assert response == {
        "name": "shot",
        "response": {"output": "(see attached image)"},
        "parts": [inline],
    }
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    gemini2 = gemini3.model_copy(update={"id": "gemini-2.5-flash"})
    contents = build_params(gemini2, ctx, options())["contents"]
    assert "parts" not in contents[2]["parts"][0]["functionResponse"]
    assert contents[3] == {"role": "user", "parts": [{"text": "Tool result image:"}, inline]}
    claude = gemini3.model_copy(update={"id": "claude-sonnet-4-5"})
    contents = build_params(claude, ctx, options())["contents"]
    assert contents[1]["parts"][0]["functionCall"]["id"] == "toolu_01_x"
    assert contents[2]["parts"][0]["functionResponse"]["id"] == "toolu_01_x"
