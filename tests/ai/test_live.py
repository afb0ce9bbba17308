"""Opt-in tests against the real providers: ``pytest -m live`` with the provider's key set.

They are skipped in the default run (tests/conftest.py) and skip themselves when the key is
missing. Each makes one small request (a few hundred tokens).
"""

from __future__ import annotations

import os

import pytest

from pi_lsp.ai import (
    Context,
    StreamOptions,
    Tool,
    ToolCall,
    UserMessage,
    complete,
    get_env_api_key,
    resolve_model,
)
from tests.support.tiers import optional

pytestmark = pytest.mark.live

READ_TOOL = Tool(
    name="read",
    description="Read a file from the workspace.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def _need_key(provider: str) -> None:
    if get_env_api_key(provider) is None:
        pytest.skip(optional(f"no API key for {provider} in the environment"))


@pytest.mark.parametrize(
    ("provider", "model_id"),
    [
        ("openai", os.environ.get("PI_LIVE_OPENAI_MODEL", "gpt-4.1-mini")),
        ("anthropic", os.environ.get("PI_LIVE_ANTHROPIC_MODEL", "claude-haiku-4-5")),
        ("google", os.environ.get("PI_LIVE_GOOGLE_MODEL", "gemini-2.5-flash")),
    ],
)
async def test_live_text_and_tool_call(provider: str, model_id: str):
    _need_key(provider)
    model = resolve_model(provider, model_id)
    ctx = Context(
        system_prompt="You are a test harness. Follow instructions exactly.",
        messages=[UserMessage(content="Call the read tool on the path 'README.md'. Say nothing.")],
        tools=[READ_TOOL],
    )
    final = await complete(model, ctx, StreamOptions(max_tokens=200))
    assert final.stop_reason == "toolUse", final.error_message
    calls = [b for b in final.content if isinstance(b, ToolCall)]
    assert calls
    assert calls[0].name == "read"
    assert calls[0].arguments.get("path") == "README.md"
    assert final.usage.input > 0
    assert final.usage.cost.total > 0


@pytest.mark.parametrize(
    ("provider", "model_id"),
    [
        ("openai", os.environ.get("PI_LIVE_OPENAI_REASONING_MODEL", "gpt-5-mini")),
        ("google", os.environ.get("PI_LIVE_GOOGLE_THINKING_MODEL", "gemini-3-flash-preview")),
    ],
)
async def test_live_reasoning_survives_a_tool_turn(provider: str, model_id: str):
    """The replay the ported providers exist for: OpenAI's encrypted reasoning item and
    Gemini 3's thought signature go back with the call; the server accepts the second turn."""
    from pi_lsp.ai import TextContent, ToolResultMessage

    _need_key(provider)
    model = resolve_model(provider, model_id)
    ctx = Context(
        system_prompt="You are a test harness. Follow instructions exactly.",
        messages=[UserMessage(content="Call the read tool on 'README.md', then say what it says.")],
        tools=[READ_TOOL],
    )
    options = StreamOptions(max_tokens=2000, reasoning="low", session_id="pi-lsp-live-test")
    first = await complete(model, ctx, options)
    assert first.stop_reason == "toolUse", first.error_message
    call = next(b for b in first.content if isinstance(b, ToolCall))
    result = ToolResultMessage(
        tool_call_id=call.id, tool_name="read", content=[TextContent(text="It says: 42.")]
    )
    ctx.messages += [first, result]
    second = await complete(model, ctx, options)
    assert second.stop_reason in ("stop", "length"), second.error_message


async def test_live_bad_key_is_a_clean_error():
    if os.environ.get("PI_LIVE_BAD_KEY") != "1":
        pytest.skip(
            optional("set PI_LIVE_BAD_KEY=1 to check a rejected key against api.openai.com")
        )
    final = await complete(
        resolve_model("openai", "gpt-4.1-mini"),
        Context(messages=[UserMessage(content="hi")]),
        StreamOptions(api_key="sk-invalid-key-for-testing-0000000000"),
    )
    assert final.stop_reason == "error"
    assert (final.error_message or "").startswith("401")
    assert "sk-invalid-key-for-testing" not in (final.error_message or "")
