"""pi_lsp.sessions: append-only JSONL session files, the session tree, compaction, and the
``AgentSession`` that ties an ``Agent`` to its file.

Must not import pygls/lsprotocol, nor ``pi_lsp.lsp``.

The names below are loaded on first use (PEP 562), so importing one part of the package —
``SessionStore`` for ``pi-lsp run`` — does not load compaction and the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ai.lazy_names import lazy_names

if TYPE_CHECKING:
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

_SOURCES = {
    "CompactionAbortedError": ".compaction",
    "CompactionError": ".compaction",
    "CompactionResult": ".compaction",
    "CompactionSettings": ".compaction",
    "SessionContext": ".context",
    "build_session_context": ".context",
    "CURRENT_SESSION_VERSION": ".entries",
    "BranchSummaryEntry": ".entries",
    "CompactionEntry": ".entries",
    "CustomEntry": ".entries",
    "CustomMessageEntry": ".entries",
    "LabelEntry": ".entries",
    "MessageEntry": ".entries",
    "ModelChangeEntry": ".entries",
    "SessionEntry": ".entries",
    "SessionHeader": ".entries",
    "SessionInfoEntry": ".entries",
    "ThinkingLevelChangeEntry": ".entries",
    "OVERFLOW_RECOVERY_FAILED": ".events",
    "AutoRetryEndEvent": ".events",
    "AutoRetryStartEvent": ".events",
    "CompactionEndEvent": ".events",
    "CompactionReason": ".events",
    "CompactionStartEvent": ".events",
    "SessionEvent": ".events",
    "SessionSaveEvent": ".events",
    "CorruptSessionError": ".jsonl",
    "is_context_overflow": ".overflow",
    "is_retryable_error": ".overflow",
    "DATA_DIR_ENV": ".paths",
    "data_dir": ".paths",
    "sessions_dir": ".paths",
    "workspace_key": ".paths",
    "Redactor": ".redact",
    "SessionFile": ".session_file",
    "SessionInfo": ".store",
    "SessionNotFoundError": ".store",
    "SessionStore": ".store",
}

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


__getattr__ = lazy_names(__name__, _SOURCES)
