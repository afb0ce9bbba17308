"""Classifying failed assistant messages for the session: retryable or not (Pi §3.12, §5.2).

``is_retryable_error``: a transient failure (overloaded, 5xx, network…; ``ai.retry``'s
session rule) that is neither a context overflow (``ai.overflow``) nor a quota/billing error.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

from ..ai import AssistantMessage
from ..ai.overflow import is_context_overflow, is_overflow_text
from ..ai.retry import is_retryable_error_message

__all__ = ["is_context_overflow", "is_overflow_text", "is_retryable_error"]


def is_retryable_error(message: AssistantMessage, context_window: int = 0) -> bool:
    """A transient provider failure worth retrying (never an overflow or a quota error)."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_context_overflow(message, context_window):
        return False
    return is_retryable_error_message(message.error_message)  # quota/billing excluded
