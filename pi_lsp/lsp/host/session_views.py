"""Read-outs and queue edits of one served session, in the ``pi/*`` wire shapes:
``pi/state``, ``pi/resumeSession``'s transcript, ``pi/queue``."""

from __future__ import annotations

from typing import Any

from ...agent.messages import user_message
from ...sessions.agent_session import AgentSession
from ...sessions.session_queues import NotQueuedError
from ...wire import message_wire, queue_wire
from ..protocol.models import (
    PendingPermission,
    QueueResult,
    StateResult,
    SubagentSummary,
    UsageTotals,
)


def _subagents(session: AgentSession) -> list[SubagentSummary]:
    live = getattr(session, "subagents", None)
    out = []
    for record in session.subagents_recorded():
        summary = SubagentSummary.model_validate(record)
        running = live is not None and live.get(summary.child_session_id) is not None
        if summary.state in ("queued", "running") and not running:
            summary.state = "disconnected"
        out.append(summary)
    return out


def state_result(
    session: AgentSession,
    *,
    pending_permissions: list[dict[str, Any]],
    forked_from: str | None,
    **more: Any,
) -> StateResult:
    """``more``: the other ``StateResult`` fields (plan mode, todo list, questions)."""
    model = session.model
    usage = session.usage_totals()
    steering, follow_ups = session.queue_items()
    return StateResult(
        session_id=session.session_id,
        is_streaming=session.is_running,
        model=message_wire(model) if model is not None else None,
        thinking_level=session.thinking_level,
        message_count=len(session.messages),
        pending_steering=len(steering),
        pending_follow_up=len(follow_ups),
        pending_permissions=[PendingPermission.model_validate(p) for p in pending_permissions],
        usage=UsageTotals(
            input=usage.input,
            output=usage.output,
            cache_read=usage.cache_read,
            cache_write=usage.cache_write,
            cost=usage.cost,
            reasoning=usage.reasoning,
            children=None
            if usage.children is None
            else UsageTotals(
                input=usage.children.input,
                output=usage.children.output,
                cache_read=usage.children.cache_read,
                cache_write=usage.children.cache_write,
                cost=usage.children.cost,
                reasoning=usage.children.reasoning,
            ),
        ),
        subagents=_subagents(session),
        context_tokens=session.context_tokens(),
        context_window=model.context_window if model is not None else None,
        save_error=session.persist_error,
        forked_from=forked_from,
        **more,
    )


def transcript(session: AgentSession) -> tuple[list[dict[str, Any]], list[str | None]]:
    """The transcript in wire form, with each message's session-file entry id."""
    ids: dict[int, str] = {}
    for entry in session.tree.get_branch():
        message = getattr(entry, "message", None)
        if message is not None:
            ids[id(message)] = entry.id
    msgs = session.messages
    return [message_wire(m) for m in msgs], [ids.get(id(m)) for m in msgs]


def queue_view(session: AgentSession) -> QueueResult:
    event = session.queue_event()
    wire = queue_wire(event.steering, event.follow_up)
    return QueueResult.model_validate({"steering": wire["steering"], "followUp": wire["followUp"]})


def queue_op(session: AgentSession, op: str, queue_id: str | None, text: str | None) -> QueueResult:
    """``pi/queue``: one edit of the visible queue (``NotQueuedError`` for an id that is not
    queued); returns both queues after it. Every op sends one ``queue_update``."""
    if op == "clear":
        session.clear_queues()
    elif queue_id is None:
        raise ValueError(f"`id` is required for op {op!r}")
    elif op == "remove":
        session.remove_queued(queue_id)
    elif op == "promote":
        session.promote_queued(queue_id)
    elif op == "edit":
        if text is None:
            raise ValueError("`text` is required for op 'edit'")
        steering, follow_ups = session.queue_items()
        item = next((i for i in (*steering, *follow_ups) if i.id == queue_id), None)
        if item is None:
            raise NotQueuedError(queue_id, session.session_id)
        content = getattr(item.message, "content", None)
        blocks = content if isinstance(content, list) else []
        images = [b for b in blocks if getattr(b, "type", None) == "image"]
        session.edit_queued(queue_id, user_message(text, images))
    return queue_view(session)
