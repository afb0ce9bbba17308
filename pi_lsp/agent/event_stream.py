"""``agent_loop()`` / ``agent_loop_continue()``: the loop as an async-iterable event stream.

Pi's ``agentLoop`` returns an ``EventStream<AgentEvent, AgentMessage[]>`` that completes at
``agent_end`` and whose ``result()`` is ``agent_end.messages``. The run is a background task
owned by the stream. Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Coroutine, Sequence
from typing import Any

from ..ai import AbortSignal
from .loop import check_can_continue, run_agent_loop, run_agent_loop_continue
from .messages import AgentMessage
from .types import AgentContext, AgentEvent, AgentLoopConfig, StreamFn


class AgentEventStream:
    """Events of one run, in order; iteration stops after ``agent_end``."""

    __slots__ = ("_closed", "_error", "_queue", "_result", "_task", "_waiter")

    def __init__(self) -> None:
        self._queue: deque[AgentEvent] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._closed = False
        self._error: BaseException | None = None
        self._result: asyncio.Future[list[AgentMessage]] = (
            asyncio.get_running_loop().create_future()
        )
        self._task: asyncio.Task[None] | None = None

    def push(self, event: AgentEvent) -> None:
        if self._closed:
            return
        self._queue.append(event)
        if event.type == "agent_end" and not self._result.done():
            self._result.set_result(event.messages)
        self._wake()

    def end(self, error: BaseException | None = None) -> None:
        self._closed = True
        if error is not None and not self._result.done():
            self._error = error
            self._result.set_exception(error)
        self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def __aiter__(self) -> AsyncIterator[AgentEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[AgentEvent]:
        while True:
            if self._queue:
                event = self._queue.popleft()
                yield event
                if event.type == "agent_end":
                    return
                continue
            if self._closed:
                if self._error is not None:
                    raise self._error
                return
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter

    async def result(self) -> list[AgentMessage]:
        """``agent_end.messages`` (raises what the loop raised, if it broke its contract)."""
        return await asyncio.shield(self._result)

    def _start(self, coro: Coroutine[Any, Any, list[AgentMessage]]) -> None:
        async def run() -> None:
            try:
                await coro
            except Exception as exc:
                self.end(exc)
            else:
                self.end()

        self._task = asyncio.get_running_loop().create_task(run())


def agent_loop(
    prompts: Sequence[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    """Start ``run_agent_loop`` in the background and return its event stream."""
    stream = AgentEventStream()
    stream._start(run_agent_loop(prompts, context, config, stream.push, signal, stream_fn))
    return stream


def agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> AgentEventStream:
    """Like ``agent_loop`` without a prompt; raises ``ValueError`` at once (before any event)."""
    check_can_continue(context)
    stream = AgentEventStream()
    stream._start(run_agent_loop_continue(context, config, stream.push, signal, stream_fn))
    return stream
