"""``Emitter``: ``await emit(event)`` for sync sinks, coroutine sinks and other awaitables."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi_lsp.agent._hooks import Emitter


async def test_a_sync_sink_is_called_once_and_the_await_finishes_at_once() -> None:
    seen: list[Any] = []
    emit = Emitter(seen.append)
    await emit(1)
    await emit(2)
    assert seen == [1, 2]


async def test_an_async_sink_is_awaited_to_its_end() -> None:
    seen: list[Any] = []

    async def sink(event: Any) -> None:
        await asyncio.sleep(0)
        seen.append(event)

    await Emitter(sink)("a")
    assert seen == ["a"]


async def test_a_sink_returning_a_future_is_awaited() -> None:
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    emit = Emitter(lambda event: future)
    asyncio.get_running_loop().call_soon(future.set_result, None)
    await emit("x")
    assert future.done()


async def test_a_sink_that_raises_raises_at_the_await() -> None:
    def sync_sink(event: Any) -> None:
        raise ValueError("sync")

    async def async_sink(event: Any) -> None:
        raise KeyError("async")

    with pytest.raises(ValueError, match="sync"):
        await Emitter(sync_sink)(1)
    with pytest.raises(KeyError, match="async"):
        await Emitter(async_sink)(1)
