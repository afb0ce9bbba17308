"""The loop's fast copies of messages (agent/_copy.py) against pydantic's own."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import InitVar, dataclass, field
from typing import Any

import pytest

from pi_lsp.agent._copy import deep_copy, replace_dataclass, shallow_copy
from pi_lsp.ai import (
    AssistantMessage,
    ImageContent,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)


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


def test_the_loops_llm_context_is_what_model_construct_builds() -> None:
    from pi_lsp.agent.loop import _llm_context
    from pi_lsp.ai import Context, Tool

    messages: list[Any] = [_message()]
    tools = [Tool(name="t", description="d", parameters={"type": "object"})]
    for tool_list in (tools, None):
        mine = _llm_context("sys", messages, tool_list)
        theirs = Context.model_construct(system_prompt="sys", messages=messages, tools=tool_list)
        assert type(mine) is Context
        assert mine.__dict__ == theirs.__dict__
        assert list(mine.__dict__) == list(theirs.__dict__)
        assert mine.messages is messages
        assert mine.__pydantic_fields_set__ == theirs.__pydantic_fields_set__
        assert mine.__pydantic_extra__ == theirs.__pydantic_extra__
        assert mine.__pydantic_private__ == theirs.__pydantic_private__
        assert mine == theirs
        assert mine.model_dump() == theirs.model_dump()


@dataclass
class _Plain:
    a: int
    b: str = "b"
    c: list[int] = field(default_factory=list)


@dataclass
class _WithInitVar:
    a: int
    scale: InitVar[int] = 1

    def __post_init__(self, scale: int) -> None:
        self.a *= scale


@dataclass(kw_only=True)
class _KeywordOnly:
    a: int
    b: int = 0


@dataclass
class _NotInInit:
    a: int
    b: int = field(default=0, init=False)


def test_replace_dataclass_is_dataclasses_replace() -> None:
    options = StreamOptions(temperature=0.5, headers={"x": "1"})
    mine = replace_dataclass(options, api_key="k", signal=None, reasoning="high")
    assert mine == dataclasses.replace(options, api_key="k", signal=None, reasoning="high")
    assert mine is not options
    assert mine.headers is options.headers  # shallow, like replace
    plain = _Plain(1, c=[1])
    assert replace_dataclass(plain, b="x") == _Plain(1, "x", plain.c)
    assert replace_dataclass(plain) == plain
    cases: tuple[tuple[Any, dict[str, Any]], ...] = (
        (_WithInitVar(2), {"scale": 3}),
        (_KeywordOnly(a=1), {"b": 2}),
        (_NotInInit(1), {"a": 5}),
    )
    for obj, change in cases:
        assert replace_dataclass(obj, **change) == dataclasses.replace(obj, **change)
    with pytest.raises(TypeError):
        replace_dataclass(plain, nope=1)
    # replace's own error for an init=False field: ValueError up to 3.12, TypeError from 3.13
    with pytest.raises((TypeError, ValueError)) as theirs:
        dataclasses.replace(_NotInInit(1), b=2)
    with pytest.raises(type(theirs.value), match=re.escape(str(theirs.value))):
        replace_dataclass(_NotInInit(1), b=2)
