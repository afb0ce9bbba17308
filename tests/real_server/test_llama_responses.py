"""The Responses provider, and the Anthropic provider picked through the ``api`` setting,
against the real llama.cpp server (which also serves ``/v1/responses`` and ``/v1/messages``).
Few and cheap on purpose: one short answer each; the wire, never the answers."""

from __future__ import annotations

import pytest

from pi_lsp.ai import AbortSignal, Context, StreamOptions, TextContent, UserMessage, stream
from pi_lsp.ai.events import StartEvent, TextDeltaEvent
from pi_lsp.ai.models import resolve_model

from .conftest import LlamaServer

pytestmark = pytest.mark.real_server


def ask(text: str) -> Context:
    return Context(system_prompt="Be brief.", messages=[UserMessage(content=text)])


def options(**kw: object) -> StreamOptions:
    return StreamOptions(max_retries=0, env={}, **kw)  # type: ignore[arg-type]


async def test_responses_streams_text_with_usage_and_sees_the_limit(llama: LlamaServer) -> None:
    """llama.cpp answers status "completed" even when max_output_tokens cut the answer: the
    provider still reports "length" (output tokens compared with the limit)."""
    model = resolve_model("openai-compatible", "smollm2", llama.url + "/v1", api="openai-responses")
    s = stream(model, ask("Say hello."), options(max_tokens=6, session_id="real-1"))
    events = [event async for event in s]
    final = await s.result()
    assert final.stop_reason == "length", final.error_message
    assert isinstance(events[0], StartEvent)
    streamed = "".join(e.delta for e in events if isinstance(e, TextDeltaEvent))
    assert streamed
    assert [b.text for b in final.content if isinstance(b, TextContent)] == [streamed]
    assert final.usage.output == 6
    assert final.usage.input + final.usage.cache_read > 0
    assert final.response_id is not None
    assert final.response_id.startswith("resp_")


async def test_responses_abort(llama: LlamaServer) -> None:
    model = resolve_model("openai-compatible", "smollm2", llama.url + "/v1", api="openai-responses")
    signal = AbortSignal()
    s = stream(model, ask("Count from one to one hundred."), options(signal=signal))
    async for event in s:
        if isinstance(event, TextDeltaEvent):
            signal.abort()
    final = await s.result()
    assert final.stop_reason == "aborted"


async def test_anthropic_messages_through_the_api_setting_needs_no_key(
    llama: LlamaServer,
) -> None:
    model = resolve_model(
        "openai-compatible", "smollm2", llama.url + "/v1", api="anthropic-messages"
    )
    s = stream(model, ask("Say hi."), options(max_tokens=6))
    final = await s.result()
    assert final.stop_reason == "length", final.error_message
    assert final.usage.output > 0
