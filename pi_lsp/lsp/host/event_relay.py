"""A session's events → the editor: ``pi/event`` on its channel, work-done progress, plain
answers for clients that show no events, and the errors a user must see as messages.

Driven by the typed session events (``agent.types``, ``sessions.events``); the JSON is made
once, by ``wire.event_wire``, only to be sent. With ``compactEvents`` a ``turn_end`` /
``agent_end`` names the messages the client already has (the ``seq`` of their
``message_end``) instead of repeating them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types

from ...agent.types import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    ToolExecutionEndEvent,
    TurnEndEvent,
)
from ...ai import AssistantMessage
from ...sessions.events import CompactionEndEvent, SessionSaveEvent
from ...wire import event_wire
from ..bridge import ClientBridge
from .channel import EventChannel
from .plain_answers import PlainAnswers
from .progress import RunProgress


class EventRelay:
    def __init__(
        self,
        channel: EventChannel,
        bridge: ClientBridge,
        *,
        compact: bool,
        plain: PlainAnswers | None,
        on_bash_done: Callable[[str], None],
        message_count: Callable[[], int] = lambda: 0,
    ) -> None:
        self.channel = channel
        self.bridge = bridge
        self.compact = compact
        self.plain = plain
        """Final answers as messages, for a client that shows no ``pi/event``."""
        self.progress: RunProgress | None = None
        """The running run's work-done progress."""
        self._on_bash_done = on_bash_done
        self._sent_at: dict[int, int] = {}
        """``id(message)`` → the ``seq`` of the ``message_end`` that carried it (this run)."""
        self._message_count = message_count
        self.run_start: tuple[int, int] | None = None
        """The last run's start: the ``seq`` before its ``agent_start`` and how many messages
        the transcript had then (a client attaching mid-run replays from there)."""

    def __call__(self, event: Any) -> None:
        wire = event_wire(event)
        if wire is None:
            return
        if self.plain is not None:
            self.plain.on_event(event)
        if self.compact:
            wire = self._compacted(event, wire)
        if isinstance(event, AgentStartEvent):
            self.channel.flush()  # a merged delta still pending belongs before the run
            self.run_start = (self.channel.seq, self._message_count())
        self.channel.publish(wire)
        if self.progress is not None:
            self.progress.on_event(event)
        if isinstance(event, MessageEndEvent):
            self._sent_at[id(event.message)] = self.channel.seq
            self._model_error(event.message)
        elif isinstance(event, ToolExecutionEndEvent) and event.tool_name == "bash":
            self._on_bash_done(event.tool_call_id)
        elif isinstance(event, AgentEndEvent):
            self._sent_at.clear()
        elif isinstance(event, SessionSaveEvent) and not event.ok:  # once per failure spell
            self.bridge.show_message(
                types.MessageType.Warning,
                f"pi: this session cannot be saved ({event.error_message}). The "
                "conversation goes on and pi keeps trying to save it; check the disk space "
                "and permissions of the data directory.",
            )
        elif isinstance(event, CompactionEndEvent) and event.error_message:
            self.bridge.show_message(
                types.MessageType.Warning, f"pi: compaction failed: {event.error_message}"
            )

    def _model_error(self, message: Any) -> None:
        if isinstance(message, AssistantMessage) and message.stop_reason == "error":
            self.bridge.show_message(
                types.MessageType.Error, f"pi: {message.error_message or 'model error'}"
            )

    def _compacted(self, event: Any, wire: dict[str, Any]) -> dict[str, Any]:
        """The compact form of an event whose messages the client already has (the full form
        when any of them was not sent)."""
        sent = self._sent_at
        if isinstance(event, MessageEndEvent) and isinstance(event.message, AssistantMessage):
            message = dict(wire["message"])
            message["content"] = [_streamed(block) for block in message.get("content", [])]
            return {**wire, "message": message}
        if isinstance(event, TurnEndEvent):
            refs = [sent.get(id(m)) for m in (event.message, *event.tool_results)]
            if None in refs:
                return wire
            return {"type": "turn_end", "messageRef": refs[0], "toolResultRefs": refs[1:]}
        if isinstance(event, AgentEndEvent):
            refs = [sent.get(id(m)) for m in event.messages]
            if None in refs:
                return wire
            return {"type": "agent_end", "messageRefs": refs}
        return wire


def _streamed(block: Any) -> Any:
    """A text or thinking block the client already has from its deltas: its text is left
    out (``streamed: true``); other blocks are sent whole."""
    if not isinstance(block, dict):
        return block
    if block.get("type") == "text":
        return {"type": "text", "streamed": True}
    if block.get("type") == "thinking":
        return {"type": "thinking", "streamed": True}
    return block
