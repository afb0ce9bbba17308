"""Classifying failed assistant messages: context overflow, retryable, quota (Pi §3.12, §5.2).

``is_context_overflow``: the error text matches a provider's overflow wording (and no
rate-limit wording), or a ``stop`` whose input exceeded the window, or a ``length`` stop with
no output and the input filling >= 99% of the window. ``is_retryable_error``: a transient
failure (overloaded, 5xx, network…; ``ai.retry``'s session rule) that is neither an overflow
nor a quota/billing error. (``ai.overflow`` has a provider-level variant without the
rate-limit exclusion and the ``length`` case; the session uses this one, as Pi's.)
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import re

from ..ai import AssistantMessage
from ..ai.retry import is_retryable_error_message

_I = re.IGNORECASE

OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _I)
    for p in (
        r"prompt is too long",  # Anthropic
        r"request_too_large",  # Anthropic, HTTP 413
        r"input is too long for requested model",  # Bedrock
        r"exceeds the context window",  # OpenAI
        r"exceeds (?:the )?(?:model'?s )?maximum context length"
        r"(?: of [\d,]+ tokens?|\s*\([\d,]+\))",  # OpenAI-compatible proxies
        r"input token count.*exceeds the maximum",  # Gemini
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"maximum context length is \d+ tokens",  # OpenRouter
        r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",
        r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",
        r"exceeds the limit of \d+",  # GitHub Copilot
        r"exceeds the available context size",  # llama.cpp
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi
        r"too large for model with \d+ maximum context length",  # Mistral
        r"model_context_window_exceeded",  # z.ai
        r"prompt too long; exceeded (?:max )?context length",  # Ollama
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
        r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",  # Cerebras
    )
)

NON_OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _I)
    for p in (
        r"^(?:Throttling error|Service unavailable):",
        r"rate limit",
        r"too many requests",
    )
)

def is_overflow_text(text: str) -> bool:
    if any(p.search(text) for p in NON_OVERFLOW_PATTERNS):
        return False
    return any(p.search(text) for p in OVERFLOW_PATTERNS)


def is_context_overflow(message: AssistantMessage, context_window: int = 0) -> bool:
    if (
        message.stop_reason == "error"
        and message.error_message
        and is_overflow_text(message.error_message)
    ):
        return True
    if context_window > 0:
        used = message.usage.input + message.usage.cache_read
        if message.stop_reason == "stop" and used > context_window:
            return True
        if (
            message.stop_reason == "length"
            and message.usage.output == 0
            and used >= context_window * 0.99
        ):
            return True
    return False


def is_retryable_error(message: AssistantMessage, context_window: int = 0) -> bool:
    """A transient provider failure worth retrying (never an overflow or a quota error)."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_context_overflow(message, context_window):
        return False
    return is_retryable_error_message(message.error_message)  # quota/billing excluded
