"""Compaction: summarise old turns when the context nears the model's window
(docs/reference/pi.md#compaction).

``tokens`` (estimates and the trigger), ``cut_point`` (what to keep, what to summarise),
``summarize`` (the summary request through the session's model). Pure functions: the
``AgentSession`` does the I/O. Must not import pygls/lsprotocol or ``pi_lsp.lsp``.

The names below are loaded on first use (PEP 562): a session needs ``tokens`` after every
reply, ``cut_point`` and ``summarize`` only when it compacts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ai.lazy_names import lazy_names

if TYPE_CHECKING:
    from .cut_point import (
        CompactionPreparation,
        CutPoint,
        FileOps,
        find_cut_point,
        find_turn_start_index,
        format_file_operations,
        prepare_compaction,
        valid_cut_points,
    )
    from .summarize import (
        SPLIT_TURN_SEPARATOR,
        SUMMARIZATION_PROMPT,
        SUMMARIZATION_SYSTEM_PROMPT,
        TOOL_RESULT_MAX_CHARS,
        TURN_PREFIX_SUMMARIZATION_PROMPT,
        UPDATE_SUMMARIZATION_PROMPT,
        CompactionAbortedError,
        CompactionError,
        CompactionResult,
        SummaryRequest,
        compact,
        generate_summary,
        generate_turn_prefix_summary,
        serialize_conversation,
    )
    from .tokens import (
        ESTIMATED_IMAGE_CHARS,
        CompactionSettings,
        ContextUsageEstimate,
        calculate_context_tokens,
        estimate_context_tokens,
        estimate_message_tokens,
        estimate_messages_tokens,
        fitted_to_window,
        should_compact,
        valid_usage,
    )

_SOURCES = {
    "CompactionPreparation": ".cut_point",
    "CutPoint": ".cut_point",
    "FileOps": ".cut_point",
    "find_cut_point": ".cut_point",
    "find_turn_start_index": ".cut_point",
    "format_file_operations": ".cut_point",
    "prepare_compaction": ".cut_point",
    "valid_cut_points": ".cut_point",
    "SPLIT_TURN_SEPARATOR": ".summarize",
    "SUMMARIZATION_PROMPT": ".summarize",
    "SUMMARIZATION_SYSTEM_PROMPT": ".summarize",
    "TOOL_RESULT_MAX_CHARS": ".summarize",
    "TURN_PREFIX_SUMMARIZATION_PROMPT": ".summarize",
    "UPDATE_SUMMARIZATION_PROMPT": ".summarize",
    "CompactionAbortedError": ".summarize",
    "CompactionError": ".summarize",
    "CompactionResult": ".summarize",
    "SummaryRequest": ".summarize",
    "compact": ".summarize",
    "generate_summary": ".summarize",
    "generate_turn_prefix_summary": ".summarize",
    "serialize_conversation": ".summarize",
    "ESTIMATED_IMAGE_CHARS": ".tokens",
    "CompactionSettings": ".tokens",
    "ContextUsageEstimate": ".tokens",
    "calculate_context_tokens": ".tokens",
    "estimate_context_tokens": ".tokens",
    "estimate_message_tokens": ".tokens",
    "estimate_messages_tokens": ".tokens",
    "fitted_to_window": ".tokens",
    "should_compact": ".tokens",
    "valid_usage": ".tokens",
}

__all__ = [
    "ESTIMATED_IMAGE_CHARS",
    "SPLIT_TURN_SEPARATOR",
    "SUMMARIZATION_PROMPT",
    "SUMMARIZATION_SYSTEM_PROMPT",
    "TOOL_RESULT_MAX_CHARS",
    "TURN_PREFIX_SUMMARIZATION_PROMPT",
    "UPDATE_SUMMARIZATION_PROMPT",
    "CompactionAbortedError",
    "CompactionError",
    "CompactionPreparation",
    "CompactionResult",
    "CompactionSettings",
    "ContextUsageEstimate",
    "CutPoint",
    "FileOps",
    "SummaryRequest",
    "calculate_context_tokens",
    "compact",
    "estimate_context_tokens",
    "estimate_message_tokens",
    "estimate_messages_tokens",
    "find_cut_point",
    "find_turn_start_index",
    "fitted_to_window",
    "format_file_operations",
    "generate_summary",
    "generate_turn_prefix_summary",
    "prepare_compaction",
    "serialize_conversation",
    "should_compact",
    "valid_cut_points",
    "valid_usage",
]


__getattr__ = lazy_names(__name__, _SOURCES)
