"""The Responses and Gemini providers against fake services written from the API references
(``tests/support/fake_openai_responses.py``, ``tests/support/fake_gemini.py``), which check
each request body as the real service would: tool round trips of catalog models at their
default settings, call ids, quota errors, reasoning-token usage (issue 38)."""

from __future__ import annotations

from typing import Any

from pi_lsp.ai import (
    AssistantMessage,
    Context,
    Model,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    is_retryable_error_message,
    resolve_model,
    stream,
)
from tests.ai.helpers import TEST_KEY, RetryLog, collect, context, options
from tests.support.fake_gemini import THOUGHT_TOKENS, FakeGeminiAPI
from tests.support.fake_openai_responses import (
    REASONING_TOKENS,
    FakeResponsesAPI,
    item_not_found,
)
from tests.support.http_server import ScriptedHTTPServer

BASE_URL_HINT = "appends /responses to `baseUrl`"


def _catalog(provider: str, model_id: str, base_url: str) -> Model:
    return resolve_model(provider, model_id, base_url)


def _answered(result: AssistantMessage) -> ToolResultMessage:
    call = next(b for b in result.content if isinstance(b, ToolCall))
    return ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content=[{"type": "text", "text": "# readme"}]
    )


async def _round_trip(model: Model, **opts: Any) -> tuple[AssistantMessage, AssistantMessage]:
    """A tool call, then the answer after its result, as the agent loop sends them."""
    ctx = context("read the readme", tools=True)
    _, first = await collect(stream(model, ctx, options(**opts)))
    assert first.stop_reason == "toolUse", first.error_message
    ctx.messages += [first, _answered(first)]
    _, second = await collect(stream(model, ctx, options(**opts)))
    return first, second


# ------------------------------------------------------------------ OpenAI Responses


async def test_reasoning_models_keep_tool_use_working_with_thinking_off(srv: ScriptedHTTPServer):
    fake = FakeResponsesAPI(TEST_KEY)
    srv.handler = fake
    for model_id in ("o4-mini", "o3", "gpt-5", "gpt-5-mini"):
        model = _catalog("openai", model_id, srv.url + "/v1")
        assert model.api == "openai-responses"
        assert model.reasoning
        _first, second = await _round_trip(model)  # thinking off: the default level
        assert second.stop_reason == "stop", (model_id, second.error_message)
        assert fake.rejected == []
        assert [b.text for b in second.content if hasattr(b, "text")] == ["done"]
        # the reasoning item went back whole, with the content the server sealed
        body = srv.requests[-1].json
        replayed = [i for i in body["input"] if i.get("type") == "reasoning"]
        assert len(replayed) == 1
        assert replayed[0]["encrypted_content"]
        assert body["include"] == ["reasoning.encrypted_content"]


async def test_a_stored_reasoning_item_without_encrypted_content_is_left_out(
    srv: ScriptedHTTPServer,
):
    """A session saved before the fix holds reasoning items the server cannot find."""
    fake = FakeResponsesAPI(TEST_KEY)
    srv.handler = fake
    model = _catalog("openai", "o4-mini", srv.url + "/v1")
    fake.paired["fc_0001"] = "rs_0001"  # what the server made in that earlier turn
    earlier = AssistantMessage(
        content=[
            ThinkingContent(
                thinking="", thinking_signature='{"id":"rs_0001","type":"reasoning","summary":[]}'
            ),
            ToolCall(id="call_0001|fc_0001", name="read", arguments={"path": "README.md"}),
        ],
        api=model.api,
        provider=model.provider,
        model=model.id,
        stop_reason="toolUse",
    )
    ctx = context("read the readme", tools=True)
    ctx.messages += [earlier, _answered(earlier)]
    _, answer = await collect(stream(model, ctx, options()))
    assert answer.stop_reason == "stop", answer.error_message
    assert fake.rejected == []
    call = next(i for i in srv.requests[-1].json["input"] if i.get("type") == "function_call")
    assert call["call_id"] == "call_0001"
    assert "id" not in call


async def test_an_item_404_does_not_blame_the_base_url(srv: ScriptedHTTPServer):
    model = _catalog("openai", "o4-mini", srv.url + "/v1")
    srv.enqueue(item_not_found("rs_0042"))
    _, answer = await collect(stream(model, context(), options()))
    assert answer.stop_reason == "error"
    assert "Item with id 'rs_0042' not found" in (answer.error_message or "")
    assert BASE_URL_HINT not in (answer.error_message or "")


