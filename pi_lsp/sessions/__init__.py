"""pi_lsp.sessions: append-only JSONL session files, the session tree, compaction, and the
``AgentSession`` that ties an ``Agent`` to its file.

Must not import pygls/lsprotocol, nor ``pi_lsp.lsp``.
"""

from .compaction import (
    CompactionAbortedError,
    CompactionError,
    CompactionResult,
    CompactionSettings,
)
from .context import SessionContext, build_session_context
from .entries import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)
from .events import (
    OVERFLOW_RECOVERY_FAILED,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    CompactionEndEvent,
    CompactionReason,
    CompactionStartEvent,
    SessionEvent,
    SessionSaveEvent,
)
from .jsonl import CorruptSessionError
from .overflow import is_context_overflow, is_retryable_error
from .paths import DATA_DIR_ENV, data_dir, sessions_dir, workspace_key
from .redact import Redactor
from .session_file import SessionFile
from .store import SessionInfo, SessionNotFoundError, SessionStore

__all__ = [
    "CURRENT_SESSION_VERSION",
    "DATA_DIR_ENV",
    "OVERFLOW_RECOVERY_FAILED",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "BranchSummaryEntry",
    "CompactionAbortedError",
    "CompactionEndEvent",
    "CompactionEntry",
    "CompactionError",
    "CompactionReason",
    "CompactionResult",
    "CompactionSettings",
    "CompactionStartEvent",
    "CorruptSessionError",
    "CustomEntry",
    "CustomMessageEntry",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "Redactor",
    "SessionContext",
    "SessionEntry",
    "SessionEvent",
    "SessionFile",
    "SessionHeader",
    "SessionInfo",
    "SessionInfoEntry",
    "SessionNotFoundError",
    "SessionSaveEvent",
    "SessionStore",
    "ThinkingLevelChangeEntry",
    "build_session_context",
    "data_dir",
    "is_context_overflow",
    "is_retryable_error",
    "sessions_dir",
    "workspace_key",
]
