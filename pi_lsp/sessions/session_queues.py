"""What a front end does to a session's queues and reads of its run, through the session
(a mixin of ``AgentSession``): front ends never reach into the ``Agent``.

Steering is delivered after the current turn's tools finish, a follow-up when the run
would otherwise stop; both persist (``AgentSession._queue_changed``) and every change is one
``queue_update`` event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..agent.messages import AgentMessage
from ..agent.queue import QueuedMessage
from ..ai import Model
from ..ai.thinking_levels import AgentThinkingLevel

if TYPE_CHECKING:
    from ..agent import Agent


class NotQueuedError(LookupError):
    """An id that is not in the session's queues (unknown, or already delivered or
    removed)."""

    def __init__(self, queue_id: str, session_id: str) -> None:
        super().__init__(
            f"id {queue_id!r} is not queued in session {session_id} (unknown, or already "
            "delivered or removed)"
        )
        self.queue_id = queue_id
        self.session_id = session_id


class SessionQueues:
    agent: Agent
    session_id: str

    if TYPE_CHECKING:

        def expand_message(self, message: AgentMessage) -> AgentMessage: ...

    # ------------------------------------------------------------------ queues

    def steer(self, message: AgentMessage, *, expand: bool = True) -> str:
        """Queue ``message`` for the running turn (or the next run); returns its queue id.
        ``/skill:name`` and ``/template`` are expanded (with the resources loaded now) unless
        ``expand`` is false."""
        return self.agent.steer(self.expand_message(message) if expand else message)

    def follow_up(self, message: AgentMessage, *, expand: bool = True) -> str:
        """Queue ``message`` for when the run would otherwise stop; returns its queue id
        (expanded like ``steer``)."""
        return self.agent.follow_up(self.expand_message(message) if expand else message)

    def queue_items(self) -> tuple[list[QueuedMessage], list[QueuedMessage]]:
        """``(steering, follow_ups)``, oldest first."""
        return self.agent.queue_items()

    def has_queued(self) -> bool:
        return self.agent.has_queued_messages()

    def clear_queues(self) -> None:
        self.agent.clear_all_queues()

    def remove_queued(self, queue_id: str) -> QueuedMessage:
        """``NotQueuedError`` when ``queue_id`` is not queued."""
        try:
            return self.agent.remove_queued(queue_id)
        except KeyError:
            raise NotQueuedError(queue_id, self.session_id) from None

    def promote_queued(self, queue_id: str) -> None:
        """A queued follow-up becomes steering ("send now"); ``NotQueuedError`` when not
        queued."""
        try:
            self.agent.promote_queued(queue_id)
        except KeyError:
            raise NotQueuedError(queue_id, self.session_id) from None

    def edit_queued(self, queue_id: str, message: AgentMessage) -> None:
        """Replace a queued message in place; ``NotQueuedError`` when not queued."""
        try:
            self.agent.edit_queued(queue_id, message)
        except KeyError:
            raise NotQueuedError(queue_id, self.session_id) from None

    def take_next_queued(self) -> AgentMessage | None:
        """The oldest queued message (steering first), taken off the queues to start a run
        of its own; the rest stay queued as follow-ups. ``None`` when nothing is queued (a
        front end that drives its runs one prompt at a time: ACP)."""
        if not self.agent.has_queued_messages():
            return None
        steering, follow_ups = self.agent.queue_items()
        items = [*steering, *follow_ups]
        self.agent.clear_all_queues()
        for item in items[1:]:
            self.agent.follow_up(item.message)
        return items[0].message

    # ------------------------------------------------------------------ reads

    @property
    def in_agent_run(self) -> bool:
        """The agent loop itself is running (part of ``is_running``, which also counts the
        session's compactions and retry waits)."""
        return self.agent.is_running

    @property
    def model(self) -> Model:
        return self.agent.state.model

    @property
    def thinking_level(self) -> AgentThinkingLevel:
        return self.agent.state.thinking_level

    @property
    def messages(self) -> list[AgentMessage]:
        """The conversation as the model sees it (read it; change it through the session)."""
        return self.agent.state.messages
