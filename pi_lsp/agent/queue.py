"""PendingMessageQueue: the Agent's steering and follow-up queues (pi's ``agent.ts``).

``drain()`` is the single way messages leave a queue: ``"all"`` empties it, ``"one-at-a-time"``
hands out the oldest message and keeps the rest for later drain points.
Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

from collections import deque

from .messages import AgentMessage
from .types import QueueMode


class PendingMessageQueue:
    __slots__ = ("_messages", "mode")

    def __init__(self, mode: QueueMode = "one-at-a-time") -> None:
        self.mode: QueueMode = mode
        self._messages: deque[AgentMessage] = deque()

    def enqueue(self, message: AgentMessage) -> None:
        self._messages.append(message)

    def has_items(self) -> bool:
        return bool(self._messages)

    def drain(self) -> list[AgentMessage]:
        """Take the messages due at this drain point (mode-aware); ``[]`` when empty."""
        messages = self._messages
        if not messages:
            return []
        if self.mode == "all":
            drained = list(messages)
            messages.clear()
            return drained
        return [messages.popleft()]

    def clear(self) -> None:
        self._messages.clear()

    def snapshot(self) -> list[AgentMessage]:
        """A copy of the queued messages, oldest first (for UIs; does not drain)."""
        return list(self._messages)

    def __len__(self) -> int:
        return len(self._messages)
