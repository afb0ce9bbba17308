"""Context-overflow and request-too-large detection on a finished assistant message.

pi-ai's ``isContextOverflow``: an ``error`` message whose text matches a known provider phrase
(and no rate-limit phrase), or (silent overflow) a reply whose input tokens exceed the context
window. The session layer uses it to compact and retry instead of failing. Must not import
anything of ours above ``ai/``.
"""

from __future__ import annotations

import re

from .types import AssistantMessage

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
    """True when an error text reports a context overflow (never for rate-limit wording)."""
    if any(p.search(text) for p in NON_OVERFLOW_PATTERNS):
        return False
    return any(p.search(text) for p in OVERFLOW_PATTERNS)


def is_context_overflow(message: AssistantMessage, context_window: int | None = 0) -> bool:
    """pi-ai ``isContextOverflow``: an overflow error text, a ``stop`` whose input exceeded the
    window (silent overflow), or a ``length`` stop with no output and the input filling >= 99%
    of the window."""
    context_window = context_window or 0
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


_TOO_LARGE = re.compile(
    r"request_too_large|request.*exceeds.*maximum.*size|request entity too large|"
    r"payload too large",
    re.IGNORECASE,
)


def is_request_too_large(message: AssistantMessage) -> bool:
    """True when the HTTP payload itself was too large (e.g. many images), not the tokens."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    text = message.error_message
    if "(no body)" in text.lower():
        return False
    return bool(re.match(r"^413\b", text)) or _TOO_LARGE.search(text) is not None
