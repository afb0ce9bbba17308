"""Calling user hooks that may be sync or async, and emitting events to a sink.

Every hook, listener and sink the loop accepts may return a value or an awaitable; these
helpers call it and await the result only when needed (a sync sink costs no coroutine).
Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from inspect import isawaitable
from types import CoroutineType
from typing import Any, TypeVar, cast

T = TypeVar("T")


async def resolve(value: T | Awaitable[T]) -> T:
    """``value`` itself, or what it resolves to when it is awaitable."""
    if isawaitable(value):
        return await value
    return value


def is_awaitable(value: object) -> bool:
    """``inspect.isawaitable`` with a fast path for coroutines (the common async sink)."""
    return value.__class__ is CoroutineType or isawaitable(value)


class Emitter:
    """``await emit(event)`` for an event sink that may be sync or async.

    ``sink`` is exposed so the streaming hot path can call it inline (one coroutine less per
    event) with the same semantics.
    """

    __slots__ = ("sink",)

    def __init__(self, sink: Callable[[Any], object]) -> None:
        self.sink = sink

    async def __call__(self, event: Any) -> None:
        result = self.sink(event)
        if result is not None and is_awaitable(result):
            await cast(Awaitable[object], result)


Emit = Emitter
