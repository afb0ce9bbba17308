"""AssistantMessageEventStream: the async-iterable queue a provider pushes into.

Iteration yields events until (and including) ``done`` / ``error``; ``await stream.result()``
gives the final message. Pushes after completion are ignored. A ``deque`` plus one waiter
future keeps the per-event cost O(1) (pi-ai's array ``shift()`` has a cliff here; we do not).
The producer task that feeds the stream is owned by it (``attach_task``) so it is never
garbage-collected mid-run. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from .events import AssistantMessageEvent
from .types import AssistantMessage


class AssistantMessageEventStream:
    __slots__ = (
        "_done",
        "_ended",
        "_queue",
        "_result",
        "_result_future",
        "_task",
        "_waiter",
        "max_backlog",
    )

    def __init__(self) -> None:
        self._queue: deque[AssistantMessageEvent] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._done = False  # a terminal event was pushed
        self._ended = False  # end() was called: iteration finishes when the queue drains
        self._result: AssistantMessage | None = None
        self._result_future: asyncio.Future[AssistantMessage] | None = None
        self._task: asyncio.Task[Any] | None = None
        self.max_backlog = 0

    # ------------------------------------------------------------------ producer side

    def push(self, event: AssistantMessageEvent) -> None:
        if self._done:
            return
        kind = event.type
        if kind == "done":
            self._done = True
            self._set_result(event.message)  # type: ignore[union-attr]
        elif kind == "error":
            self._done = True
            self._set_result(event.error)  # type: ignore[union-attr]
        queue = self._queue
        queue.append(event)
        if len(queue) > self.max_backlog:
            self.max_backlog = len(queue)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def end(self, result: AssistantMessage | None = None) -> None:
        """Close the stream; ``result`` is used when no terminal event carried one."""
        if result is not None and self._result is None:
            self._set_result(result)
        self._done = True
        self._ended = True
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def attach_task(self, task: asyncio.Task[Any]) -> None:
        """Keep a reference to the producer task for the stream's lifetime."""
        self._task = task

    def _set_result(self, message: AssistantMessage) -> None:
        self._result = message
        future = self._result_future
        if future is not None and not future.done():
            future.set_result(message)

    # ------------------------------------------------------------------ consumer side

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[AssistantMessageEvent]:
        queue = self._queue
        while True:
            if queue:
                event = queue.popleft()
                yield event
                if event.type == "done" or event.type == "error":
                    return
                continue
            if self._done or self._ended:
                return
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            await waiter

    async def result(self) -> AssistantMessage:
        """The final message (``done.message`` / ``error.error`` / ``end(result)``)."""
        if self._result is not None:
            return self._result
        if self._result_future is None:
            self._result_future = asyncio.get_running_loop().create_future()
        return await self._result_future
