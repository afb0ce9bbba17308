"""openai-responses against a real HTTP server on 127.0.0.1: byte-exact SSE fixtures for every
event kind the provider maps (docs/reference/pi.md#openai-responses), replay of reasoning
items and ids, and the failure paths the other providers share."""

from __future__ import annotations

import asyncio
import json
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
from pi_lsp.ai.providers._ids import short_hash
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

ENCRYPTED = "gAAAAABo-opaque-encrypted-reasoning=="


def responses_model(srv: ScriptedHTTPServer, **kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": "gpt-5-test",
        "api": "openai-responses",
        "provider": "openai",
        "base_url": srv.url + "/v1",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=1.25, output=10.0, cache_read=0.125),
    }
    fields.update(kw)
    return Model(**fields)


# ------------------------------------------------------------------------- event builders


def created(rid: str = "resp_1") -> dict[str, Any]:
    return {"type": "response.created", "response": {"id": rid, "status": "in_progress"}}


def in_progress(rid: str = "resp_1") -> dict[str, Any]:
    return {"type": "response.in_progress", "response": {"id": rid, "status": "in_progress"}}


def message_events(text: str, item_id: str = "msg_1", pieces: int = 3) -> list[dict[str, Any]]:
    size = max(1, len(text) // pieces)
    part = {"type": "output_text", "text": "", "annotations": []}
    item = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress"}
    out: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
        {"type": "response.content_part.added", "item_id": item_id, "part": part},
    ]
    out += [
        {"type": "response.output_text.delta", "item_id": item_id, "delta": text[i : i + size]}
        for i in range(0, len(text), size)
    ]
    out += [
        {"type": "response.output_text.done", "item_id": item_id, "text": text},
        {
            "type": "response.content_part.done",
            "item_id": item_id,
            "part": {"type": "output_text", "text": text, "annotations": []},
        },
        {
            "type": "response.output_item.done",
            "item": {
                **item,
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            },
        },
    ]
    return out


def reasoning_events(summary: str, item_id: str = "rs_1") -> list[dict[str, Any]]:
    half = len(summary) // 2
    return [
        {
            "type": "response.output_item.added",
            "item": {"type": "reasoning", "id": item_id, "summary": []},
        },
        {
            "type": "response.reasoning_summary_part.added",
            "item_id": item_id,
            "part": {"type": "summary_text", "text": ""},
        },
        {"type": "response.reasoning_summary_text.delta", "delta": summary[:half]},
        {"type": "response.reasoning_summary_text.delta", "delta": summary[half:]},
        {"type": "response.reasoning_summary_part.done", "item_id": item_id},
        {
            "type": "response.output_item.done",
            "item": {
                "type": "reasoning",
                "id": item_id,
                "summary": [{"type": "summary_text", "text": summary}],
                "encrypted_content": ENCRYPTED,
            },
        },
    ]


def call_events(
    call_id: str, item_id: str, name: str, arguments: str, piece: int = 2
) -> list[dict[str, Any]]:
    item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name}
    out: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "item": {**item, "arguments": ""}}
    ]
    out += [
        {"type": "response.function_call_arguments.delta", "delta": arguments[i : i + piece]}
        for i in range(0, len(arguments), piece)
    ]
    out += [
        {"type": "response.function_call_arguments.done", "arguments": arguments},
        {"type": "response.output_item.done", "item": {**item, "arguments": arguments}},
    ]
    return out


def usage(inp: int = 100, out: int = 20, cached: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": inp + out,
    }


def completed(status: str = "completed", **extra: Any) -> dict[str, Any]:
    kind = "response.incomplete" if status == "incomplete" else "response.completed"
    response = {"id": "resp_1", "status": status, "usage": usage(), **extra}
    return {"type": kind, "response": response}


def respond(events: list[dict[str, Any]], split: int | None = None, **kw: Any) -> ScriptedResponse:
    # The Responses API names each event and sends no [DONE].
    return sse_response(events, split, done=False, named=True, **kw)


