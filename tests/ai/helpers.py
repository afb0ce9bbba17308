"""Builders shared by the provider tests: models aimed at the scripted server, SSE payloads,
event collection."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_lsp.ai import (
    AssistantMessage,
    AssistantMessageEvent,
    AssistantMessageEventStream,
    Context,
    Model,
    ModelCost,
    RetryInfo,
    StreamOptions,
    Tool,
    UserMessage,
)
from tests.support.http_server import (
    Pause,
    ScriptedHTTPServer,
    ScriptedResponse,
    Step,
    sse_bytes,
)

TEST_KEY = "sk-test-secret-key-0123456789"


def openai_model(srv: ScriptedHTTPServer, **kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": "gpt-test",
        "api": "openai-completions",
        "provider": "openai",
        "base_url": srv.url + "/v1",
        "input": ["text", "image"],
        "cost": ModelCost(input=2.0, output=8.0, cache_read=0.5),
        "compat": {"supportsDeveloperRole": True, "supportsStore": True},
    }
    fields.update(kw)
    return Model(**fields)


def anthropic_model(srv: ScriptedHTTPServer, **kw: Any) -> Model:
    fields: dict[str, Any] = {
        "id": "claude-test",
        "api": "anthropic-messages",
        "provider": "anthropic",
        "base_url": srv.url,
        "reasoning": True,
        "input": ["text", "image"],
        "cost": ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
        "max_tokens": 64_000,
    }
    fields.update(kw)
    return Model(**fields)


def options(**kw: Any) -> StreamOptions:
    fields: dict[str, Any] = {"api_key": TEST_KEY, "base_retry_delay_ms": 1, "env": {}}
    fields.update(kw)
    return StreamOptions(**fields)


def context(text: str = "hi", *, tools: bool = False) -> Context:
    tool_list = (
        [
            Tool(
                name="read",
                description="Read a file",
                parameters={
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            )
        ]
        if tools
        else None
    )
    return Context(
        system_prompt="You are terse.", messages=[UserMessage(content=text)], tools=tool_list
    )


async def collect(
    stream: AssistantMessageEventStream,
) -> tuple[list[AssistantMessageEvent], AssistantMessage]:
    events = [event async for event in stream]
    return events, await stream.result()


def types_of(events: list[AssistantMessageEvent]) -> list[str]:
    return [e.type for e in events]


class RetryLog:
    """An ``on_retry`` callback that records what it was told."""

    def __init__(self) -> None:
        self.calls: list[RetryInfo] = []

    def __call__(self, info: RetryInfo) -> None:
        self.calls.append(info)


# ------------------------------------------------------------------ OpenAI chunks


def oa_chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-123",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
        **extra,
    }


def oa_usage(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    return {
        "id": "chatcmpl-123",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def oa_text_events(text: str, finish: str = "stop", pieces: int = 3) -> list[dict[str, Any]]:
    size = max(1, len(text) // pieces)
    events = [oa_chunk({"role": "assistant", "content": ""})]
    events += [oa_chunk({"content": text[i : i + size]}) for i in range(0, len(text), size)]
    events.append(oa_chunk({}, finish))
    events.append(oa_usage(10, 5))
    return events


# --------------------------------------------------------------- Anthropic events


def an_start(
    input_tokens: int = 25, output_tokens: int = 1, cache_read: int = 0, cache_write: int = 0
) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-test",
            "stop_reason": None,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cache_read_input_tokens": cache_read,
                "cache_creation_input_tokens": cache_write,
            },
        },
    }


def an_text_block(index: int, text: str, pieces: int = 3) -> list[dict[str, Any]]:
    size = max(1, len(text) // pieces)
    events: list[dict[str, Any]] = [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        }
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": text[i : i + size]},
        }
        for i in range(0, len(text), size)
    ]
    events.append({"type": "content_block_stop", "index": index})
    return events


def an_tool_block(
    index: int, call_id: str, name: str, json_text: str, piece: int = 3
) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
        }
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": json_text[i : i + piece]},
        }
        for i in range(0, len(json_text), piece)
    ]
    events.append({"type": "content_block_stop", "index": index})
    return events


def an_end(
    stop_reason: str = "end_turn", output_tokens: int = 12, **delta_extra: Any
) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, **delta_extra},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


def an_text_events(text: str, stop: str = "end_turn") -> list[dict[str, Any]]:
    return [an_start(), *an_text_block(0, text), *an_end(stop)]


# ------------------------------------------------------------------------ lockstep


class ArgLockstep:
    """A response body where every tool-argument delta after the first waits until the test
    saw the previous ``toolcall_delta``, so the shared partial cannot run ahead of the
    consumer: each delta's partial shows exactly the arguments streamed so far."""

    def __init__(self, events: list[Any], *, named: bool = False, done: bool = True) -> None:
        self.gates: list[asyncio.Event] = []
        self.steps: list[Step] = []
        first = True
        for event in events:
            if _is_arg_delta(event):
                if not first:
                    gate = asyncio.Event()
                    self.gates.append(gate)
                    self.steps.append(Pause(gate))
                first = False
            self.steps.append(sse_bytes([event], done=False, named=named))
        if done:
            self.steps.append(b"data: [DONE]\n\n")
        self._released = 0

    def response(self) -> ScriptedResponse:
        return ScriptedResponse(headers={"content-type": "text/event-stream"}, body=self.steps)

    def saw_delta(self) -> None:
        """Call on every ``toolcall_delta``: lets the next argument delta through."""
        if self._released < len(self.gates):
            self.gates[self._released].set()
            self._released += 1


def _is_arg_delta(event: Any) -> bool:
    if not isinstance(event, dict):
        return False
    delta = event.get("delta")
    if event.get("type") == "content_block_delta" and isinstance(delta, dict):
        return delta.get("type") == "input_json_delta"
    for choice in event.get("choices") or []:
        for call in (choice.get("delta") or {}).get("tool_calls") or []:
            if (call.get("function") or {}).get("arguments"):
                return True
    return False
