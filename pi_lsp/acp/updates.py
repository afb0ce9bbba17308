"""Agent and session events → ACP ``session/update`` payloads, for one session's live stream.

``LiveUpdates.map(event)`` returns the updates one event becomes, in order (the caller sends
them before looking at the next event, so a prompt's response always follows its updates):

- assistant text / thinking deltas → ``agent_message_chunk`` / ``agent_thought_chunk`` with
  a message id that is a function of the message (``message_id``), the same on reload;
- a tool call → ``tool_call`` ``pending`` while its arguments stream, a ``tool_call_update``
  with title and locations when they are complete, ``in_progress`` when it runs (``bash``:
  the terminal and its output deltas when the client opted in to Zed's terminal extension,
  else the output so far as ``content`` text), then ``completed`` / ``failed`` with its
  content (``tool_view``) — or, for a command left running in the background, still
  ``in_progress`` (``background.BackgroundRelay`` ends it);
- a failed model request → an agent message saying why (the turn still ends normally);
- a queued prompt delivered → ``user_message_chunk``; compaction and retries → a short
  agent message, so the user sees why the turn takes longer.
Imports the SDK's schema, ``wire`` and the event types only.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    SessionInfoUpdate,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)

from ..agent.types import (
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from ..ai.events import (
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ..ai.types import AssistantMessage, ToolCall
from . import tool_view as view

SessionUpdate: TypeAlias = (
    AgentMessageChunk
    | AgentThoughtChunk
    | UserMessageChunk
    | ToolCallStart
    | ToolCallProgress
    | UsageUpdate
    | SessionInfoUpdate
    | AvailableCommandsUpdate
    | ConfigOptionUpdate
)
_IDS = uuid.UUID("6f1d3a52-8c44-4b51-9a0e-5e7c2b1d9f00")


def message_id(session_id: str, message: Any) -> str:
    """A stable id for a message of a session: the same live and when replayed."""
    role = getattr(message, "role", "message")
    stamp = getattr(message, "timestamp", 0)
    return str(uuid.uuid5(_IDS, f"{session_id}/{role}/{stamp}"))


def text_block(text: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=text)


def agent_text(text: str, msg_id: str | None = None) -> AgentMessageChunk:
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=text_block(text), message_id=msg_id
    )


def user_text(text: str, msg_id: str | None = None) -> UserMessageChunk:
    return UserMessageChunk(
        session_update="user_message_chunk", content=text_block(text), message_id=msg_id
    )


def message_text(message: Any) -> str:
    """The text of a user-side message (a string or text blocks)."""
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(t for b in content if isinstance(t := getattr(b, "text", None), str))


def error_text(message: AssistantMessage) -> str:
    return f"\n\n⚠ The model request failed: {message.error_message or 'unknown error'}\n"


@dataclass(slots=True)
class _Call:
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    terminal: str = ""
    """The bash output the client's terminal shows so far."""
    running: bool = False


