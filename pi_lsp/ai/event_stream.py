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
from typing import Any

from .events import AssistantMessageEvent
from .types import AssistantMessage

_Future = asyncio.Future  # direct construction: one Python frame less than loop.create_future()
_running_loop = asyncio.get_running_loop


class AssistantMessageEventStream:
    """One assistant response as an async-iterable queue (a single consumer).

    ``push`` hands an event straight to a waiting consumer (resolving its future with the
    event) or queues it; ``__anext__`` is a plain method returning that future, so a consumer
    costs one future per event and no generator frames (the agent loop's hot path).
    """

    __slots__ = (
        "_done",
        "_ended",
        "_finished",
        "_queue",
        "_result",
        "_result_future",
        "_task",
        "_waiter",
        "max_backlog",
    )

    def __init__(self) -> None:
        self._queue: deque[AssistantMessageEvent] = deque()
        self._waiter: asyncio.Future[AssistantMessageEvent] | None = None
        self._done = False  # a terminal event was pushed
        self._ended = False  # end() was called: iteration finishes when the queue drains
        self._finished = False  # the consumer was given the terminal event
        self._result: AssistantMessage | None = None
        self._result_future: asyncio.Future[AssistantMessage] | None = None
        self._task: asyncio.Task[Any] | None = None
        self.max_backlog = 0
        """Most events pushed and not yet taken by the consumer (a benchmark statistic)."""

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
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # not cancelled: hand the event over directly
                if kind == "done" or kind == "error":
                    self._finished = True
                waiter.set_result(event)
                if self.max_backlog < 1:
                    self.max_backlog = 1
                return
        queue = self._queue
        queue.append(event)
        if len(queue) > self.max_backlog:
            self.max_backlog = len(queue)

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
                waiter.set_exception(StopAsyncIteration())

    def attach_task(self, task: asyncio.Task[Any]) -> None:
        """Keep a reference to the producer task for the stream's lifetime."""
        self._task = task

    def _set_result(self, message: AssistantMessage) -> None:
        self._result = message
        future = self._result_future
        if future is not None and not future.done():
            future.set_result(message)

    # ------------------------------------------------------------------ consumer side

    def __aiter__(self) -> AssistantMessageEventStream:
        return self

    def __anext__(self) -> asyncio.Future[AssistantMessageEvent]:
        """The next event (iteration stops after ``done`` / ``error`` or at ``end()``)."""
        future: asyncio.Future[AssistantMessageEvent] = _Future(loop=_running_loop())
        queue = self._queue
        if not queue and not self._done and not self._ended:  # the usual case: wait
            self._waiter = future
        elif self._finished:
            future.set_exception(StopAsyncIteration())
        elif queue:
            event = queue.popleft()
            kind = event.type
            if kind == "done" or kind == "error":
                self._finished = True
            future.set_result(event)
        else:  # ended (or done) with nothing queued
            self._finished = True
            future.set_exception(StopAsyncIteration())
        return future

    async def result(self) -> AssistantMessage:
        """The final message (``done.message`` / ``error.error`` / ``end(result)``)."""
        if self._result is not None:
            return self._result
        if self._result_future is None:
            self._result_future = asyncio.get_running_loop().create_future()
        return await self._result_future
