"""Calling user hooks that may be sync or async, and emitting events to a sink.

Every hook, listener and sink the loop accepts may return a value or an awaitable; these
helpers call it and await the result only when needed (a sync sink costs no coroutine).
Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from inspect import isawaitable
from types import CoroutineType
from typing import Any, TypeVar

T = TypeVar("T")


async def resolve(value: T | Awaitable[T]) -> T:
    """``value`` itself, or what it resolves to when it is awaitable."""
    if isawaitable(value):
        return await value
    return value


def is_awaitable(value: object) -> bool:
    """``inspect.isawaitable`` with a fast path for coroutines (the common async sink)."""
    return value.__class__ is CoroutineType or isawaitable(value)


class _Done:
    """An awaitable that is already finished (what ``Emitter`` returns for a sync sink)."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        # ``await`` finishes at once; one empty iterator serves every await (it stays empty)
        return _NOTHING  # type: ignore[no-any-return]


_NOTHING: Any = iter(())
_DONE = _Done()


class Emitter:
    """``await emit(event)`` for an event sink that may be sync or async.

    A plain call, not a coroutine: it calls the sink at once and returns what it returned when
    that is awaitable (the caller awaits the sink's own coroutine), else a finished awaitable —
    no wrapper coroutine per event. Only ever used as ``await emit(event)``. ``sink`` is
    exposed so the streaming hot path can call it inline with the same semantics.
    """

    __slots__ = ("sink",)

    def __init__(self, sink: Callable[[Any], object]) -> None:
        self.sink = sink

    def __call__(self, event: Any) -> Awaitable[object]:
        result = self.sink(event)
        if result is not None and is_awaitable(result):
            return result  # type: ignore[return-value]  # is_awaitable checked it
        return _DONE


Emit = Emitter
