"""``build_session_context``: what the model sees for a leaf of the session tree
(docs/reference/pi.md#session-context).

Walk leaf -> root, reverse. Thinking level = the last ``thinking_level_change`` (default
``off``); model = the last ``model_change`` or assistant message. With a compaction on the
path (the last one): its summary, then the kept messages from ``firstKeptEntryId`` up to the
compaction, then everything after it. ``custom_message`` and ``branch_summary`` become their
agent messages; ``custom``, ``label``, ``session_info`` and the change entries are skipped.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..agent.messages import (
    AgentMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
)
from ..ai import AssistantMessage
from .entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
)
from .paths import iso_to_ms


@dataclass(slots=True)
class SessionContext:
    messages: list[AgentMessage] = field(default_factory=list)
    provider: str | None = None
    model_id: str | None = None
    thinking_level: str = "off"


def path_to(entry_id: str | None, by_id: Mapping[str, SessionEntry]) -> list[SessionEntry]:
    """Entries from the root to ``entry_id`` (inclusive), in order. Empty for ``None``.
    A broken parent chain (or a cycle) ends the walk where it breaks."""
    path: list[SessionEntry] = []
    seen: set[str] = set()
    current = by_id.get(entry_id) if entry_id is not None else None
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(current)
        current = by_id.get(current.parent_id) if current.parent_id else None
    path.reverse()
    return path


def entry_message(entry: SessionEntry) -> AgentMessage | None:
    """The agent message an entry contributes to the context, if any (compactions excluded:
    they are placed by ``build_session_context`` itself)."""
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, CustomMessageEntry):
        return CustomMessage(
            custom_type=entry.custom_type,
            content=entry.content,
            display=entry.display,
            details=entry.details,
            timestamp=iso_to_ms(entry.timestamp) or 0,
        )
    if isinstance(entry, BranchSummaryEntry) and entry.summary:
        return BranchSummaryMessage(
            summary=entry.summary,
            from_id=entry.from_id,
            timestamp=iso_to_ms(entry.timestamp) or 0,
        )
    return None


def compaction_message(entry: CompactionEntry) -> CompactionSummaryMessage:
    return CompactionSummaryMessage(
        summary=entry.summary,
        tokens_before=entry.tokens_before,
        timestamp=iso_to_ms(entry.timestamp) or 0,
    )


def build_session_context(path: Sequence[SessionEntry]) -> SessionContext:
    """The context for a root-to-leaf ``path`` (see the module docstring)."""
    ctx = SessionContext()
    compaction: CompactionEntry | None = None
    compaction_index = -1
    for index, entry in enumerate(path):
        if isinstance(entry, ThinkingLevelChangeEntry):
            ctx.thinking_level = entry.thinking_level
        elif isinstance(entry, ModelChangeEntry):
            ctx.provider, ctx.model_id = entry.provider, entry.model_id
        elif isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            ctx.provider, ctx.model_id = entry.message.provider, entry.message.model
        elif isinstance(entry, CompactionEntry):
            compaction, compaction_index = entry, index

    def add(entry: SessionEntry) -> None:
        message = entry_message(entry)
        if message is not None:
            ctx.messages.append(message)

    if compaction is None:
        for entry in path:
            add(entry)
        return ctx

    ctx.messages.append(compaction_message(compaction))
    kept = False
    for entry in path[:compaction_index]:
        kept = kept or entry.id == compaction.first_kept_entry_id
        if kept:
            add(entry)
    for entry in path[compaction_index + 1 :]:
        add(entry)
    return ctx
