"""Calling user hooks that may be sync or async, and emitting events to a sink.

Every hook, listener and sink the loop accepts may return a value or an awaitable; these
helpers call it and await the result only when needed (a sync sink costs no coroutine).
Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from inspect import isawaitable
from typing import Any, TypeVar, cast

T = TypeVar("T")

Emit = Callable[[Any], Awaitable[None]]


async def resolve(value: T | Awaitable[T]) -> T:
    """``value`` itself, or what it resolves to when it is awaitable."""
    if isawaitable(value):
        return await value
    return value


def make_emitter(sink: Callable[[Any], object]) -> Emit:
    """Wrap an event sink (sync or async) into one awaitable ``emit(event)``."""

    async def emit(event: Any) -> None:
        result = sink(event)
        if result is not None and isawaitable(result):
            await cast(Awaitable[object], result)

    return emit
