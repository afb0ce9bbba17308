"""Compaction: summarise old turns when the context nears the model's window
(docs/reference/pi.md#compaction).

``tokens`` (estimates and the trigger), ``cut_point`` (what to keep, what to summarise),
``summarize`` (the summary request through the session's model). Pure functions: the
``AgentSession`` does the I/O. Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

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
