"""``convert_to_llm_default``: pi-agent-core's filter, on its fast path and its slow one."""

from __future__ import annotations

from typing import Any

from pi_lsp.agent import convert_to_llm_default
from pi_lsp.agent.messages import BranchSummaryMessage, CustomMessage
from pi_lsp.ai import AssistantMessage, TextContent, ToolResultMessage, UserMessage


class MyUser(UserMessage):
    """A host's subclass: kept for its role."""


class Foreign:
    def __init__(self, role: str) -> None:
        self.role = role


def _llm() -> list[Any]:
    return [
        UserMessage(content=[TextContent(text="hi")]),
        AssistantMessage(api="x", provider="x", model="m"),
        ToolResultMessage(tool_call_id="c", tool_name="t", content=[], is_error=False),
    ]


def test_an_all_llm_transcript_comes_back_as_a_new_list_of_the_same_messages() -> None:
    messages = _llm()
    converted = convert_to_llm_default(messages)
    assert converted == messages
    assert converted is not messages
    assert all(a is b for a, b in zip(converted, messages, strict=True))


def test_other_roles_are_dropped_and_subclasses_and_llm_roles_kept_in_order() -> None:
    user, assistant, result = _llm()
    mine, foreign_user, foreign_other = MyUser(content="x"), Foreign("user"), Foreign("note")
    messages: list[Any] = [
        user,
        CustomMessage(content="c"),
        mine,
        assistant,
        BranchSummaryMessage(summary="s"),
        foreign_user,
        foreign_other,
        result,
    ]
    converted = convert_to_llm_default(messages)
    assert [id(m) for m in converted] == [
        id(m) for m in (user, mine, assistant, foreign_user, result)
    ]
