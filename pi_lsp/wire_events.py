"""The declared shape of every ``event`` that ``wire.event_wire`` emits: one pydantic model per
``event.type``, and ``WireEvent``, their union.

The declaration, not the builder: ``wire.py`` builds the JSON as plain dicts (the hot path of a
stream); these models say what that JSON is, field by field, in its wire (camelCase) names. The
language server's ``pi/event`` carries them (``lsp/protocol/contract.py``'s ``PiEvent`` adds the
LSP-only ``review_update``), so ``docs/protocol.schema.json`` — and the VS Code client's
``generated.ts`` — has a discriminated union of the events. ``extra="forbid"``: an event with a
field the declaration does not name fails to validate, and so does one missing a required field
(tests/lsp/test_event_models.py validates every event of real runs).

Messages inside events are Pi's message shapes (docs/protocol.md#messages), declared by the
``ai`` models; here they are JSON objects. Imports nothing of ours but the resources layer's
wire models (pure pydantic, the bottom layer), so the protocol package may import it without
pulling in the agent.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from .resources.models import (
    ContextFile,
    Diagnostic,
    PromptFile,
    PromptTemplate,
    Skill,
    TrustInfo,
)

WireMessage: TypeAlias = dict[str, Any]
"""A whole message in Pi's shape: ``role`` ``user`` | ``assistant`` | ``toolResult`` | …"""


