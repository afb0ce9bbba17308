"""Where to cut a session for compaction, and what to summarise (docs/reference/pi.md#compaction
``findCutPoint``,
``prepareCompaction``).

Valid cut points are message entries of role user / assistant / custom / branchSummary /
compactionSummary, and ``branch_summary`` / ``custom_message`` entries — never a toolResult.
Walking back from the newest entry, estimates accumulate until ``keepRecentTokens``; the cut is
the first valid point at or after that entry, extended back over adjacent non-message entries
(stopping at a compaction). A cut that is not a user message splits its turn.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...agent.messages import AgentMessage
from ...ai import AssistantMessage, ToolCall
from ..context import build_session_context, entry_message
from ..entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    SessionEntry,
)
from .tokens import CompactionSettings, estimate_context_tokens, estimate_message_tokens

_CUT_ROLES = frozenset(("user", "assistant", "custom", "branchSummary", "compactionSummary"))


@dataclass(frozen=True, slots=True)
class CutPoint:
    first_kept_entry_index: int
    turn_start_index: int
    """The user message starting the split turn, or -1."""
    is_split_turn: bool


def _is_cut_point(entry: SessionEntry) -> bool:
    if isinstance(entry, BranchSummaryEntry | CustomMessageEntry):
        return True
    return isinstance(entry, MessageEntry) and entry.message.role in _CUT_ROLES


def valid_cut_points(entries: Sequence[SessionEntry], start: int, end: int) -> list[int]:
    return [i for i in range(start, end) if _is_cut_point(entries[i])]


def find_turn_start_index(entries: Sequence[SessionEntry], index: int, start: int) -> int:
    """The entry that starts the turn containing ``index`` (a user message, branch summary
    or custom message), or -1."""
    for i in range(index, start - 1, -1):
        entry = entries[i]
        if isinstance(entry, BranchSummaryEntry | CustomMessageEntry):
            return i
        if isinstance(entry, MessageEntry) and entry.message.role == "user":
            return i
    return -1


def find_cut_point(
    entries: Sequence[SessionEntry], start: int, end: int, keep_recent_tokens: int
) -> CutPoint:
    """Keep roughly ``keep_recent_tokens`` of the newest messages in ``entries[start:end]``."""
    cut_points = valid_cut_points(entries, start, end)
    if not cut_points:
        return CutPoint(start, -1, False)
    cut = cut_points[0]
    accumulated = 0
    for i in range(end - 1, start - 1, -1):
        entry = entries[i]
        if not isinstance(entry, MessageEntry):
            continue
        accumulated += estimate_message_tokens(entry.message)
        if accumulated >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut)
            break
    while cut > start:
        previous = entries[cut - 1]
        if isinstance(previous, CompactionEntry | MessageEntry):
            break
        cut -= 1  # settings changes, labels… travel with the kept part
    entry = entries[cut]
    is_user = isinstance(entry, MessageEntry) and entry.message.role == "user"
    turn_start = -1 if is_user else find_turn_start_index(entries, cut, start)
    return CutPoint(cut, turn_start, not is_user and turn_start != -1)


# ------------------------------------------------------------------------------ file ops


@dataclass(slots=True)
class FileOps:
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def add_from(self, message: AgentMessage) -> None:
        """Record the paths of read/write/edit tool calls in an assistant message."""
        if not isinstance(message, AssistantMessage):
            return
        for block in message.content:
            if not isinstance(block, ToolCall):
                continue
            path = block.arguments.get("path")
            if not isinstance(path, str) or not path:
                continue
            target = {"read": self.read, "write": self.written, "edit": self.edited}.get(block.name)
            if target is not None:
                target.add(path)

    def lists(self) -> tuple[list[str], list[str]]:
        """``(read_only_files, modified_files)``, each sorted."""
        modified = self.edited | self.written
        return sorted(self.read - modified), sorted(modified)


def format_file_operations(read_files: Sequence[str], modified_files: Sequence[str]) -> str:
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


# ------------------------------------------------------------------------------ prepare


@dataclass(slots=True)
class CompactionPreparation:
    first_kept_entry_id: str
    messages_to_summarize: list[AgentMessage]
    turn_prefix_messages: list[AgentMessage]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOps
    settings: CompactionSettings


def _messages(entries: Sequence[SessionEntry]) -> list[AgentMessage]:
    out = []
    for entry in entries:
        message = None if isinstance(entry, CompactionEntry) else entry_message(entry)
        if message is not None:
            out.append(message)
    return out


def prepare_compaction(
    path: Sequence[SessionEntry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """What a compaction of this root-to-leaf ``path`` would summarise and keep; ``None``
    when the path already ends in a compaction or there is nothing to summarise."""
    if not path or isinstance(path[-1], CompactionEntry):
        return None
    previous_index = next(
        (i for i in range(len(path) - 1, -1, -1) if isinstance(path[i], CompactionEntry)), -1
    )
    previous: CompactionEntry | None = None
    start = 0
    if previous_index >= 0:
        found = path[previous_index]
        assert isinstance(found, CompactionEntry)
        previous = found
        kept_index = next(
            (i for i, e in enumerate(path) if e.id == previous.first_kept_entry_id), -1
        )
        start = kept_index if kept_index >= 0 else previous_index + 1
    end = len(path)
    tokens_before = estimate_context_tokens(build_session_context(path).messages).tokens
    cut = find_cut_point(path, start, end, settings.keep_recent_tokens)
    if cut.first_kept_entry_index >= end:
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = _messages(path[start:history_end])
    prefix = (
        _messages(path[cut.turn_start_index : cut.first_kept_entry_index])
        if cut.is_split_turn
        else []
    )
    if not to_summarize and not prefix:
        return None
    file_ops = FileOps()
    if previous is not None and not previous.from_hook and isinstance(previous.details, dict):
        read = previous.details.get("readFiles")
        modified = previous.details.get("modifiedFiles")
        if isinstance(read, list):
            file_ops.read.update(str(p) for p in read)
        if isinstance(modified, list):
            file_ops.edited.update(str(p) for p in modified)
    for message in [*to_summarize, *prefix]:
        file_ops.add_from(message)
    return CompactionPreparation(
        first_kept_entry_id=path[cut.first_kept_entry_index].id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous.summary if previous else None,
        file_ops=file_ops,
        settings=settings,
    )
