"""Session-level events, emitted by ``AgentSession`` alongside the agent's own events.

``compaction_start{reason}`` / ``compaction_end{reason, tokensBefore, tokensAfter, result,
aborted, willRetry, errorMessage?}`` (reason: ``manual`` | ``threshold`` | ``overflow``), and
Pi's session-level ``auto_retry_start`` / ``auto_retry_end``, and ``queue_update`` (both
queues, after every change), ``todo_update`` and ``mode_update``. Slotted dataclasses like the
agent events; the LSP layer maps them to the wire.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ..agent.queue import QueuedMessage
from ..agent.types import AgentEvent
from ..resources import ResourcesPayload
from ..tools.todo import TodoItem

if TYPE_CHECKING:
    from .compaction.summarize import CompactionResult

CompactionReason: TypeAlias = Literal["manual", "threshold", "overflow"]

OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)


@dataclass(slots=True)
class CompactionStartEvent:
    reason: CompactionReason
    type: Literal["compaction_start"] = "compaction_start"


@dataclass(slots=True)
class CompactionEndEvent:
    reason: CompactionReason
    tokens_before: int | None = None
    tokens_after: int | None = None
    error_message: str | None = None
    will_retry: bool = False
    aborted: bool = False
    result: CompactionResult | None = None
    type: Literal["compaction_end"] = "compaction_end"


@dataclass(slots=True)
class SessionSaveEvent:
    """Saving the session file started failing (``ok=False``, once per failure spell) or
    works again (``ok=True``). Failed writes are kept and retried with the next append."""

    ok: bool
    error_message: str | None = None
    path: str | None = None
    type: Literal["session_save"] = "session_save"


@dataclass(slots=True)
class AutoRetryStartEvent:
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: Literal["auto_retry_start"] = "auto_retry_start"


@dataclass(slots=True)
class AutoRetryEndEvent:
    success: bool
    attempt: int
    final_error: str | None = None
    type: Literal["auto_retry_end"] = "auto_retry_end"


@dataclass(slots=True)
class QueueUpdateEvent:
    """Either queue changed (enqueue, delivery, edit, removal, promotion, clear, restore):
    both queues as they are now, oldest first."""

    steering: list[QueuedMessage]
    follow_up: list[QueuedMessage]
    type: Literal["queue_update"] = "queue_update"


@dataclass(slots=True)
class ProviderRetryEvent:
    """The provider failed transiently before any output and retries the request after
    ``delay_ms`` (``StreamOptions.on_retry``, told to the session's listeners)."""

    attempt: int
    delay_ms: int
    error_message: str
    type: Literal["retry"] = "retry"


@dataclass(slots=True)
class TodoUpdateEvent:
    """The ``todo`` tool wrote a new list (the whole of it)."""

    items: list[TodoItem]
    type: Literal["todo_update"] = "todo_update"


@dataclass(slots=True)
class ModeUpdateEvent:
    """The session's mode changed (``plan`` | ``act``)."""

    mode: Literal["plan", "act"]
    type: Literal["mode_update"] = "mode_update"


@dataclass(slots=True)
class ResourcesUpdateEvent:
    """The session's project resources were loaded again (a file changed, a reload, a trust
    decision): what is loaded now (docs/context.md)."""

    payload: ResourcesPayload
    type: Literal["resources_update"] = "resources_update"


@dataclass(slots=True)
class ResourceNoticeEvent:
    """Something the user should see about their input, not the model: an unknown ``/name``
    sent as typed, a template given too few arguments, a skill that cannot be read."""

    message: str
    type: Literal["resource_notice"] = "resource_notice"


@dataclass(slots=True)
class SubagentUpdateEvent:
    """A ``task`` child of this session started or changed state (docs/subagents.md): an
    upsert keyed by ``child_session_id``; ``running`` first, then exactly one terminal state
    (``completed`` | ``failed`` | ``cancelled``)."""

    child_session_id: str
    tool_call_id: str
    agent_name: str
    description: str
    state: Literal["queued", "running", "completed", "failed", "cancelled"]
    usage: dict[str, Any] | None = None
    """``{turns, input, output, cacheRead, cacheWrite, cost}`` (terminal states)."""
    worktree: str | None = None
    type: Literal["subagent_update"] = "subagent_update"


SessionOnlyEvent: TypeAlias = (
    CompactionStartEvent
    | CompactionEndEvent
    | AutoRetryStartEvent
    | AutoRetryEndEvent
    | QueueUpdateEvent
    | SessionSaveEvent
    | TodoUpdateEvent
    | ModeUpdateEvent
    | ProviderRetryEvent
    | ResourcesUpdateEvent
    | ResourceNoticeEvent
    | SubagentUpdateEvent
)
SessionEvent: TypeAlias = AgentEvent | SessionOnlyEvent
