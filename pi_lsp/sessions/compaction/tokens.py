"""Token accounting for compaction (docs/reference/pi.md#compaction): estimates, context size, the
trigger.

Estimate = ``ceil(chars / 4)``; images count 4800 characters; an assistant message counts its
text, thinking, tool names and JSON arguments. The context size comes from the last valid
assistant usage (not error/aborted, not all-zero) plus estimates for what follows it.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...agent.messages import AgentMessage, CustomMessage
from ...ai import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from ...ai.cost import estimate_tokens

ESTIMATED_IMAGE_CHARS = 4800


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    enabled: bool = True
    reserve_tokens: int = 16_384
    keep_recent_tokens: int = 20_000


def fitted_to_window(settings: CompactionSettings, context_window: int) -> CompactionSettings:
    """``settings`` that can work for a small window (a local 4k–32k model). Pi's defaults
    assume a large one: a reserve at least as big as the window would compact after every
    reply, and a recent tail bigger than what may stay leaves nothing to cut. Such a reserve
    or tail becomes a quarter of the window; settings that work are left alone."""
    quarter = max(1, context_window // 4)
    reserve = settings.reserve_tokens
    if reserve >= context_window:
        reserve = quarter
    keep = settings.keep_recent_tokens
    if keep >= context_window - reserve:
        keep = quarter
    if (reserve, keep) == (settings.reserve_tokens, settings.keep_recent_tokens):
        return settings
    return CompactionSettings(settings.enabled, reserve, keep)


def _content_chars(content: str | Sequence[Any]) -> int:
    if isinstance(content, str):
        return len(content)
    chars = 0
    for block in content:
        if isinstance(block, TextContent):
            chars += len(block.text)
        elif isinstance(block, ImageContent):
            chars += ESTIMATED_IMAGE_CHARS
    return chars


def js_json(value: Any) -> str:
    """``JSON.stringify`` for JSON data: compact separators, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def estimate_message_tokens(message: AgentMessage) -> int:
    """Pi's conservative chars/4 estimate for one message."""
    if isinstance(message, AssistantMessage):
        chars = 0
        for block in message.content:
            if isinstance(block, TextContent):
                chars += len(block.text)
            elif isinstance(block, ThinkingContent):
                chars += len(block.thinking)
            elif isinstance(block, ToolCall):
                chars += len(block.name) + len(js_json(block.arguments))
        return estimate_tokens(chars)
    if isinstance(message, UserMessage | ToolResultMessage | CustomMessage):
        return estimate_tokens(_content_chars(message.content))
    return estimate_tokens(len(message.summary))  # compaction / branch summaries


def estimate_messages_tokens(messages: Sequence[AgentMessage]) -> int:
    return sum(estimate_message_tokens(m) for m in messages)


def calculate_context_tokens(usage: Usage) -> int:
    """``totalTokens``, or the sum of its parts when that is 0."""
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read + usage.cache_write)


def valid_usage(message: AgentMessage) -> Usage | None:
    """The usage of an assistant message that has a usable one (not error/aborted, not 0)."""
    if (
        isinstance(message, AssistantMessage)
        and message.stop_reason not in ("error", "aborted")
        and calculate_context_tokens(message.usage) > 0
    ):
        return message.usage
    return None


@dataclass(frozen=True, slots=True)
class ContextUsageEstimate:
    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[AgentMessage]) -> ContextUsageEstimate:
    """The last valid usage plus estimates for the messages after it (all estimated when
    no message has a valid usage)."""
    for index in range(len(messages) - 1, -1, -1):
        usage = valid_usage(messages[index])
        if usage is not None:
            usage_tokens = calculate_context_tokens(usage)
            trailing = estimate_messages_tokens(messages[index + 1 :])
            return ContextUsageEstimate(usage_tokens + trailing, usage_tokens, trailing, index)
    estimated = estimate_messages_tokens(messages)
    return ContextUsageEstimate(estimated, 0, estimated, None)


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """``tokens > contextWindow − reserveTokens`` (when enabled)."""
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens
