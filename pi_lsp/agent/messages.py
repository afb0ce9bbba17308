"""Agent-level messages and the two ``convert_to_llm`` converters.

``AgentMessage`` = the three LLM roles plus the product's own roles (compaction and branch
summaries, custom messages). ``convert_to_llm_default`` is pi-agent-core's filter;
``convert_to_llm_coding`` is the coding agent's converter, which turns the product roles into
user messages with Pi's exact texts. Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Field, TypeAdapter

from ..ai import (
    AssistantMessage,
    Message,
    TextContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
    WireModel,
    now_ms,
)

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n"
    "<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"


class CompactionSummaryMessage(WireModel):
    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int = 0
    timestamp: int = Field(default_factory=now_ms)


class BranchSummaryMessage(WireModel):
    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str = "root"
    timestamp: int = Field(default_factory=now_ms)


class CustomMessage(WireModel):
    """An extension/product message that reaches the model as a user message."""

    role: Literal["custom"] = "custom"
    custom_type: str = "custom"
    content: str | list[UserContent]
    display: bool = True
    details: Any = None
    timestamp: int = Field(default_factory=now_ms)


AgentMessage: TypeAlias = Annotated[
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | CompactionSummaryMessage
    | BranchSummaryMessage
    | CustomMessage,
    Field(discriminator="role"),
]

agent_message_adapter: TypeAdapter[AgentMessage] = TypeAdapter(AgentMessage)
messages_adapter: TypeAdapter[list[AgentMessage]] = TypeAdapter(list[AgentMessage])

_LLM_ROLES = frozenset(("user", "assistant", "toolResult"))


def user_message(text: str, images: Sequence[Any] = ()) -> UserMessage:
    """A user message with one text block (plus images), as ``Agent.prompt(str)`` builds."""
    return UserMessage(content=[TextContent(text=text), *images])


_LLM_TYPES = frozenset((UserMessage, AssistantMessage, ToolResultMessage))


def convert_to_llm_default(messages: Sequence[AgentMessage]) -> list[Message]:
    """pi-agent-core's default: keep user / assistant / toolResult, drop the rest.

    Runs on the whole transcript before every model call, so it checks the exact classes
    first, in C (``map``; half the cost of a comprehension), and when they are all LLM
    messages — the usual case — returns a copy; otherwise it filters, reading ``role`` only
    for other classes.
    """
    llm_types = _LLM_TYPES
    if all(map(llm_types.__contains__, map(type, messages))):
        return list(messages)  # type: ignore[arg-type]  # all are LLM messages
    kept = [m for m in messages if m.__class__ in llm_types or m.role in _LLM_ROLES]
    return kept  # type: ignore[return-value]  # the filter keeps only the LLM roles


def convert_to_llm_coding(messages: Sequence[AgentMessage]) -> list[Message]:
    """The coding agent's converter: product roles become user messages with Pi's texts."""
    out: list[Message] = []
    for m in messages:
        if isinstance(m, UserMessage | AssistantMessage | ToolResultMessage):
            out.append(m)
        elif isinstance(m, CompactionSummaryMessage):
            text = COMPACTION_SUMMARY_PREFIX + m.summary + COMPACTION_SUMMARY_SUFFIX
            out.append(UserMessage(content=[TextContent(text=text)], timestamp=m.timestamp))
        elif isinstance(m, BranchSummaryMessage):
            text = BRANCH_SUMMARY_PREFIX + m.summary + BRANCH_SUMMARY_SUFFIX
            out.append(UserMessage(content=[TextContent(text=text)], timestamp=m.timestamp))
        elif isinstance(m, CustomMessage):
            content = [TextContent(text=m.content)] if isinstance(m.content, str) else m.content
            out.append(UserMessage(content=content, timestamp=m.timestamp))
    return out
