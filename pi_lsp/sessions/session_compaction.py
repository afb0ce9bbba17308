"""Automatic and manual compaction for ``AgentSession`` (docs/reference/pi.md#compaction
``_checkCompaction``,
``_runAutoCompaction``, ``compact``), as a mixin over the session's state.

Threshold: the last reply's context size (or the estimate after an error / zero usage) above
``contextWindow − reserveTokens``. Overflow (same model): drop the failed reply, compact, and
retry exactly once; a second overflow reports ``OVERFLOW_RECOVERY_FAILED``. A reply older
than the latest compaction never triggers another one.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from inspect import isawaitable
from typing import TYPE_CHECKING

from ..agent import Agent
from ..agent.messages import AgentMessage
from ..ai import AbortSignal, AssistantMessage, StreamOptions
from .compaction.tokens import (
    CompactionSettings,
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_messages_tokens,
    fitted_to_window,
    should_compact,
)
from .entries import CompactionEntry
from .events import (
    OVERFLOW_RECOVERY_FAILED,
    CompactionEndEvent,
    CompactionReason,
    CompactionStartEvent,
    SessionEvent,
)
from .overflow import estimate_prompt, explain_overflow, is_context_overflow
from .paths import iso_to_ms
from .session_file import SessionFile

if TYPE_CHECKING:
    from .compaction.summarize import CompactionResult, SummaryRequest

# What decides *whether* to compact (``compaction.tokens``) runs after every reply; what
# compacts (``cut_point``, ``summarize``) is loaded when a compaction is prepared.


class CompactionMixin:
    """The compaction half of ``AgentSession`` (state is initialised by the session)."""

    agent: Agent
    compaction_settings: CompactionSettings
    _tree: SessionFile
    _since_compaction: dict[int, AgentMessage]
    _compaction_signal: AbortSignal | None
    _overflow_recovery_attempted: bool

    # provided by AgentSession (declared here for the type checker, not stubbed)
    _emit: Callable[[SessionEvent], Awaitable[None]]
    _record: Callable[..., str | None]
    _drop_trailing_assistant: Callable[..., None]

    def _fitted_settings(self) -> CompactionSettings:
        """The compaction settings for the current model's window (see ``fitted_to_window``)."""
        return fitted_to_window(self.compaction_settings, self.agent.state.model.context_window)

    def _latest_compaction(self) -> CompactionEntry | None:
        for entry in reversed(self._tree.get_branch()):
            if isinstance(entry, CompactionEntry):
                return entry
        return None

    async def _check_compaction(
        self, message: AssistantMessage, *, skip_aborted: bool = True
    ) -> bool:
        settings = self._fitted_settings()
        if not settings.enabled:
            return False
        if skip_aborted and message.stop_reason == "aborted":
            return False
        model = self.agent.state.model
        window = model.context_window
        latest = self._latest_compaction()
        latest_ms = iso_to_ms(latest.timestamp) if latest is not None else None
        if self._is_stale(message, latest_ms):
            return False  # a pre-compaction reply must not retrigger it
        same_model = message.provider == model.provider and message.model == model.id
        if same_model and is_context_overflow(message, window):
            will_retry = message.stop_reason != "stop"
            if not will_retry:
                return await self._auto_compact("overflow", will_retry=False)
            if self._overflow_recovery_attempted:
                await self._emit(
                    CompactionEndEvent(reason="overflow", error_message=OVERFLOW_RECOVERY_FAILED)
                )
                return False
            self._overflow_recovery_attempted = True
            from .compaction.cut_point import prepare_compaction

            if prepare_compaction(self._tree.get_branch(), settings) is None:
                # Nothing to cut (the first turn): the failure stays in the history and in
                # the state, and says what to change. Never a silent success.
                await self._overflow_unrecoverable(message, window)
                return False
            self._drop_trailing_assistant()
            if await self._auto_compact("overflow", will_retry=True):
                return True
            if message not in self.agent.state.messages:  # compaction failed: keep the error
                self.agent.state.messages = [*self.agent.state.messages, message]
            return False
        direct = calculate_context_tokens(message.usage)
        if message.stop_reason == "error" or direct == 0:
            messages = self.agent.state.messages
            estimate = estimate_context_tokens(messages)
            if estimate.last_usage_index is None:
                return False
            if self._is_stale(messages[estimate.last_usage_index], latest_ms):
                return False
            tokens = estimate.tokens
        else:
            tokens = direct
        if should_compact(tokens, window, settings):
            return await self._auto_compact("threshold", will_retry=False)
        return False

    async def _overflow_unrecoverable(self, message: AssistantMessage, window: int) -> None:
        prompt = [m for m in self.agent.state.messages if m is not message]
        explained = explain_overflow(message, window, estimate_prompt(prompt))
        message.error_message = explained
        self.agent.state.error_message = explained
        await self._emit(CompactionEndEvent(reason="overflow", error_message=explained))

    def _is_stale(self, message: AgentMessage, latest_compaction_ms: int | None) -> bool:
        if latest_compaction_ms is None or id(message) in self._since_compaction:
            return False
        return message.timestamp <= latest_compaction_ms

    async def _auto_compact(self, reason: CompactionReason, *, will_retry: bool) -> bool:
        from .compaction.summarize import CompactionError

        try:
            result = await self._compact(reason, will_retry=will_retry, custom_instructions=None)
        except CompactionError:
            return False
        if result is None:
            return False
        if will_retry:
            self._drop_trailing_assistant(only_errors=True)
            return True
        return self.agent.has_queued_messages()

    async def _compact(
        self,
        reason: CompactionReason,
        *,
        will_retry: bool,
        custom_instructions: str | None,
    ) -> CompactionResult | None:
        from .compaction.cut_point import prepare_compaction
        from .compaction.summarize import CompactionAbortedError, CompactionError, compact

        preparation = prepare_compaction(self._tree.get_branch(), self._fitted_settings())
        if preparation is None:
            return None
        await self._emit(CompactionStartEvent(reason=reason))
        signal = AbortSignal()
        self._compaction_signal = signal
        try:
            request = await self._summary_request(signal)
            result = await compact(preparation, request, custom_instructions=custom_instructions)
            if signal.aborted:
                raise CompactionAbortedError("Compaction cancelled")
        except CompactionAbortedError:
            await self._emit(CompactionEndEvent(reason=reason, aborted=True))
            raise
        except Exception as exc:
            text = str(exc) or type(exc).__name__
            prefix = {
                "overflow": "Context overflow recovery failed",
                "threshold": "Auto-compaction failed",
                "manual": "Compaction failed",
            }[reason]
            await self._emit(
                CompactionEndEvent(
                    reason=reason,
                    tokens_before=preparation.tokens_before,
                    error_message=f"{prefix}: {text}",
                )
            )
            if isinstance(exc, CompactionError):
                raise
            raise CompactionError(text) from exc
        finally:
            self._compaction_signal = None
        self._record(
            self._tree.append_compaction,
            result.summary,
            result.first_kept_entry_id,
            result.tokens_before,
            result.details,
        )
        self._since_compaction.clear()
        messages = self._tree.build_context().messages
        self.agent.state.messages = messages
        result.estimated_tokens_after = estimate_messages_tokens(messages)
        await self._emit(
            CompactionEndEvent(
                reason=reason,
                tokens_before=result.tokens_before,
                tokens_after=result.estimated_tokens_after,
                will_retry=will_retry,
                result=result,
            )
        )
        return result

    async def _summary_request(self, signal: AbortSignal) -> SummaryRequest:
        from .compaction.summarize import SummaryRequest

        agent = self.agent
        model = agent.state.model
        options = agent.stream_options or StreamOptions()
        if agent.get_api_key is not None:
            key = agent.get_api_key(model.provider)
            key = await key if isawaitable(key) else key
            if key:
                options = dataclasses.replace(options, api_key=key)
        if agent.session_id is not None:
            options = dataclasses.replace(options, session_id=agent.session_id)
        return SummaryRequest(
            model=model,
            stream_fn=agent.stream_fn,
            options=options,
            thinking_level=agent.state.thinking_level,
            signal=signal,
        )
