"""Context-overflow and request-too-large detection on a finished assistant message.

pi-ai's ``isContextOverflow``: an ``error`` message whose text matches a known provider phrase,
or (silent overflow) a successful reply whose input tokens exceed the context window. The
session layer uses it to compact and retry instead of failing. Must not import anything of
ours above ``ai/``.
"""

from __future__ import annotations

import re

from .types import AssistantMessage

OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"prompt is too long",  # Anthropic
        r"input is too long for requested model",  # Bedrock
        r"exceeds the context window",  # OpenAI
        r"input token count.*exceeds the maximum",  # Google
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"maximum context length is \d+ tokens",  # OpenRouter, vLLM
        r"exceeds the limit of \d+",  # Copilot
        r"exceeds the available context size",  # llama.cpp server
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi
        r"too large for model with \d+ maximum context length",  # Mistral
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
    )
)
_NO_BODY_400 = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)
_TOO_LARGE = re.compile(
    r"request_too_large|request.*exceeds.*maximum.*size|request entity too large|"
    r"payload too large",
    re.IGNORECASE,
)


def is_context_overflow(message: AssistantMessage, context_window: int | None = None) -> bool:
    """True when ``message`` reports that the prompt did not fit the model's context."""
    if message.stop_reason == "error" and message.error_message:
        text = message.error_message
        if any(p.search(text) for p in OVERFLOW_PATTERNS) or _NO_BODY_400.search(text):
            return True
    if context_window and message.stop_reason == "stop":
        return message.usage.input + message.usage.cache_read > context_window
    return False


def is_request_too_large(message: AssistantMessage) -> bool:
    """True when the HTTP payload itself was too large (e.g. many images), not the tokens."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    text = message.error_message
    if "(no body)" in text.lower():
        return False
    return bool(re.match(r"^413\b", text)) or _TOO_LARGE.search(text) is not None
