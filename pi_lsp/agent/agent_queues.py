"""The steering and follow-up queues of an ``Agent`` (a mixin of ``agent.py``).

Pi's two queues: steering is injected after the current turn's tools finish, a follow-up
runs only when the agent would otherwise stop. Every change (enqueue, delivery, edit,
removal, promotion, clear) calls ``on_queue_change``, from which a host shows and persists
them. Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Literal, TypeAlias

from .messages import AgentMessage, user_message
from .queue import PendingMessageQueue, QueuedMessage
from .types import QueueMode

logger = logging.getLogger("pi_lsp.agent.agent")

QueueKind: TypeAlias = Literal["steer", "followUp"]


class AgentQueues:
    def __init__(self, steering_mode: QueueMode, follow_up_mode: QueueMode) -> None:
        self._steering = PendingMessageQueue(steering_mode)
        self._follow_ups = PendingMessageQueue(follow_up_mode)
        self.on_queue_change: Callable[[], None] | None = None
        """Called (synchronously) after every change of either queue: enqueue, delivery,
        edit, removal, promotion, clear. A host shows and persists the queues from it."""
        self._delivering: dict[int, tuple[str, QueueKind]] = {}
        """Queued messages handed to the loop, by identity, until their ``message_start``."""

    @property
    def steering_mode(self) -> QueueMode:
        return self._steering.mode

    @steering_mode.setter
    def steering_mode(self, mode: QueueMode) -> None:
        self._steering.mode = mode

    @property
    def follow_up_mode(self) -> QueueMode:
        return self._follow_ups.mode

    @follow_up_mode.setter
    def follow_up_mode(self, mode: QueueMode) -> None:
        self._follow_ups.mode = mode

    @property
    def queued_steering(self) -> list[AgentMessage]:
        return self._steering.snapshot()

    @property
    def queued_follow_ups(self) -> list[AgentMessage]:
        return self._follow_ups.snapshot()

    def steer(self, message: str | AgentMessage) -> str:
        """Queue a message to be injected after the current turn's tools finish; returns
        its queue id."""
        queue_id = self._steering.enqueue(
            user_message(message) if isinstance(message, str) else message
        )
        self._queue_changed()
        return queue_id

    def follow_up(self, message: str | AgentMessage) -> str:
        """Queue a message to run only when the agent would otherwise stop; returns its id."""
        queue_id = self._follow_ups.enqueue(
            user_message(message) if isinstance(message, str) else message
        )
        self._queue_changed()
        return queue_id

    def clear_steering_queue(self) -> None:
        self._steering.clear()
        self._queue_changed()

    def clear_follow_up_queue(self) -> None:
        self._follow_ups.clear()
        self._queue_changed()

    def clear_all_queues(self) -> None:
        self._steering.clear()
        self._follow_ups.clear()
        self._queue_changed()

    def has_queued_messages(self) -> bool:
        return self._steering.has_items() or self._follow_ups.has_items()

    def queue_items(self) -> tuple[list[QueuedMessage], list[QueuedMessage]]:
        """``(steering, follow_ups)``: the queued items with their ids, oldest first."""
        return self._steering.items(), self._follow_ups.items()

    def remove_queued(self, queue_id: str) -> QueuedMessage:
        """Take a queued message out of its queue; ``KeyError`` when it is not queued."""
        item = self._steering.remove(queue_id) or self._follow_ups.remove(queue_id)
        if item is None:
            raise KeyError(queue_id)
        self._queue_changed()
        return item

    def edit_queued(self, queue_id: str, message: AgentMessage) -> None:
        """Replace the text of a queued message in place (same id, same position)."""
        item = self._steering.find(queue_id) or self._follow_ups.find(queue_id)
        if item is None:
            raise KeyError(queue_id)
        item.message = message
        self._queue_changed()

    def promote_queued(self, queue_id: str) -> None:
        """A queued follow-up becomes steering (last in that queue): "send now"."""
        if self._steering.find(queue_id) is not None:
            return self._queue_changed()
        item = self._follow_ups.remove(queue_id)
        if item is None:
            raise KeyError(queue_id)
        self._steering.enqueue(item.message, item.id)
        self._queue_changed()

    def restore_queues(
        self, steering: Sequence[QueuedMessage], follow_ups: Sequence[QueuedMessage]
    ) -> None:
        """Put saved queues back (a resumed session); no change notification."""
        self._steering.clear()
        self._follow_ups.clear()
        for item in steering:
            self._steering.enqueue(item.message, item.id)
        for item in follow_ups:
            self._follow_ups.enqueue(item.message, item.id)

    def _queue_changed(self) -> None:
        hook = self.on_queue_change
        if hook is not None:
            try:
                hook()
            except Exception:
                logger.exception("queue change hook failed")

    def _deliver(self, queue: PendingMessageQueue, kind: QueueKind) -> list[AgentMessage]:
        """Drain ``queue`` for the loop, remembering which queued ids are being delivered."""
        items = queue.drain_items()
        if not items:
            return []
        for item in items:
            self._delivering[id(item.message)] = (item.id, kind)
        self._queue_changed()
        return [item.message for item in items]