async def test_a_wrong_path_404_still_gets_the_base_url_hint(srv: ScriptedHTTPServer):
    srv.handler = FakeResponsesAPI(TEST_KEY)
    model = _catalog("openai", "o4-mini", srv.url + "/api")  # not where the API is
    _, answer = await collect(stream(model, context(), options()))
    assert answer.stop_reason == "error"
    assert "Invalid URL (POST /api/responses)" in (answer.error_message or "")
    assert BASE_URL_HINT in (answer.error_message or "")


async def test_responses_usage_reports_reasoning_tokens(srv: ScriptedHTTPServer):
    srv.handler = FakeResponsesAPI(TEST_KEY)
    model = _catalog("openai", "o4-mini", srv.url + "/v1")
    _, answer = await collect(stream(model, context(), options()))
    assert answer.usage.reasoning == REASONING_TOKENS
    assert answer.usage.output == 20 + REASONING_TOKENS  # a part of output, not added to it
    assert answer.usage.to_wire()["reasoning"] == REASONING_TOKENS


# ---------------------------------------------------------------------------- Gemini


async def test_gemini_call_ids_are_echoed_on_the_call_and_its_response(srv: ScriptedHTTPServer):
    fake = FakeGeminiAPI(TEST_KEY)
    srv.handler = fake
    model = _catalog("google", "gemini-2.5-flash", srv.url + "/v1beta")
    first, second = await _round_trip(model)
    call = next(b for b in first.content if isinstance(b, ToolCall))
    assert call.id in fake.issued
    assert second.stop_reason == "stop", second.error_message
    assert fake.rejected == []
    turns = srv.requests[-1].json["contents"]
    assert turns[1]["parts"][0]["functionCall"]["id"] == call.id
    assert turns[2]["parts"][0]["functionResponse"]["id"] == call.id


async def test_gemini_calls_without_ids_are_sent_back_without_ids(srv: ScriptedHTTPServer):
    fake = FakeGeminiAPI(TEST_KEY, issue_ids=False)
    srv.handler = fake
    model = _catalog("google", "gemini-2.5-flash", srv.url + "/v1beta")
    _, second = await _round_trip(model)
    assert second.stop_reason == "stop", second.error_message
    turns = srv.requests[-1].json["contents"]
    assert "id" not in turns[1]["parts"][0]["functionCall"]  # ours was generated
    assert "id" not in turns[2]["parts"][0]["functionResponse"]


async def test_gemini_per_minute_limit_is_retried_after_its_retry_delay(srv: ScriptedHTTPServer):
    fake = FakeGeminiAPI(TEST_KEY, retry_delay="0.05s")
    fake.limit_per_minute(1)
    srv.handler = fake
    retries = RetryLog()
    model = _catalog("google", "gemini-2.5-flash", srv.url + "/v1beta")
    _, answer = await collect(stream(model, context(), options(on_retry=retries)))
    assert answer.stop_reason == "stop", answer.error_message
    assert len(srv.requests) == 2
    assert [r.delay_ms for r in retries.calls] == [50]  # retryDelay, not our own backoff
    assert "per-minute rate limit" in retries.calls[0].error_message


async def test_gemini_per_minute_limit_left_over_is_retryable_later(srv: ScriptedHTTPServer):
    fake = FakeGeminiAPI(TEST_KEY)
    fake.limit_per_minute(5)
    srv.handler = fake
    model = _catalog("google", "gemini-2.5-flash", srv.url + "/v1beta")
    _, answer = await collect(stream(model, context(), options(max_retries=0)))
    assert answer.stop_reason == "error"
    # the session level may try again: it is a rate limit, not a quota
    assert is_retryable_error_message(answer.error_message)


async def test_a_spent_gemini_quota_fails_at_once_and_says_so(srv: ScriptedHTTPServer):
    fake = FakeGeminiAPI(TEST_KEY)
    fake.exhaust_daily_quota()
    srv.handler = fake
    retries = RetryLog()
    model = _catalog("google", "gemini-2.5-flash", srv.url + "/v1beta")
    _, answer = await collect(stream(model, context(), options(on_retry=retries)))
    assert answer.stop_reason == "error"
    assert len(srv.requests) == 1
    assert retries.calls == []
    message = answer.error_message or ""
    assert message.startswith("429 quota exhausted (GenerateRequestsPerDayPerProjectPerModel")
    assert "check your plan and billing" in message  # the service's own words follow
    assert not is_retryable_error_message(message)


async def test_gemini_usage_reports_thought_tokens_as_reasoning(srv: ScriptedHTTPServer):
    srv.handler = FakeGeminiAPI(TEST_KEY)
    model = _catalog("google", "gemini-2.5-flash", srv.url + "/v1beta")
    _, answer = await collect(
        stream(model, Context(messages=[UserMessage(content="hi")]), options())
    )
    assert answer.usage.reasoning == THOUGHT_TOKENS
    assert answer.usage.output == 10 + THOUGHT_TOKENS