# ------------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("split", [1, 7, None])
async def test_text_usage_and_request_shape(srv: ScriptedHTTPServer, split: int | None):
    text = "héllo wörld ☕ 日本語 done"
    srv.enqueue(
        respond(
            [
                created(),
                in_progress(),
                *message_events(text),
                completed(usage=usage(1000, 50, 200)),
            ],
            split,
        )
    )
    model = responses_model(srv)
    events, final = await collect(stream(model, context("hi"), options(session_id="sess-42")))
    assert types_of(events)[:2] == ["start", "text_start"]
    assert types_of(events)[-2:] == ["text_end", "done"]
    assert "".join(e.delta for e in events if e.type == "text_delta") == text  # type: ignore[union-attr]
    block = final.content[0]
    assert isinstance(block, TextContent)
    assert block.text == text
    assert json.loads(block.text_signature or "") == {"v": 1, "id": "msg_1"}
    assert (final.stop_reason, final.response_id) == ("stop", "resp_1")
    assert (final.usage.input, final.usage.output, final.usage.cache_read) == (800, 50, 200)
    assert final.usage.total_tokens == 1050
    assert final.usage.cost.input == pytest.approx(800 * 1.25 / 1e6)
    assert final.usage.cost.cache_read == pytest.approx(200 * 0.125 / 1e6)
    req = srv.requests[0]
    assert req.path == "/v1/responses"
    assert req.headers["authorization"] == f"Bearer {TEST_KEY}"
    assert req.headers["session_id"] == "sess-42"
    assert req.headers["x-client-request-id"] == "sess-42"
    body = req.json
    assert body["model"] == "gpt-5-test"
    assert body["stream"] is True
    assert body["store"] is False
    assert body["prompt_cache_key"] == "sess-42"
    assert body["input"] == [
        {"role": "developer", "content": "You are terse."},
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    ]
    assert body["reasoning"] == {"effort": "none"}  # thinking off, no map: Pi's default
    # a reasoning model may still send a reasoning item: store is false, so ask for it whole
    assert body["include"] == ["reasoning.encrypted_content"]


async def test_reasoning_summary_then_replay_verbatim(srv: ScriptedHTTPServer):
    srv.enqueue(
        respond(
            [
                created(),
                *reasoning_events("Think **hard**."),
                *message_events("Done.", "msg_9"),
                completed(),
            ]
        )
    )
    model = responses_model(srv)
    events, final = await collect(
        stream(model, context("q"), options(reasoning="high", max_tokens=4000))
    )
    assert types_of(events)[:6] == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_delta",  # the "\n\n" after the summary part
        "thinking_end",
    ]
    thinking, _text = final.content
    assert isinstance(thinking, ThinkingContent)
    assert thinking.thinking == "Think **hard**."
    item = json.loads(thinking.thinking_signature or "")
    assert item["encrypted_content"] == ENCRYPTED
    assert item["id"] == "rs_1"
    first = srv.requests[0].json
    assert first["reasoning"] == {"effort": "high", "summary": "auto"}
    assert first["include"] == ["reasoning.encrypted_content"]
    assert first["max_output_tokens"] == 4000

    # the next turn replays the reasoning item exactly as received, then the message by id
    srv.enqueue(respond([created("resp_2"), *message_events("Again."), completed()]))
    ctx = Context(
        system_prompt="S",
        messages=[UserMessage(content="q"), final, UserMessage(content="more")],
    )
    await collect(stream(model, ctx, options(reasoning="high")))
    replay = srv.requests[1].json["input"]
    assert replay[2] == item
    assert replay[3] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
        "status": "completed",
        "id": "msg_9",
    }


async def test_reasoning_text_deltas(srv: ScriptedHTTPServer):
    events = [
        {"type": "response.output_item.added", "item": {"type": "reasoning", "id": "rs_2"}},
        {"type": "response.reasoning_text.delta", "delta": "raw "},
        {"type": "response.reasoning_text.delta", "delta": "thoughts"},
        {
            "type": "response.output_item.done",
            "item": {
                "type": "reasoning",
                "id": "rs_2",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "raw thoughts"}],
            },
        },
        *message_events("ok"),
        completed(),
    ]
    srv.enqueue(respond(events))
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert final.content[0].thinking == "raw thoughts"  # type: ignore[union-attr]


