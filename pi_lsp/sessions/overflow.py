"""Classifying failed assistant messages for the session: retryable or not
(docs/reference/pi.md#retries,
#compaction).

``is_retryable_error``: a transient failure (overloaded, 5xx, network…; ``ai.retry``'s
session rule) that is neither a context overflow (``ai.overflow``) nor a quota/billing error.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..agent.messages import AgentMessage
from ..ai import AssistantMessage
from ..ai.overflow import is_context_overflow, is_overflow_text
from ..ai.retry import is_retryable_error_message

__all__ = [
    "explain_overflow",
    "is_context_overflow",
    "is_overflow_text",
    "is_retryable_error",
]

# "the prompt has 1851 tokens; the context size is 1024" (llama.cpp, via ai/providers/_http),
# OpenAI's "maximum context length is 8192 tokens. However, your messages resulted in 9000
# tokens", "input (9000 tokens) is longer than the model's context length (8192 tokens)"…
_PROMPT_TOKENS = re.compile(
    r"prompt has (\d+) tokens|resulted in (\d+) tokens|input \((\d+) tokens\)|"
    r"request \((\d+) tokens\)|(\d+) tokens? (?:in the|of) (?:prompt|input)",
    re.IGNORECASE,
)
_WINDOW_TOKENS = re.compile(
    r"context size is (\d+)|context length is (\d+)|context length \((\d+) tokens\)|"
    r"context size \((\d+) tokens\)|maximum context length of (\d+)",
    re.IGNORECASE,
)


def _number(pattern: re.Pattern[str], text: str) -> int | None:
    match = pattern.search(text)
    if match is None:
        return None
    return int(next(g for g in match.groups() if g is not None))


def explain_overflow(message: AssistantMessage, context_window: int, prompt_estimate: int) -> str:
    """What the user must change when the prompt does not fit and compaction cannot help:
    the tokens needed, the context available, and the settings to change."""
    text = message.error_message or ""
    needed = _number(_PROMPT_TOKENS, text) or prompt_estimate
    window = _number(_WINDOW_TOKENS, text) or context_window
    known = "" if _number(_PROMPT_TOKENS, text) else "about "
    said = f" (the provider said: {text})" if text else ""
    return (
        f"The prompt needs {known}{needed} tokens; the model's context is {window} tokens. "
        "Nothing earlier in the session can be compacted: set `contextWindow` (--context-window) "
        "to the server's context size, start the server with a larger context, or use a "
        f"model with a larger context.{said}"
    )


def estimate_prompt(messages: Sequence[AgentMessage]) -> int:
    from .compaction.tokens import estimate_messages_tokens

    return estimate_messages_tokens(list(messages))


def is_retryable_error(message: AssistantMessage, context_window: int = 0) -> bool:
    """A transient provider failure worth retrying (never an overflow or a quota error)."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_context_overflow(message, context_window):
        return False
    return is_retryable_error_message(message.error_message)  # quota/billing excluded
