"""Request bodies, checked through an injected ``httpx.AsyncClient`` on a ``MockTransport``."""

from __future__ import annotations

import json
from typing import Any

import httpx

from pi_lsp.ai import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    complete,
)
from tests.ai.helpers import an_text_events, oa_text_events
from tests.support.http_server import sse_bytes

IMG = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")


class Recorder:
    """A MockTransport handler that records requests and answers with a fixed SSE body."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=self.body)

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.requests[-1].content)


async def _send(model: Model, ctx: Context, recorder: Recorder, **kw: Any) -> AssistantMessage:
    async with httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as client:
        opts = StreamOptions(api_key="sk-abcdefgh", http_client=client, env={}, **kw)
        return await complete(model, ctx, opts)


def _openai(**kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": "gpt-x",
        "api": "openai-completions",
        "provider": "openai",
        "base_url": "https://api.example.test/v1",
        "input": ["text", "image"],
    }
    fields.update(kw)
    return Model(**fields)


def _history(model: Model) -> list[Any]:
    same = {"api": model.api, "provider": model.provider, "model": model.id}
    return [
        UserMessage(content=[TextContent(text="look at this"), IMG]),
        AssistantMessage(
            **same,
            stop_reason="toolUse",
            content=[
                ThinkingContent(thinking="need the file", thinking_signature="reasoning_content"),
                TextContent(text="Reading."),
                ToolCall(id="call_1", name="read", arguments={"path": "a.py"}),
                ToolCall(id="call_2", name="read", arguments={"path": "b.py"}),
            ],
        ),
        ToolResultMessage(tool_call_id="call_1", tool_name="read", content=[TextContent(text="A")]),
        ToolResultMessage(tool_call_id="call_2", tool_name="read", content=[IMG]),
        UserMessage(content="thanks"),
    ]


TOOLS = [
    Tool(
        name="read",
        description="Read a file",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}},
    )
]


async def test_openai_full_conversation_body():
    model = _openai(
        reasoning=True, compat={"supportsDeveloperRole": True, "supportsReasoningEffort": True}
    )
    recorder = Recorder(sse_bytes(oa_text_events("ok")))
    ctx = Context(system_prompt="SYS", messages=_history(model), tools=TOOLS)
    final = await _send(model, ctx, recorder, reasoning="xhigh", max_tokens=500, temperature=0.2)
    assert final.stop_reason == "stop"
    request = recorder.requests[0]
    assert str(request.url) == "https://api.example.test/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-abcdefgh"
    body = recorder.json
    assert body["reasoning_effort"] == "high"
    assert body["max_completion_tokens"] == 500
    assert body["temperature"] == 0.2
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
    ]
    data_url = "data:image/png;base64,iVBORw0KGgo="
    assert body["messages"] == [
        {"role": "developer", "content": "SYS"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look at this"},
                {"type": "image_url", "image_url": {"url": data_url}},
            ],
        },
        {
            "role": "assistant",
            "content": "Reading.",
            "reasoning_content": "need the file",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "a.py"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "b.py"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "A"},
        {"role": "tool", "tool_call_id": "call_2", "content": "(see attached image)"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Attached image(s) from tool result:"},
                {"type": "image_url", "image_url": {"url": data_url}},
            ],
        },
        {"role": "user", "content": "thanks"},
    ]


async def test_openai_compat_switches():
    model = _openai(
        input=["text"],
        reasoning=True,
        compat={
            "maxTokensField": "max_tokens",
            "requiresToolResultName": True,
            "requiresAssistantAfterToolResult": True,
            "requiresThinkingAsText": True,
            "supportsStrictMode": True,
            "supportsReasoningEffort": True,
            "thinkingFormat": "openrouter",
            "supportsUsageInStreaming": False,
        },
    )
    recorder = Recorder(sse_bytes(oa_text_events("ok")))
    history = [*_history(model)[:3], UserMessage(content="next")]
    ctx = Context(system_prompt="SYS", messages=history, tools=TOOLS)
    await _send(model, ctx, recorder, reasoning="low", max_tokens=64)
    body = recorder.json
    assert body["max_tokens"] == 64
    assert body["reasoning"] == {"effort": "low"}
    assert "stream_options" not in body
    assert body["tools"][0]["function"]["strict"] is False
    messages = body["messages"]
    assert messages[0] == {"role": "system", "content": "SYS"}  # no developer role support
    assert messages[1] == {
        "role": "user",
        "content": ("look at this\n(image omitted: model does not support images)"),
    }
    assert messages[2]["content"] == "need the file\n\nReading."
    assert "reasoning_content" not in messages[2]
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": "A", "name": "read"}
    # call_2 never got a result: a synthetic one is inserted before the next user message
    assert messages[4] == {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": "No result provided",
        "name": "read",
    }
    assert messages[5] == {"role": "assistant", "content": "I have processed the tool results."}
    assert messages[6] == {"role": "user", "content": "next"}


async def test_openai_skips_empty_assistant_and_truncates_long_ids():
    model = _openai()
    long_id = "x" * 60
    other = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude"}
    history = [
        UserMessage(content="a"),
        AssistantMessage(**other, stop_reason="stop", content=[TextContent(text="  ")]),
        UserMessage(content="b"),
        AssistantMessage(
            **other, stop_reason="toolUse", content=[ToolCall(id=long_id, name="ls", arguments={})]
        ),
        ToolResultMessage(tool_call_id=long_id, tool_name="ls", content=[TextContent(text=".")]),
    ]
    recorder = Recorder(sse_bytes(oa_text_events("ok")))
    await _send(model, Context(messages=history), recorder)
    messages = recorder.json["messages"]
    assert [m["role"] for m in messages] == ["user", "user", "assistant", "tool"]
    assert messages[2]["tool_calls"][0]["id"] == "x" * 40
    assert messages[3]["tool_call_id"] == "x" * 40


async def test_anthropic_body_and_surrogates():
    model = Model(
        id="claude-x",
        api="anthropic-messages",
        provider="anthropic",
        base_url="https://api.example.test/v1",
        max_tokens=8000,
        input=["text"],
    )
    recorder = Recorder(sse_bytes(an_text_events("ok"), done=False, named=True))
    ctx = Context(
        system_prompt="S",
        messages=[
            UserMessage(content=[TextContent(text="bad \ud83d surrogate"), IMG]),
        ],
        tools=TOOLS,
    )
    final = await _send(model, ctx, recorder, temperature=0.7, cache_retention="none")
    assert final.stop_reason == "stop"
    request = recorder.requests[0]
    assert str(request.url) == "https://api.example.test/v1/messages"
    body = recorder.json
    assert body["temperature"] == 0.7
    assert body["max_tokens"] == 8000
    assert body["tools"][0]["input_schema"] == TOOLS[0].parameters
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "bad  surrogate"},
                {"type": "text", "text": "(image omitted: model does not support images)"},
            ],
        }
    ]


def test_reasoning_effort_is_clamped_to_what_the_model_supports():
    from pi_lsp.ai import resolve_model
    from pi_lsp.ai.providers.openai_convert import reasoning_effort

    def effort(model_id: str, level: str | None) -> str | None:
        return reasoning_effort(resolve_model("openai", model_id), StreamOptions(reasoning=level))

    assert effort("o4-mini", "minimal") == "low"
    assert effort("gpt-5", "minimal") == "minimal"
    assert effort("gpt-5", "xhigh") == "high"
    assert effort("gpt-5", None) is None
    assert effort("gpt-4.1", "high") is None  # not a reasoning model