async def test_function_call_split_across_many_deltas(srv: ScriptedHTTPServer):
    args = json.dumps({"path": "src/ünï.py", "limit": 20})
    srv.enqueue(
        respond([created(), *call_events("call_a", "fc_a", "read", args, piece=1), completed()], 5)
    )
    s = stream(responses_model(srv), context(tools=True), options())
    partials = []
    async for event in s:
        if event.type == "toolcall_delta":
            partials.append(dict(event.partial.content[event.content_index].arguments))  # type: ignore[union-attr]
    final = await s.result()
    call = final.content[0]
    assert isinstance(call, ToolCall)
    assert (call.id, call.name, call.arguments) == (
        "call_a|fc_a",
        "read",
        {"path": "src/ünï.py", "limit": 20},
    )
    assert final.stop_reason == "toolUse"
    assert any(p.get("path") == "src/ünï.py" and "limit" not in p for p in partials)
    tools = srv.requests[0].json["tools"]
    assert tools == [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file",
            "parameters": context(tools=True).tools[0].parameters,  # type: ignore[index]
            "strict": False,
        }
    ]
    # replay: function_call with its item id, then the output by call id
    srv.enqueue(respond([created(), *message_events("read it"), completed()]))
    result = ToolResultMessage(
        tool_call_id=call.id, tool_name="read", content=[TextContent(text="x = 1")]
    )
    ctx = Context(messages=[UserMessage(content="go"), final, result])
    await collect(stream(responses_model(srv), ctx, options()))
    replay = srv.requests[1].json["input"]
    assert replay[1] == {
        "type": "function_call",
        "id": "fc_a",
        "call_id": "call_a",
        "name": "read",
        "arguments": json.dumps({"path": "src/ünï.py", "limit": 20}, ensure_ascii=False),
    }
    assert replay[2] == {"type": "function_call_output", "call_id": "call_a", "output": "x = 1"}


async def test_arguments_done_completes_a_call_without_deltas(srv: ScriptedHTTPServer):
    item = {"type": "function_call", "id": "fc_b", "call_id": "call_b", "name": "ls"}
    events = [
        {"type": "response.output_item.added", "item": {**item, "arguments": ""}},
        {"type": "response.function_call_arguments.done", "arguments": '{"path": "."}'},
        {"type": "response.output_item.done", "item": {**item, "arguments": '{"path": "."}'}},
        completed(),
    ]
    srv.enqueue(respond(events))
    events_seen, final = await collect(stream(responses_model(srv), context(), options()))
    assert "toolcall_delta" in types_of(events_seen)
    assert final.content[0].arguments == {"path": "."}  # type: ignore[union-attr]


async def test_refusal_becomes_text(srv: ScriptedHTTPServer):
    item = {"type": "message", "id": "msg_r", "role": "assistant"}
    events = [
        {"type": "response.output_item.added", "item": {**item, "content": []}},
        {"type": "response.content_part.added", "part": {"type": "refusal", "refusal": ""}},
        {"type": "response.refusal.delta", "delta": "I can't "},
        {"type": "response.refusal.delta", "delta": "help with that."},
        {
            "type": "response.output_item.done",
            "item": {
                **item,
                "content": [{"type": "refusal", "refusal": "I can't help with that."}],
            },
        },
        completed(),
    ]
    srv.enqueue(respond(events))
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert final.content[0].text == "I can't help with that."  # type: ignore[union-attr]
    assert final.stop_reason == "stop"


async def test_incomplete_is_length(srv: ScriptedHTTPServer):
    events = [
        *message_events("cut sh"),
        completed("incomplete", incomplete_details={"reason": "max_output_tokens"}),
    ]
    srv.enqueue(respond(events))
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert final.stop_reason == "length"
    assert final.content[0].text == "cut sh"  # type: ignore[union-attr]


async def test_incomplete_by_content_filter_is_an_error(srv: ScriptedHTTPServer):
    events = [
        *message_events("x"),
        completed("incomplete", incomplete_details={"reason": "content_filter"}),
    ]
    srv.enqueue(respond(events))
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert "content_filter" in (final.error_message or "")


async def test_completed_at_the_output_limit_is_length(srv: ScriptedHTTPServer):
    """Some servers say "completed" after hitting max_output_tokens: the token count tells."""
    srv.enqueue(respond([*message_events("abc"), completed(usage=usage(10, 64))]))
    _, final = await collect(stream(responses_model(srv), context(), options(max_tokens=64)))
    assert final.stop_reason == "length"
    srv.enqueue(respond([*message_events("abc"), completed(usage=usage(10, 63))]))
    _, final = await collect(stream(responses_model(srv), context(), options(max_tokens=64)))
    assert final.stop_reason == "stop"