class LiveUpdates:
    """The live mapping for one session (it remembers the tool calls in flight)."""

    def __init__(self, session_id: str, cwd: Path, terminal: bool = False) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.terminal = terminal
        """The client renders Zed's display-only terminal (``tool_view.wants_terminal``)."""
        self._calls: dict[str, _Call] = {}
        self.old_texts: dict[str, str | None] = {}
        """``write`` calls' replaced text, by tool call id (set by the workspace)."""

    def map(self, event: Any) -> list[SessionUpdate]:
        if isinstance(event, MessageUpdateEvent):
            return self._message_update(event)
        if isinstance(event, MessageStartEvent):
            return self._message_start(event)
        if isinstance(event, MessageEndEvent):
            message = event.message
            if isinstance(message, AssistantMessage) and message.stop_reason == "error":
                return [agent_text(error_text(message), message_id(self.session_id, message))]
            return []
        if isinstance(event, ToolExecutionStartEvent):
            return self._tool_start(event)
        if isinstance(event, ToolExecutionUpdateEvent):
            return self._tool_update(event)
        if isinstance(event, ToolExecutionEndEvent):
            return self._tool_end(event)
        kind = getattr(event, "type", None)
        if kind == "compaction_start":
            return [agent_text("\n\n_Compacting the conversation…_\n\n")]
        if kind == "auto_retry_start":
            return [
                agent_text(
                    f"\n\n_The model request failed ({event.error_message}); retrying "
                    f"({event.attempt}/{event.max_attempts})…_\n\n"
                )
            ]
        return []

    # ------------------------------------------------------------------ messages

    def _message_start(self, event: MessageStartEvent) -> list[SessionUpdate]:
        message = event.message
        if event.queued_id is None or getattr(message, "role", None) != "user":
            return []
        text = message_text(message)
        return [user_text(text, message_id(self.session_id, message))] if text else []

    def _message_update(self, event: MessageUpdateEvent) -> list[SessionUpdate]:
        ame = event.assistant_message_event
        msg_id = message_id(self.session_id, event.message)
        if isinstance(ame, TextDeltaEvent):
            return [agent_text(ame.delta, msg_id)] if ame.delta else []
        if isinstance(ame, ThinkingDeltaEvent):
            if not ame.delta:
                return []
            return [
                AgentThoughtChunk(
                    session_update="agent_thought_chunk",
                    content=text_block(ame.delta),
                    message_id=msg_id,
                )
            ]
        if isinstance(ame, ToolCallStartEvent):
            block = _block(event.message, ame.content_index)
            if block is None or block.id in self._calls:
                return []
            self._calls[block.id] = _Call(block.name)
            return [
                ToolCallStart(
                    session_update="tool_call",
                    tool_call_id=block.id,
                    title=view.title_of(block.name, {}),
                    kind=view.kind_of(block.name),
                    status="pending",
                )
            ]
        if isinstance(ame, ToolCallEndEvent):
            call = ame.tool_call
            args = view.args_dict(call.arguments)
            self._calls[call.id] = _Call(call.name, args)
            return [
                ToolCallProgress(
                    session_update="tool_call_update",
                    tool_call_id=call.id,
                    title=view.title_of(call.name, args),
                    kind=view.kind_of(call.name),
                    locations=view.locations_of(call.name, args, self.cwd),
                    raw_input=args,
                )
            ]
        return []

    # ------------------------------------------------------------------ tool execution

    def _tool_start(self, event: ToolExecutionStartEvent) -> list[SessionUpdate]:
        args = view.args_dict(event.args)
        fresh = event.tool_call_id not in self._calls
        self._calls[event.tool_call_id] = _Call(event.tool_name, args)
        out: list[SessionUpdate] = []
        if fresh:  # a tool call that never streamed (a provider without deltas)
            out.append(
                ToolCallStart(
                    session_update="tool_call",
                    tool_call_id=event.tool_call_id,
                    title=view.title_of(event.tool_name, args),
                    kind=view.kind_of(event.tool_name),
                    status="pending",
                    raw_input=args,
                )
            )
        if event.tool_name == "bash":  # asked first, maybe: running at its first output
            out.append(
                ToolCallProgress(
                    session_update="tool_call_update",
                    tool_call_id=event.tool_call_id,
                    title=view.title_of(event.tool_name, args),
                    kind=view.kind_of(event.tool_name),
                    raw_input=args,
                )
            )
        else:
            out.append(self.running(event.tool_call_id, event.tool_name, args))
        return out

    def running(self, call_id: str, name: str, args: dict[str, Any]) -> ToolCallProgress:
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=call_id,
            status="in_progress",
            title=view.title_of(name, args),
            kind=view.kind_of(name),
            locations=view.locations_of(name, args, self.cwd),
            raw_input=args,
            content=view.start_content(name, call_id, self.terminal) or None,
            field_meta=view.start_meta(name, call_id, self.cwd, self.terminal),
        )

    def _tool_update(self, event: ToolExecutionUpdateEvent) -> list[SessionUpdate]:
        call = self._calls.get(event.tool_call_id)
        if call is None or call.name != "bash":
            return []
        out: list[SessionUpdate] = []
        if not call.running:  # the command started (after its permission question)
            call.running = True
            out.append(self.running(event.tool_call_id, call.name, call.args))
        now = view.result_text(event.partial_result.content)
        if not self.terminal:  # the output so far (a tail window) replaces the content
            if now and now != call.terminal:
                call.terminal = now
                out.append(
                    ToolCallProgress(
                        session_update="tool_call_update",
                        tool_call_id=event.tool_call_id,
                        content=[view.output_text(now)],
                    )
                )
            return out
        delta = view.output_delta(call.terminal, now)
        call.terminal = now
        if delta:
            out.append(
                ToolCallProgress(
                    session_update="tool_call_update",
                    tool_call_id=event.tool_call_id,
                    field_meta=view.output_meta(event.tool_call_id, delta),
                )
            )
        return out

    def _tool_end(self, event: ToolExecutionEndEvent) -> list[SessionUpdate]:
        call = self._calls.pop(event.tool_call_id, None) or _Call(event.tool_name)
        text = view.result_text(event.result.content)
        meta: dict[str, Any] | None = None
        if call.name == "bash" and still_running(event.result.details):
            # a background process: the call stays in progress (``background.BackgroundRelay``
            # sends its output and its end)
            return [
                ToolCallProgress(
                    session_update="tool_call_update",
                    tool_call_id=event.tool_call_id,
                    status="in_progress",
                    content=None if self.terminal else [view.output_text(text)],
                    raw_output={"content": text, "isError": event.is_error},
                )
            ]
        if call.name == "bash" and self.terminal:
            delta = view.output_delta(call.terminal, text)
            meta = {
                **(view.output_meta(event.tool_call_id, delta) if delta else {}),
                **view.exit_meta(event.tool_call_id, event.is_error),
            }
        details = event.result.details
        return [
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=event.tool_call_id,
                status="failed" if event.is_error else "completed",
                locations=view.locations_of(call.name, call.args, self.cwd, details),
                content=view.final_content(
                    call.name,
                    event.tool_call_id,
                    call.args,
                    self.cwd,
                    text,
                    details,
                    event.is_error,
                    self.old_texts.get(event.tool_call_id),
                    self.terminal,
                ),
                raw_output={"content": text, "isError": event.is_error},
                field_meta=meta,
            )
        ]


def still_running(details: Any) -> bool:
    """A tool result about a background process that still runs (``details.background``)."""
    background = details.get("background") if isinstance(details, dict) else None
    return isinstance(background, dict) and background.get("running") is True


def _block(message: Any, index: int) -> ToolCall | None:
    content = getattr(message, "content", None)
    if isinstance(content, list) and 0 <= index < len(content):
        block = content[index]
        if isinstance(block, ToolCall):
            return block
    return None
