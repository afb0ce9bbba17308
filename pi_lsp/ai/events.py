"""The assistant stream protocol (pi-ai ``AssistantMessageEvent``).

``start``, ``text_start/delta/end``, ``thinking_start/delta/end``, ``toolcall_start/delta/end``,
then exactly one of ``done`` / ``error``. ``partial`` is the provider's single mutable
``AssistantMessage`` (mutated in place, as pi-ai does); consumers copy it if they keep it.
Except ``start``: its ``partial`` is a snapshot taken when it was pushed, because a provider
may apply the first content (role and first token arrive in one TCP segment) before the
consumer sees ``start``; content in it would then arrive a second time as a delta.

Events are slotted dataclasses rather than pydantic models: they are created once per
streamed chunk on the hot path and never go on the wire as-is (the LSP layer maps them).
Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from .types import AssistantMessage, ToolCall


@dataclass(slots=True)
class StartEvent:
    partial: AssistantMessage
    type: Literal["start"] = "start"


@dataclass(slots=True)
class TextStartEvent:
    content_index: int
    partial: AssistantMessage
    type: Literal["text_start"] = "text_start"


@dataclass(slots=True)
class TextDeltaEvent:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["text_delta"] = "text_delta"


@dataclass(slots=True)
class TextEndEvent:
    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["text_end"] = "text_end"


@dataclass(slots=True)
class ThinkingStartEvent:
    content_index: int
    partial: AssistantMessage
    type: Literal["thinking_start"] = "thinking_start"


@dataclass(slots=True)
class ThinkingDeltaEvent:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclass(slots=True)
class ThinkingEndEvent:
    content_index: int
    content: str
    partial: AssistantMessage
    type: Literal["thinking_end"] = "thinking_end"


@dataclass(slots=True)
class ToolCallStartEvent:
    content_index: int
    partial: AssistantMessage
    type: Literal["toolcall_start"] = "toolcall_start"


@dataclass(slots=True)
class ToolCallDeltaEvent:
    content_index: int
    delta: str
    partial: AssistantMessage
    type: Literal["toolcall_delta"] = "toolcall_delta"


@dataclass(slots=True)
class ToolCallEndEvent:
    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: Literal["toolcall_end"] = "toolcall_end"


@dataclass(slots=True)
class DoneEvent:
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage
    type: Literal["done"] = "done"


@dataclass(slots=True)
class ErrorEvent:
    reason: Literal["error", "aborted"]
    error: AssistantMessage
    type: Literal["error"] = "error"


ContentEvent: TypeAlias = (
    TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
)

AssistantMessageEvent: TypeAlias = StartEvent | ContentEvent | DoneEvent | ErrorEvent


@dataclass(slots=True)
class RetryInfo:
    """A transient provider failure about to be retried (before any output was streamed)."""

    attempt: int
    delay_ms: int
    error_message: str
