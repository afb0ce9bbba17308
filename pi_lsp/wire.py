"""Agent / session events → the JSON ``event`` object of a ``pi/event`` notification.

Below both front ends: the language server's ``pi/event``
(docs/protocol.md#3-server--client-notification-pievent) and
``pi-lsp run --json`` use this one mapping. ``message_update`` carries only
``assistantMessageEvent: {type, contentIndex, delta?}`` (``toolcall_end`` adds the parsed
``toolCall``) — never the partial message; every other event carries whole messages in their
wire (camelCase) form. Pure functions over the agent's event types; compaction and retry
events are matched by their ``type``. Must not import pygls, lsprotocol or ``pi_lsp.lsp``.
What each event's JSON is, is declared in ``wire_events.py`` (exported with the protocol
schema); a field added here must be declared there (tests/lsp/test_event_models.py).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from .agent.queue import QueuedMessage
from .agent.types import (
    AgentEndEvent,
    AgentStartEvent,
    AgentToolResult,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from .ai.events import RetryInfo, ToolCallEndEvent

DELTA_TYPES = frozenset(("text_delta", "thinking_delta", "toolcall_delta"))
CONTENT_TYPES = frozenset(
    (
        "text_start",
        "text_delta",
        "text_end",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
    )
)


def jsonable(value: Any) -> Any:
    """Any tool detail / argument as JSON-ready data (unknown objects become strings)."""
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    return to_jsonable_python(value, by_alias=True, exclude_none=True, fallback=repr)


def message_wire(message: Any) -> dict[str, Any]:
    if isinstance(message, BaseModel):
        return message.model_dump(by_alias=True, exclude_none=True, mode="json")
    out = jsonable(message)
    return out if isinstance(out, dict) else {"value": out}


def tool_result_wire(result: AgentToolResult) -> dict[str, Any]:
    out: dict[str, Any] = {"content": [jsonable(block) for block in result.content]}
    if result.details is not None:
        out["details"] = jsonable(result.details)
    if result.terminate is not None:
        out["terminate"] = result.terminate
    return out


def update_wire(event: MessageUpdateEvent) -> dict[str, Any] | None:
    ame = event.assistant_message_event
    kind = ame.type
    if kind not in CONTENT_TYPES:
        return None
    inner: dict[str, Any] = {"type": kind, "contentIndex": ame.content_index}  # type: ignore[union-attr]
    if kind in DELTA_TYPES:
        inner["delta"] = ame.delta  # type: ignore[union-attr]
    elif isinstance(ame, ToolCallEndEvent):
        inner["toolCall"] = message_wire(ame.tool_call)
    return {"type": "message_update", "assistantMessageEvent": inner}


def subagent_wire(event: Any) -> dict[str, Any]:
    """``subagent_update`` (wire_events.SubagentUpdateEvent)."""
    out: dict[str, Any] = {
        "type": "subagent_update",
        "childSessionId": event.child_session_id,
        "toolCallId": event.tool_call_id,
        "agent": event.agent_name,
        "description": event.description,
        "state": event.state,
    }
    if event.usage:
        out["usage"] = event.usage
    if event.worktree:
        out["worktree"] = event.worktree
    return out


def event_wire(event: Any) -> dict[str, Any] | None:
    """The wire ``event`` for an agent or session event; ``None`` for ones not sent."""
    if isinstance(event, MessageUpdateEvent):
        return update_wire(event)
    if isinstance(event, AgentStartEvent | TurnStartEvent):
        return {"type": event.type}
    if isinstance(event, MessageStartEvent):
        start: dict[str, Any] = {"type": event.type, "message": message_wire(event.message)}
        if event.queued_id is not None:
            start["queuedId"] = event.queued_id
            start["deliveredAs"] = event.delivered_as
        return start
    if isinstance(event, MessageEndEvent):
        return {"type": event.type, "message": message_wire(event.message)}
    if isinstance(event, ToolExecutionStartEvent):
        return {
            "type": event.type,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,
            "args": jsonable(event.args),
        }
    if isinstance(event, ToolExecutionUpdateEvent):
        return {
            "type": event.type,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,
            "partialResult": tool_result_wire(event.partial_result),
        }
    if isinstance(event, ToolExecutionEndEvent):
        return {
            "type": event.type,
            "toolCallId": event.tool_call_id,
            "toolName": event.tool_name,
            "result": tool_result_wire(event.result),
            "isError": event.is_error,
        }
    if isinstance(event, TurnEndEvent):
        return {
            "type": event.type,
            "message": message_wire(event.message),
            "toolResults": [message_wire(m) for m in event.tool_results],
        }
    if isinstance(event, AgentEndEvent):
        return {"type": event.type, "messages": [message_wire(m) for m in event.messages]}
    if isinstance(event, RetryInfo):
        return retry_wire(event)
    kind = getattr(event, "type", None)
    if kind == "retry":  # sessions' ProviderRetryEvent: RetryInfo's fields
        return retry_wire(event)
    if kind in ("compaction_start", "compaction_end"):
        return compaction_wire(event)
    if kind == "queue_update":
        return queue_wire(event.steering, event.follow_up)
    if kind == "todo_update":
        return {"type": "todo_update", "items": [item.model_dump() for item in event.items]}
    if kind == "mode_update":
        return {"type": "mode_update", "mode": event.mode}
    if kind == "resources_update":
        payload = event.payload.model_dump(by_alias=True, mode="json")
        return {"type": "resources_update", **payload}
    if kind == "resource_notice":
        return {"type": "resource_notice", "message": event.message}
    if kind == "subagent_update":
        return subagent_wire(event)
    if kind == "session_save":
        out: dict[str, Any] = {"type": "session_save", "ok": event.ok}
        if event.error_message:
            out["errorMessage"] = event.error_message
        return out
    return None


def queued_text(item: QueuedMessage) -> str:
    """The text of a queued message, as a queue UI shows it."""
    content = getattr(item.message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(getattr(block, "text", "") for block in content)


def queue_items_wire(items: list[QueuedMessage]) -> list[dict[str, str]]:
    return [{"id": item.id, "text": queued_text(item)} for item in items]


def queue_wire(steering: list[QueuedMessage], follow_up: list[QueuedMessage]) -> dict[str, Any]:
    """``queue_update {steering: [{id, text}], followUp: [{id, text}]}``."""
    return {
        "type": "queue_update",
        "steering": queue_items_wire(steering),
        "followUp": queue_items_wire(follow_up),
    }


def retry_wire(info: Any) -> dict[str, Any]:
    """A ``RetryInfo`` or a session's ``ProviderRetryEvent``."""
    return {
        "type": "retry",
        "attempt": info.attempt,
        "delayMs": info.delay_ms,
        "errorMessage": info.error_message,
    }


def compaction_wire(event: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": event.type, "reason": getattr(event, "reason", "manual")}
    if event.type == "compaction_end":
        for attr, key in (
            ("tokens_before", "tokensBefore"),
            ("tokens_after", "tokensAfter"),
            ("error_message", "errorMessage"),
            ("will_retry", "willRetry"),
            ("aborted", "aborted"),
        ):
            value = getattr(event, attr, None)
            if value is not None:
                out[key] = value
    return out