async def test_failed_keeps_partial_and_names_the_error(srv: ScriptedHTTPServer):
    events = [
        *message_events("partial")[:3],
        {
            "type": "response.failed",
            "response": {
                "id": "resp_1",
                "status": "failed",
                "error": {"code": "server_error", "message": "The model crashed"},
            },
        },
    ]
    srv.enqueue(respond(events))
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert final.error_message == "server_error: The model crashed"
    assert final.content[0].text == "pa"  # type: ignore[union-attr]


async def test_error_event_before_output_is_retried(srv: ScriptedHTTPServer):
    error = {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": None}
    srv.enqueue(respond([error]))
    srv.enqueue(respond([created(), *message_events("fine"), completed()]))
    log = RetryLog()
    _, final = await collect(stream(responses_model(srv), context(), options(on_retry=log)))
    assert final.content[0].text == "fine"  # type: ignore[union-attr]
    assert log.calls[0].error_message == "Error Code rate_limit_exceeded: Slow down"


async def test_error_event_after_output_ends_the_stream(srv: ScriptedHTTPServer):
    error = {"type": "error", "code": "invalid_prompt", "message": "Nope"}
    srv.enqueue(respond([created(), *message_events("so far")[:3], error]))
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert (final.stop_reason, final.error_message) == ("error", "Error Code invalid_prompt: Nope")
    assert final.content[0].text.startswith("so")  # type: ignore[union-attr]
    assert len(srv.requests) == 1


async def test_mid_stream_disconnect(srv: ScriptedHTTPServer):
    srv.enqueue(respond([created(), *message_events("half an answer")[:4]], tail=[Cut()]))
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert final.content
    assert final.content[0].text
    assert len(srv.requests) == 1


async def test_stream_closed_without_terminal_event(srv: ScriptedHTTPServer):
    srv.enqueue(respond([created(), *message_events("no end")]))
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert "terminal response event" in (final.error_message or "")


async def test_abort_mid_stream(srv: ScriptedHTTPServer):
    gate = asyncio.Event()
    body = sse([created(), *message_events("Hello there")[:3]], done=False, named=True)
    srv.enqueue(
        ScriptedResponse(headers={"content-type": "text/event-stream"}, body=[*body, Pause(gate)])
    )
    signal = AbortSignal()
    s = stream(responses_model(srv), context(), options(signal=signal))
    async for event in s:
        if event.type == "text_delta":
            signal.abort()
    final = await s.result()
    assert (final.stop_reason, final.error_message) == ("aborted", "Request was aborted")
    assert not gate.is_set()


async def test_http_error_and_read_timeout(srv: ScriptedHTTPServer):
    srv.enqueue(
        json_response(
            400,
            {
                "error": {
                    "message": "Unsupported parameter: 'reasoning'",
                    "type": "invalid_request_error",
                }
            },
        )
    )
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert final.error_message is not None
    assert final.error_message.startswith("400 invalid_request_error: Unsupported parameter")
    assert "/v1/responses" in final.error_message
    srv.enqueue(
        ScriptedResponse(
            headers={"content-type": "text/event-stream"},
            body=[*sse([created()], done=False, named=True), Pause(asyncio.Event())],
        )
    )
    _, final = await collect(stream(responses_model(srv), context(), options(timeout_ms=200)))
    assert final.error_message is not None
    assert final.error_message.startswith("Request timed out")


async def test_chat_completions_server_is_named(srv: ScriptedHTTPServer):
    chunk = {"id": "c", "choices": [{"index": 0, "delta": {"content": "hi"}}]}
    srv.enqueue(sse_response([chunk]))
    _, final = await collect(stream(responses_model(srv), context(), options()))
    assert final.stop_reason == "error"
    assert "set `api`" in (final.error_message or "")


# ------------------------------------------------------------------ replay across models


def _assistant(provider: str, api: str, model: str, *blocks: Any) -> AssistantMessage:
    return AssistantMessage(
        content=list(blocks), provider=provider, api=api, model=model, stop_reason="toolUse"
    )


async def test_foreign_and_other_model_calls_replay_without_item_ids(srv: ScriptedHTTPServer):
    long_item = "fc_" + "x" * 300
    messages = [
        UserMessage(content="go"),
        _assistant(
            "anthropic",
            "anthropic-messages",
            "claude-x",
            ThinkingContent(thinking="from claude", thinking_signature="sig"),
            ToolCall(id="toolu_01", name="ls", arguments={}),
        ),
        ToolResultMessage(tool_call_id="toolu_01", tool_name="ls", content=[TextContent(text="a")]),
        _assistant(
            "openai", "openai-responses", "gpt-other", ToolCall(id="call_2|fc_2", name="ls")
        ),
        ToolResultMessage(
            tool_call_id="call_2|fc_2", tool_name="ls", content=[TextContent(text="b")]
        ),
        _assistant(
            "azure", "openai-responses", "gpt-5-test", ToolCall(id=f"call_3|{long_item}", name="ls")
        ),
        ToolResultMessage(
            tool_call_id=f"call_3|{long_item}", tool_name="ls", content=[TextContent(text="c")]
        ),
        _assistant(
            "openai",
            "openai-responses",
            "gpt-5-test",
            TextContent(text="long id", text_signature="m" * 80),
        ),
        UserMessage(content="next"),
    ]
    srv.enqueue(respond([*message_events("ok"), completed()]))
    await collect(stream(responses_model(srv), Context(messages=messages), options()))
    items = srv.requests[0].json["input"]
    calls = [i for i in items if i.get("type") == "function_call"]
    assert calls[0] == {
        "type": "function_call",
        "call_id": "toolu_01",
        "name": "ls",
        "arguments": "{}",
    }
    assert "id" not in calls[1]
    assert calls[1]["call_id"] == "call_2"
    assert calls[2]["id"] == f"fc_{short_hash(long_item)}"  # another provider: hashed
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    assert outputs == ["toolu_01", "call_2", "call_3"]
    # thinking from another model became text
    assert {"type": "output_text", "text": "from claude", "annotations": []} in [
        c for i in items if i.get("type") == "message" for c in i["content"]
    ]
    long_msg = [i for i in items if i.get("type") == "message"][-1]
    assert long_msg["id"] == f"msg_{short_hash('m' * 80)}"


@pytest.mark.parametrize(
    ("levels", "expected"),
    [
        (None, {"effort": "none"}),
        ({"off": None}, None),
        ({"off": "minimal"}, {"effort": "minimal"}),
    ],
)
async def test_thinking_off_follows_the_model_map(
    srv: ScriptedHTTPServer, levels: Any, expected: Any
):
    srv.enqueue(respond([*message_events("ok"), completed()]))
    await collect(stream(responses_model(srv, thinking_level_map=levels), context(), options()))
    assert srv.requests[0].json.get("reasoning") == expected


async def test_key_for_another_vendor_is_refused_before_sending(srv: ScriptedHTTPServer):
    model = responses_model(srv, base_url="https://api.openai.com/v1")
    _, final = await collect(
        stream(
            model, context(), options(api_key=None, env={"OPENAI_API_KEY": "sk-ant-api03-abcdefgh"})
        )
    )
    assert final.stop_reason == "error"
    assert final.error_message == (
        "The API key in OPENAI_API_KEY is an Anthropic key, but provider 'openai' sends it to "
        "api.openai.com: set OPENAI_API_KEY to a openai key, or choose the provider "
        "'anthropic' (the `provider` setting / --provider)"
    )
    assert "sk-ant" not in final.error_message


def test_images_in_user_messages_and_tool_results():
    from pi_lsp.ai import ImageContent
    from pi_lsp.ai.providers.openai_responses_convert import build_params

    image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    messages = [
        UserMessage(content=[TextContent(text="look"), image]),
        _assistant("openai", "openai-responses", "gpt-5-test", ToolCall(id="c|fc_1", name="shot")),
        ToolResultMessage(tool_call_id="c|fc_1", tool_name="shot", content=[image]),
    ]
    model = Model(
        id="gpt-5-test", api="openai-responses", provider="openai", input=["text", "image"]
    )
    items = build_params(model, Context(messages=messages), options())["input"]
    url = "data:image/png;base64,iVBORw0KGgo="
    assert items[0]["content"][1] == {"type": "input_image", "detail": "auto", "image_url": url}
    assert items[2]["output"] == [{"type": "input_image", "detail": "auto", "image_url": url}]
    text_only = model.model_copy(update={"input": ["text"]})
    items = build_params(text_only, Context(messages=messages), options())["input"]
    assert items[0]["content"][1]["text"] == "(image omitted: model does not support images)"
    assert items[2]["output"] == "(tool image omitted: model does not support images)"
