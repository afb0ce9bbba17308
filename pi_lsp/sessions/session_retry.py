"""Session-level auto-retry for ``AgentSession`` (docs/reference/pi.md#retries), as a mixin
over the session's state: a retryable error reply is dropped from the context, the session
waits ``base × 2^(attempt-1)`` (abortable) and continues; ``auto_retry_start`` /
``auto_retry_end`` tell the listeners.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from ..ai import AbortSignal, AssistantMessage
from .events import AutoRetryEndEvent, AutoRetryStartEvent, SessionEvent
from .overflow import is_retryable_error

if TYPE_CHECKING:
    from ..agent import Agent

Sleep = Callable[[float, AbortSignal], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RetrySettings:
    """Pi's session-level auto-retry (docs/reference/pi.md#retries): delays
    ``base × 2^(attempt-1)``.

    Off by default here: docs/protocol.md#7-errors has the provider retry transient errors
    before any output and treats a later failure as a hard stop."""

    enabled: bool = False
    max_retries: int = 3
    base_delay_ms: int = 2000


async def abortable_sleep(seconds: float, signal: AbortSignal) -> None:
    """Sleep ``seconds`` or until ``signal`` aborts."""
    with anyio.move_on_after(seconds):
        await signal.wait()


class RetryMixin:
    """The retry half of ``AgentSession`` (state is initialised by the session)."""

    agent: Agent
    retry_settings: RetrySettings
    _sleep: Sleep
    _retry_attempt: int
    _retry_signal: AbortSignal | None
    _abort_requested: bool

    # provided by AgentSession (declared here for the type checker, not stubbed)
    _emit: Callable[[SessionEvent], Awaitable[None]]

    if TYPE_CHECKING:

        def _drop_trailing_assistant(self, *, only_errors: bool = False) -> None: ...

    def _is_retryable(self, message: AssistantMessage) -> bool:
        return self.retry_settings.enabled and is_retryable_error(
            message, self.agent.state.model.context_window
        )

    async def _prepare_retry(self, message: AssistantMessage) -> bool:
        settings = self.retry_settings
        self._retry_attempt += 1
        if self._retry_attempt > settings.max_retries:
            self._retry_attempt -= 1
            return False
        delay_ms = settings.base_delay_ms * 2 ** (self._retry_attempt - 1)
        await self._emit(
            AutoRetryStartEvent(
                attempt=self._retry_attempt,
                max_attempts=settings.max_retries,
                delay_ms=delay_ms,
                error_message=message.error_message or "Unknown error",
            )
        )
        self._drop_trailing_assistant()  # it stays in the file, not in the context
        signal = AbortSignal()
        self._retry_signal = signal
        try:
            await self._sleep(delay_ms / 1000, signal)
        finally:
            self._retry_signal = None
        if signal.aborted or self._abort_requested:
            attempt, self._retry_attempt = self._retry_attempt, 0
            await self._emit(
                AutoRetryEndEvent(success=False, attempt=attempt, final_error="Retry cancelled")
            )
            return False
        return True