class EventModel(BaseModel):
    """Base of the event declarations: wire names, no field that is not declared."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        use_attribute_docstrings=True,
    )


# ------------------------------------------------------------------ the run's lifecycle


class AgentStartEvent(EventModel):
    type: Literal["agent_start"]


class TurnStartEvent(EventModel):
    type: Literal["turn_start"]


class MessageStartEvent(EventModel):
    type: Literal["message_start"]
    message: WireMessage
    queued_id: str | None = None
    """The queue entry this user message came out of (with ``deliveredAs``)."""
    delivered_as: Literal["steer", "followUp"] | None = None


class ContentBoundary(EventModel):
    """A content block begins or ends (``toolcall_end`` is ``ToolCallDone``)."""

    type: Literal["text_start", "text_end", "thinking_start", "thinking_end", "toolcall_start"]
    content_index: int


class ContentDelta(EventModel):
    type: Literal["text_delta", "thinking_delta", "toolcall_delta"]
    content_index: int
    delta: str


class ToolCallDone(EventModel):
    type: Literal["toolcall_end"]
    content_index: int
    tool_call: WireMessage
    """The parsed call: ``{type: "toolCall", id, name, arguments}``."""


AssistantMessageEvent: TypeAlias = ContentBoundary | ContentDelta | ToolCallDone


class MessageUpdateEvent(EventModel):
    """A streamed change of the assistant message: never the partial message itself."""

    type: Literal["message_update"]
    assistant_message_event: AssistantMessageEvent


class MessageEndEvent(EventModel):
    type: Literal["message_end"]
    message: WireMessage


def _any_json(schema: dict[str, Any]) -> None:
    """Any JSON, left out when there is none: the schema ``{}`` (a generator reads
    ``{"default": null}``, or a lone description, as an object). Here: a tool's own
    structured result (e.g. an edit's diff)."""
    schema.pop("default", None)


class ToolResultWire(EventModel):
    content: list[Any]
    details: Any = Field(default=None, json_schema_extra=_any_json)
    terminate: bool | None = None


class ToolExecutionStartEvent(EventModel):
    type: Literal["tool_execution_start"]
    tool_call_id: str
    tool_name: str
    args: Any


class ToolExecutionUpdateEvent(EventModel):
    type: Literal["tool_execution_update"]
    tool_call_id: str
    tool_name: str
    partial_result: ToolResultWire


class ToolExecutionEndEvent(EventModel):
    type: Literal["tool_execution_end"]
    tool_call_id: str
    tool_name: str
    result: ToolResultWire
    is_error: bool


class TurnEndEvent(EventModel):
    type: Literal["turn_end"]
    message: WireMessage
    """The turn's assistant message."""
    tool_results: list[WireMessage]


class TurnEndRefsEvent(EventModel):
    """``turn_end`` in compact form (``compactEvents``): the ``seq`` of each message's
    ``message_end``."""

    type: Literal["turn_end"]
    message_ref: int
    tool_result_refs: list[int]


class AgentEndEvent(EventModel):
    type: Literal["agent_end"]
    messages: list[WireMessage]
    """Every message this run added."""


class AgentEndRefsEvent(EventModel):
    """``agent_end`` in compact form (``compactEvents``)."""

    type: Literal["agent_end"]
    message_refs: list[int]


# ------------------------------------------------------------------ notices


class RetryEvent(EventModel):
    """A transient provider error retried before any output of the reply."""

    type: Literal["retry"]
    attempt: int
    delay_ms: int
    error_message: str


CompactionReason: TypeAlias = Literal["manual", "threshold", "overflow"]


class CompactionStartEvent(EventModel):
    type: Literal["compaction_start"]
    reason: CompactionReason


class CompactionEndEvent(EventModel):
    type: Literal["compaction_end"]
    reason: CompactionReason
    tokens_before: int | None = None
    """Absent when the compaction failed early."""
    tokens_after: int | None = None
    error_message: str | None = None
    will_retry: bool
    aborted: bool


class SessionSaveEvent(EventModel):
    """Saving the session file started failing (``ok: false``) or works again."""

    type: Literal["session_save"]
    ok: bool
    error_message: str | None = None


# ------------------------------------------------------------------ session state


class QueuedText(EventModel):
    id: str
    text: str


class QueueUpdateEvent(EventModel):
    """Both queues as they are now, oldest first."""

    type: Literal["queue_update"]
    steering: list[QueuedText]
    follow_up: list[QueuedText]


class TodoItemWire(EventModel):
    id: str
    content: str
    status: Literal["pending", "in_progress", "completed"]


class TodoUpdateEvent(EventModel):
    """The agent's todo list, whole."""

    type: Literal["todo_update"]
    items: list[TodoItemWire]


class ModeUpdateEvent(EventModel):
    type: Literal["mode_update"]
    mode: Literal["plan", "act"]


# ------------------------------------------------------------------ project context


class ResourcesUpdateEvent(EventModel):
    """The session's project context, skills and templates as loaded again (a file changed
    before a prompt, a reload, a trust decision): ``resources.ResourcesPayload``'s fields."""

    type: Literal["resources_update"]
    cwd: str
    context_files: list[ContextFile]
    system_prompt: PromptFile | None
    append_system_prompt: list[PromptFile]
    skills: list[Skill]
    templates: list[PromptTemplate]
    diagnostics: list[Diagnostic]
    trust: TrustInfo


class ResourceNoticeEvent(EventModel):
    """Something about the user's input for the user, not the model (an unknown ``/name``
    sent as typed, a template given fewer arguments than it uses)."""

    type: Literal["resource_notice"]
    message: str


class SubagentUsage(EventModel):
    """What a ``task`` child spent (docs/subagents.md)."""

    turns: int
    input: int
    output: int
    cache_read: int
    cache_write: int
    reasoning: int = 0
    cost: float


class SubagentUpdateEvent(EventModel):
    """A ``task`` child of this session: announced (``running``, or ``queued`` while it waits
    for a slot) before any of its events, then exactly one terminal state (``completed`` |
    ``failed`` | ``cancelled``) after its last event (docs/subagents.md#what-each-client-shows)."""

    type: Literal["subagent_update"]
    child_session_id: str
    tool_call_id: str
    agent: str
    description: str
    state: Literal["queued", "running", "completed", "failed", "cancelled"]
    usage: SubagentUsage | None = None
    worktree: str | None = None


WireEvent: TypeAlias = (
    AgentStartEvent
    | TurnStartEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
    | TurnEndEvent
    | TurnEndRefsEvent
    | AgentEndEvent
    | AgentEndRefsEvent
    | RetryEvent
    | CompactionStartEvent
    | CompactionEndEvent
    | SessionSaveEvent
    | QueueUpdateEvent
    | TodoUpdateEvent
    | ModeUpdateEvent
    | ResourcesUpdateEvent
    | ResourceNoticeEvent
    | SubagentUpdateEvent
)
"""Every event ``wire.event_wire`` emits (and the compact forms the language server sends)."""
