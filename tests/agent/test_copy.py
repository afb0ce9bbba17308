"""The loop's fast copies of messages (agent/_copy.py) against pydantic's own."""

from __future__ import annotations

from pi_lsp.agent._copy import deep_copy, shallow_copy
from pi_lsp.ai import AssistantMessage, ImageContent, TextContent, ThinkingContent, ToolCall, Usage


def _message() -> AssistantMessage:
    message = AssistantMessage(api="x", provider="x", model="m", usage=Usage(input=3))
    message.content = [
        ThinkingContent(thinking="hmm", thinking_signature="sig"),
        TextContent(text="hello"),
        ToolCall(id="c1", name="edit", arguments={"path": "a.py", "edits": [{"old": "1"}]}),
    ]
    return message


def test_deep_copy_equals_pydantics_and_shares_nothing_mutable() -> None:
    original = _message()
    copied = deep_copy(original)
    assert copied == original.model_copy(deep=True)
    assert copied.model_dump() == original.model_dump()
    assert copied.__pydantic_fields_set__ == original.__pydantic_fields_set__
    assert copied.content is not original.content
    for mine, theirs in zip(copied.content, original.content, strict=True):
        assert mine is not theirs
    assert copied.content[2].arguments["edits"] is not original.content[2].arguments["edits"]
    assert copied.usage is not original.usage
    assert copied.usage.cost is not original.usage.cost
    original.content[1].text += " world"  # later changes do not reach the copy
    original.usage.output = 7
    assert copied.content[1].text == "hello"
    assert copied.usage.output == 0


def test_deep_copy_keeps_extra_fields_and_other_types() -> None:
    message = AssistantMessage.model_validate({"role": "assistant", "vendorField": {"a": [1]}})
    copied = deep_copy(message)
    assert copied.__pydantic_extra__ == message.__pydantic_extra__
    assert copied.__pydantic_extra__ is not message.__pydantic_extra__
    image = ImageContent(data="AAAA", mime_type="image/png")
    assert deep_copy(image) == image


def test_shallow_copy_shares_the_content_like_a_spread() -> None:
    original = _message()
    copied = shallow_copy(original)
    assert copied == original
    assert copied is not original
    assert copied.content is original.content
