"""transform_messages (docs/reference/pi.md#transform-messages) beyond the checklist items."""

from __future__ import annotations

from pi_lsp.ai import (
    AssistantMessage,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    transform_messages,
)
from pi_lsp.ai.providers.anthropic_convert import normalize_tool_call_id

CLAUDE = Model(
    id="claude-x", api="anthropic-messages", provider="anthropic", input=["text", "image"]
)
IMG = ImageContent(data="AAAA", mime_type="image/png")


def _assistant(
    model: str, provider: str, api: str, *content: object, stop: str = "toolUse"
) -> AssistantMessage:
    return AssistantMessage(
        model=model, provider=provider, api=api, stop_reason=stop, content=list(content)
    )  # type: ignore[arg-type]


def test_cross_model_thinking_becomes_text_and_ids_are_normalised():
    other = _assistant(
        "gpt-5",
        "openai",
        "openai-responses",
        ThinkingContent(thinking="I should read it.", thinking_signature="enc"),
        ThinkingContent(thinking="   "),
        ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="x", redacted=True),
        TextContent(text="Reading.", text_signature='{"v":1,"id":"msg_1"}'),
        ToolCall(
            id="call_1|fc_abc+/=", name="read", arguments={"path": "a"}, thought_signature="sig"
        ),
    )
    result = ToolResultMessage(
        tool_call_id="call_1|fc_abc+/=", tool_name="read", content=[TextContent(text="A")]
    )
    out = transform_messages(
        [UserMessage(content="go"), other, result], CLAUDE, normalize_tool_call_id
    )
    assistant = out[1]
    assert isinstance(assistant, AssistantMessage)
    assert assistant.content == [
        TextContent(text="I should read it."),
        TextContent(text="Reading."),
        ToolCall(id="call_1_fc_abc___", name="read", arguments={"path": "a"}),
    ]
    remapped = out[2]
    assert isinstance(remapped, ToolResultMessage)
    assert remapped.tool_call_id == "call_1_fc_abc___"
    # the originals are untouched
    assert other.content[4].id == "call_1|fc_abc+/="  # type: ignore[union-attr]
    assert result.tool_call_id == "call_1|fc_abc+/="


def test_same_model_keeps_signed_thinking_even_when_empty():
    same = _assistant(
        "claude-x",
        "anthropic",
        "anthropic-messages",
        ThinkingContent(thinking="", thinking_signature="SIG"),
        ThinkingContent(thinking=""),
        ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="blob", redacted=True),
        TextContent(text="hi"),
        stop="stop",
    )
    out = transform_messages([same], CLAUDE)
    assert out[0].content == [  # type: ignore[union-attr]
        ThinkingContent(thinking="", thinking_signature="SIG"),
        ThinkingContent(thinking="[Reasoning redacted]", thinking_signature="blob", redacted=True),
        TextContent(text="hi"),
    ]


def test_unchanged_messages_are_passed_through_as_is():
    user = UserMessage(content=[TextContent(text="a"), IMG])
    same = _assistant(
        "claude-x", "anthropic", "anthropic-messages", TextContent(text="b"), stop="stop"
    )
    out = transform_messages([user, same], CLAUDE)
    assert out[0] is user
    assert out[1] is same


def test_tool_images_become_their_own_placeholder_for_text_models():
    text_model = CLAUDE.model_copy(update={"input": ["text"]})
    call = _assistant(
        "claude-x", "anthropic", "anthropic-messages", ToolCall(id="t", name="read", arguments={})
    )
    result = ToolResultMessage(
        tool_call_id="t", tool_name="read", content=[IMG, IMG, TextContent(text="done"), IMG]
    )
    out = transform_messages([call, result], text_model)
    placeholder = TextContent(text="(tool image omitted: model does not support images)")
    assert out[1].content == [placeholder, TextContent(text="done"), placeholder]  # type: ignore[union-attr]


def test_results_of_a_dropped_assistant_message_are_dropped_too():
    aborted = _assistant(
        "claude-x",
        "anthropic",
        "anthropic-messages",
        ToolCall(id="gone", name="bash", arguments={}),
        stop="aborted",
    )
    stale = ToolResultMessage(
        tool_call_id="gone", tool_name="bash", content=[TextContent(text="x")]
    )
    out = transform_messages(
        [UserMessage(content="a"), aborted, stale, UserMessage(content="b")], CLAUDE
    )
    assert [m.role for m in out] == ["user", "user"]
