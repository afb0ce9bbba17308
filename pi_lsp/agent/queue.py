"""PendingMessageQueue: the Agent's steering and follow-up queues (pi's ``agent.ts``).

``drain()`` is the single way messages leave a queue for the loop: ``"all"`` empties it,
``"one-at-a-time"`` hands out the oldest message and keeps the rest for later drain points.
Every queued message has an id (``QueuedMessage``) so a UI can show, edit, remove or promote
it before it is delivered; ``drain_items`` tells the caller which ids were delivered.
Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

import uuid
from collections import deque
from dataclasses import dataclass

from .messages import AgentMessage
from .types import QueueMode


def new_queue_id() -> str:
    return uuid.uuid4().hex[:10]


@dataclass(slots=True)
class QueuedMessage:
    id: str
    message: AgentMessage


class PendingMessageQueue:
    __slots__ = ("_items", "mode")

    def __init__(self, mode: QueueMode = "one-at-a-time") -> None:
        self.mode: QueueMode = mode
        self._items: deque[QueuedMessage] = deque()

    def enqueue(self, message: AgentMessage, queue_id: str | None = None) -> str:
        """Queue ``message`` (last); returns its id."""
        item = QueuedMessage(queue_id or new_queue_id(), message)
        self._items.append(item)
        return item.id

    def has_items(self) -> bool:
        return bool(self._items)

    def drain_items(self) -> list[QueuedMessage]:
        """The items due at this drain point (mode-aware); ``[]`` when empty."""
        items = self._items
        if not items:
            return []
        if self.mode == "all":
            drained = list(items)
            items.clear()
            return drained
        return [items.popleft()]

    def drain(self) -> list[AgentMessage]:
        """Take the messages due at this drain point (mode-aware); ``[]`` when empty."""
        return [item.message for item in self.drain_items()]

    def find(self, queue_id: str) -> QueuedMessage | None:
        for item in self._items:
            if item.id == queue_id:
                return item
        return None

    def remove(self, queue_id: str) -> QueuedMessage | None:
        """Take the item with ``queue_id`` out of the queue (``None`` if it is not queued)."""
        item = self.find(queue_id)
        if item is not None:
            self._items.remove(item)
        return item

    def clear(self) -> None:
        self._items.clear()

    def items(self) -> list[QueuedMessage]:
        """A copy of the queued items, oldest first (for UIs; does not drain)."""
        return list(self._items)

    def snapshot(self) -> list[AgentMessage]:
        """A copy of the queued messages, oldest first (for UIs; does not drain)."""
        return [item.message for item in self._items]

    def __len__(self) -> int:
        return len(self._items)
