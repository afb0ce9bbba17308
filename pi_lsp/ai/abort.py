"""AbortSignal: the cancellation token passed from the editor down to the HTTP stream and tools.

Pi passes a DOM ``AbortSignal`` everywhere; this is its Python counterpart. It is a plain
object (usable before an event loop exists) that can be awaited, polled, or hooked with
callbacks. Providers race their HTTP read against ``wait()`` inside an anyio cancel scope.
Must not import anything of ours.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any


class AbortSignal:
    """A one-shot abort flag with awaitable and callback interfaces.

    ``abort()`` is idempotent and may be called from any task on the loop's thread.
    Callbacks run synchronously inside ``abort()``; they must not raise (errors are
    swallowed so one bad listener cannot stop the others).
    """

    __slots__ = ("_callbacks", "_event", "aborted", "reason")

    def __init__(self) -> None:
        self.aborted = False
        self.reason: str | None = None
        self._event: asyncio.Event | None = None
        self._callbacks: list[Callable[[], object]] = []

    def abort(self, reason: str | None = None) -> None:
        if self.aborted:
            return
        self.aborted = True
        self.reason = reason
        if self._event is not None:
            self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            with contextlib.suppress(Exception):  # listeners must not raise
                callback()

    async def wait(self) -> None:
        """Return once the signal is aborted (at once if it already is)."""
        if self.aborted:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def add_callback(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Run ``callback`` on abort (at once if already aborted); returns a remover."""
        if self.aborted:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._callbacks.remove(callback)

        return remove

    def __repr__(self) -> str:
        return f"AbortSignal(aborted={self.aborted})"


async def done_before_abort(future: asyncio.Future[Any], signal: AbortSignal | None) -> bool:
    """Wait until ``future`` is done or ``signal`` aborts, whichever comes first; ``True``
    when ``future`` is done (a result, an error or cancelled). On ``False`` the future is
    left running: the caller cancels it and whatever it stands for (a client request)."""
    if signal is None:
        await asyncio.wait({future})
        return True
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({future, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    return future.done()
