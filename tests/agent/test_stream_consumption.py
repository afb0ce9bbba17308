"""The assistant event stream as the loop consumes it (hand-off, queueing, end, cancel)."""

from __future__ import annotations

import asyncio

import pytest

from pi_lsp.ai import (
    AssistantMessage,
    AssistantMessageEventStream,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
)


def _msg() -> AssistantMessage:
    return AssistantMessage()


async def test_events_pushed_before_iteration_are_queued_in_order() -> None:
    stream = AssistantMessageEventStream()
    m = _msg()
    stream.push(StartEvent(m))
    stream.push(TextDeltaEvent(0, "a", m))
    stream.push(DoneEvent("stop", m))
    stream.push(TextDeltaEvent(0, "ignored after done", m))
    kinds = [e.type async for e in stream]
    assert kinds == ["start", "text_delta", "done"]
    assert stream.max_backlog == 3
    assert await stream.result() is m
    assert [e.type async for e in stream] == []  # exhausted


async def test_a_waiting_consumer_gets_each_event_handed_over() -> None:
    stream = AssistantMessageEventStream()
    m = _msg()
    seen: list[str] = []
    waiting = asyncio.Event()

    async def consume() -> None:
        async for event in stream:
            seen.append(event.type)
            waiting.set()

    task = asyncio.ensure_future(consume())
    await asyncio.sleep(0)  # the consumer parks on its first __anext__
    stream.push(StartEvent(m))
    await waiting.wait()
    stream.push(ErrorEvent("error", m))
    await task
    assert seen == ["start", "error"]
    assert stream.max_backlog == 1


async def test_end_without_a_terminal_event_stops_a_waiting_consumer() -> None:
    stream = AssistantMessageEventStream()
    m = _msg()
    result = asyncio.ensure_future(stream.result())

    async def consume() -> list[str]:
        return [e.type async for e in stream]

    consumer = asyncio.ensure_future(consume())
    await asyncio.sleep(0)
    stream.end(m)
    assert await consumer == []
    assert await result is m


async def test_a_cancelled_consumer_does_not_lose_later_events() -> None:
    stream = AssistantMessageEventStream()
    m = _msg()

    async def first() -> None:
        async for _ in stream:
            pass

    task = asyncio.ensure_future(first())
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    stream.push(StartEvent(m))  # the cancelled waiter is skipped: the event is queued
    stream.push(DoneEvent("stop", m))
    assert [e.type async for e in stream] == ["start", "done"]


async def test_breaking_out_leaves_nothing_behind() -> None:
    stream = AssistantMessageEventStream()
    m = _msg()
    for _ in range(3):
        stream.push(TextDeltaEvent(0, "x", m))
    async for _ in stream:
        break
    stream.push(DoneEvent("stop", m))
    assert [e.type async for e in stream] == ["text_delta", "text_delta", "done"]
