"""AssistantMessageEventStream: the async-iterable queue a provider pushes into.

Iteration yields events until (and including) ``done`` / ``error``; ``await stream.result()``
gives the final message. Pushes after completion are ignored. A ``deque`` plus one waiter
future keeps the per-event cost O(1) (pi-ai's array ``shift()`` has a cliff here; we do not).
The producer task that feeds the stream is owned by it (``attach_task``) so it is never
garbage-collected mid-run. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from inspect import isawaitable
from types import CoroutineType
from typing import Any

from .events import AssistantMessageEvent
from .types import AssistantMessage

_Future = asyncio.Future  # direct construction: one Python frame less than loop.create_future()
_running_loop = asyncio.get_running_loop
_current_task = asyncio.current_task

DirectHandler = Callable[[AssistantMessageEvent], object]
"""See ``AssistantMessageEventStream.direct``: handles one content event, returns ``None`` or
an awaitable the consumer must await before its next event."""


class Handover:
    """What a ``direct`` handler left for the consumer: an awaitable to finish (a coroutine
    that suspended, with what it yielded) or an exception it raised. The consumer awaits it,
    in order, before its next event. Only consumers that set ``direct`` ever receive one."""

    __slots__ = ("awaitable", "coro", "error", "finished", "yielded")
    type = "handover"

    def __init__(
        self,
        *,
        coro: Coroutine[Any, Any, Any] | None = None,
        yielded: Any = None,
        awaitable: Awaitable[Any] | None = None,
        error: BaseException | None = None,
    ) -> None:
        self.coro = coro
        self.yielded = yielded
        self.awaitable = awaitable
        self.error = error
        self.finished = False

    def __await__(self) -> Generator[Any, Any, None]:
        try:
            if self.error is not None:
                error, self.error = self.error, None
                raise error
            if self.awaitable is not None:
                yield from self.awaitable.__await__()
                return
            coro, value = self.coro, self.yielded
            assert coro is not None
            while True:  # the rest of ``await coro``, in the consumer's task
                try:
                    sent = yield value
                except BaseException as exc:  # the consumer's cancellation reaches the coroutine
                    try:
                        value = coro.throw(exc)
                    except StopIteration:
                        return
                    continue
                try:
                    value = coro.send(sent)
                except StopIteration:
                    return
        finally:
            self.finished = True

    def abandon(self) -> None:
        """The consumer stopped (cancelled) before awaiting this: cancel what was started,
        as if the consumer had been cancelled while awaiting it."""
        if self.finished:
            return
        self.finished = True
        self.error = None
        if self.coro is not None:
            try:
                self.coro.throw(asyncio.CancelledError())
            except BaseException:
                return
            self.coro.close()  # it awaited again while cancelled: stop it there
        elif isinstance(self.awaitable, asyncio.Future):
            self.awaitable.cancel()


# Making the consumer's task the current one while ``direct`` runs (as an eager task does):
# 3.12+ have ``_swap_current_task``; 3.11 keeps the current task per loop in this dict, which
# ``asyncio.current_task`` and ``_enter_task`` / ``_leave_task`` read and write (the dict
# operations inline here cost less than those calls, once per streamed chunk).
_swap_current_task: Callable[[Any, Any], Any] | None = getattr(
    asyncio.tasks, "_swap_current_task", None
)
_current_tasks: dict[Any, Any] = (
    getattr(asyncio.tasks, "_current_tasks", {}) if _swap_current_task is None else {}
)


def _run_direct(
    direct: DirectHandler,
    event: AssistantMessageEvent,
    loop: asyncio.AbstractEventLoop | None,
    owner: asyncio.Task[Any] | None,
) -> Handover | None:
    """Run ``direct`` on ``event`` now, as the consumer's task; ``None`` when it finished
    without suspending. While the handler runs, ``current_task()`` is
    the consumer's (as for an eager task), so a timeout, task group or cancel scope the
    handler opens belongs to the task that resumes it if it suspends, never to the producer."""
    swap = _swap_current_task
    if owner is None:
        running: Any = owner
    elif swap is not None:
        running = swap(loop, owner)
    else:
        tasks = _current_tasks
        running = tasks.get(loop)
        if running is not owner:
            tasks[loop] = owner
    try:
        result = direct(event)
        if result is None:
            return None
        if result.__class__ is CoroutineType:
            coro: Any = result
            # ``coro.send(None)`` until it suspends; iterating instead of catching the final
            # StopIteration skips building that exception (≈ 0.15 µs per chunk)
            for yielded in coro.__await__():
                return Handover(coro=coro, yielded=yielded)
            return None
        if isawaitable(result):
            return Handover(awaitable=result)
        return None
    except BaseException as exc:  # delivered to the consumer, never to the producer
        return Handover(error=exc)
    finally:
        if running is not owner:
            if swap is not None:
                swap(loop, running)
            elif running is None:
                _current_tasks.pop(loop, None)
            else:
                _current_tasks[loop] = running


_NOT_DIRECT = frozenset(("start", "done", "error"))
"""What ``direct`` never handles: the consumer's own task takes these."""


class AssistantMessageEventStream:
    """One assistant response as an async-iterable queue (a single consumer).

    ``push`` hands an event straight to a waiting consumer (resolving its future with the
    event) or queues it; ``__anext__`` is a plain method returning that future, so a consumer
    costs one future per event and no generator frames (the agent loop's hot path).
    """

    __slots__ = (
        "_direct",
        "_direct_loop",
        "_direct_task",
        "_done",
        "_ended",
        "_finished",
        "_handover",
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
        self._handover: Handover | None = None
        self._direct: DirectHandler | None = None
        self._direct_task: asyncio.Task[Any] | None = None
        self._direct_loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ producer side

    def push(self, event: AssistantMessageEvent) -> None:
        direct = self._direct
        if direct is not None:  # the hot path: a content chunk while the consumer waits
            waiter = self._waiter
            if (
                waiter is not None
                and event.type not in _NOT_DIRECT
                and not self._done
                and not waiter.done()
            ):
                self._waiter = None  # a push from inside the handler queues
                handover = _run_direct(direct, event, self._direct_loop, self._direct_task)
                if handover is None:  # handled: the consumer keeps waiting
                    self._waiter = waiter
                    return
                self._handover = handover
                waiter.set_result(handover)  # type: ignore[arg-type]  # direct consumers
                return
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

    @property
    def direct(self) -> DirectHandler | None:
        """A consumer's handler for content events (everything but ``start`` / ``done`` /
        ``error``), set from the consumer's own task (the agent loop sets it). While that task
        waits for the next event, ``push`` runs the handler at once, in order, as that task
        (``current_task()`` is the consumer's meanwhile), instead of waking the task for each
        chunk: half the event-loop hand-offs per chunk. If the handler's awaitable suspends
        or it raises, the consumer receives a ``Handover`` to await, and events pushed
        meanwhile queue as usual. The producer never sees the handler's errors."""
        return self._direct

    @direct.setter
    def direct(self, handler: DirectHandler | None) -> None:
        """Set by the consumer, from its own task (see the getter)."""
        self._direct = handler
        self._direct_task = None
        self._direct_loop = None
        if handler is not None:
            with contextlib.suppress(RuntimeError):  # no running loop: no task to act as
                task = _current_task()
                if task is not None:
                    self._direct_task = task
                    self._direct_loop = task.get_loop()

    def release_direct(self) -> None:
        """The direct consumer is done: no more ``direct`` calls; a ``Handover`` it never
        awaited (it was cancelled first) is abandoned."""
        self.direct = None
        handover, self._handover = self._handover, None
        if handover is not None:
            handover.abandon()

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
