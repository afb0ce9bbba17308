"""``SessionFile``: one session as an append-only tree of entries in a JSONL file.

Appends become children of the in-memory leaf and move it; ``branch(id)`` moves the leaf so
the next append starts a sibling; ``fork(id)`` writes a new file holding the root-to-``id``
path. On load the leaf is the last entry in the file.

Persistence: nothing is written until the session holds its first *message* entry (Pi waits
for the first assistant message; we write at the user prompt, so a crash while the first
reply streams does not lose the prompt). From then on every append is written, flushed and
fsync'd before the call returns. Entries are redacted (``Redactor``) on their way to disk.

Locking: a session being written holds an advisory lock (``flock``) on its file from when it
is created or opened for writing (``acquire_lock``) until ``close``, so two processes never
append to one file (each would grow its own branch and one would hide the other's work).
``SessionStore.open_for_writing`` forks a session that is locked elsewhere.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..agent.messages import AgentMessage
from ..ai import UserContent
from .context import SessionContext, build_session_context, path_to
from .entries import (
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
    dumps_line,
    entry_to_dict,
)
from .jsonl import LoadedFile, append_lines, load_file, repair_tail
from .paths import iso_now, new_entry_id, session_file_name, uuid7
from .redact import Redactor

try:
    import fcntl

    HAVE_FLOCK = True
except ImportError:  # pragma: no cover - Windows: no advisory locks
    HAVE_FLOCK = False

log = logging.getLogger("pi_lsp.sessions")

_PERSIST_TRIGGERS = (MessageEntry, CustomMessageEntry)


class SessionFile:
    """A session: header, entries, leaf pointer, and its file (see the module docstring)."""

    def __init__(
        self,
        path: Path,
        header: SessionHeader,
        entries: Sequence[SessionEntry] = (),
        *,
        on_disk: bool = False,
        redactor: Redactor | None = None,
        loaded: LoadedFile | None = None,
        persist: bool = True,
    ) -> None:
        self.path = path
        self.persist = persist
        """False for an in-memory session (``in_memory``): nothing is ever written."""
        self.header = header
        self.redactor = redactor or Redactor()
        self._entries: list[SessionEntry] = []
        self._by_id: dict[str, SessionEntry] = {}
        self._labels: dict[str, str] = {}
        self.leaf_id: str | None = None
        for entry in entries:
            self._index(entry)
        self._on_disk = on_disk
        self._loaded = loaded  # tail repair pending until the first append
        self._lock_fd: int | None = None
        self.sync: Callable[[Path, bool], None] | None = None
        """Where fsyncs go (``fsync_worker.BackgroundFsync`` in the server); ``None``: inline."""
        self._backlog: list[str] = []
        """Serialised entries not yet on disk (before the first message, or after an I/O
        error: retried, in order, on the next append or ``flush``)."""
        if not on_disk and persist:
            self._backlog = [dumps_line(self._dict(e)) for e in self._entries]

    # ------------------------------------------------------------------ constructors

    @classmethod
    def new(
        cls,
        directory: Path,
        cwd: Path | str,
        *,
        session_id: str | None = None,
        parent_session: str | None = None,
        redactor: Redactor | None = None,
    ) -> SessionFile:
        """A new, not yet written session in ``directory``."""
        sid = session_id or uuid7()
        timestamp = iso_now()
        header = SessionHeader(
            id=sid, timestamp=timestamp, cwd=str(cwd), parent_session=parent_session
        )
        return cls(directory / session_file_name(sid, timestamp), header, redactor=redactor)

    @classmethod
    def in_memory(cls, cwd: Path | str = "", *, session_id: str | None = None) -> SessionFile:
        """A session tree that is never written (compaction still works on it)."""
        sid = session_id or uuid7()
        header = SessionHeader(id=sid, timestamp=iso_now(), cwd=str(cwd))
        return cls(Path(session_file_name(sid, header.timestamp)), header, persist=False)

    @classmethod
    def load(cls, path: Path, *, redactor: Redactor | None = None) -> SessionFile:
        """Open an existing file (torn last line skipped with a warning)."""
        loaded = load_file(path)
        return cls(
            path,
            loaded.header,
            loaded.entries,
            on_disk=True,
            redactor=redactor,
            loaded=loaded,
        )

    # ------------------------------------------------------------------ reading

    @property
    def session_id(self) -> str:
        return self.header.id

    @property
    def entries(self) -> list[SessionEntry]:
        """All entries in file order (a copy; the header excluded)."""
        return list(self._entries)

    @property
    def is_persisted(self) -> bool:
        """True once the file exists on disk."""
        return self._on_disk

    @property
    def load_warnings(self) -> list[str]:
        return list(self._loaded.warnings) if self._loaded else []

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        return self._by_id.get(entry_id)

    def children(self, entry_id: str) -> list[SessionEntry]:
        return [e for e in self._entries if e.parent_id == entry_id]

    def label_of(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def get_branch(self, from_id: str | None = None) -> list[SessionEntry]:
        """The root-to-entry path (default: to the leaf)."""
        return path_to(self.leaf_id if from_id is None else from_id, self._by_id)

    def build_context(self, leaf_id: str | None = None) -> SessionContext:
        """The model context at ``leaf_id`` (default: the current leaf)."""
        return build_session_context(self.get_branch(leaf_id))

    @property
    def name(self) -> str | None:
        for entry in reversed(self._entries):
            if isinstance(entry, SessionInfoEntry):
                return (entry.name or "").strip() or None
        return None

    # ------------------------------------------------------------------ tree moves

    def branch(self, entry_id: str) -> None:
        """Move the leaf to ``entry_id``: the next append becomes its child (a sibling of
        whatever followed it)."""
        if entry_id not in self._by_id:
            raise KeyError(f"Entry {entry_id} not found")
        self.leaf_id = entry_id

    def reset_leaf(self) -> None:
        """The next append becomes a new root."""
        self.leaf_id = None

    # ------------------------------------------------------------------ appends

    def append_message(self, message: AgentMessage) -> str:
        """Append a user/assistant/toolResult message (custom messages become a
        ``custom_message`` entry; summaries are entries of their own, not messages)."""
        if message.role == "custom":
            return self.append_custom_message(
                message.custom_type, message.content, message.display, message.details
            )
        if message.role in ("compactionSummary", "branchSummary"):
            raise ValueError(f"{message.role} messages are stored as their own entries")
        return self._append(MessageEntry(**self._base(), message=message))

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._append(ModelChangeEntry(**self._base(), provider=provider, model_id=model_id))

    def append_thinking_level_change(self, level: str) -> str:
        return self._append(ThinkingLevelChangeEntry(**self._base(), thinking_level=level))

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = None,
    ) -> str:
        return self._append(
            CompactionEntry(
                **self._base(),
                summary=summary,
                first_kept_entry_id=first_kept_entry_id,
                tokens_before=tokens_before,
                details=details,
                from_hook=from_hook,
            )
        )

    def branch_with_summary(self, entry_id: str | None, summary: str, details: Any = None) -> str:
        """Move the leaf to ``entry_id`` (``None``: before the root) and append a
        ``branch_summary`` of the abandoned path there."""
        if entry_id is not None and entry_id not in self._by_id:
            raise KeyError(f"Entry {entry_id} not found")
        self.leaf_id = entry_id
        return self._append(
            BranchSummaryEntry(
                **self._base(), from_id=entry_id or "root", summary=summary, details=details
            )
        )

    def append_custom(self, custom_type: str, data: Any = None) -> str:
        return self._append(CustomEntry(**self._base(), custom_type=custom_type, data=data))

    def append_custom_message(
        self,
        custom_type: str,
        content: str | list[UserContent],
        display: bool = True,
        details: Any = None,
    ) -> str:
        return self._append(
            CustomMessageEntry(
                **self._base(),
                custom_type=custom_type,
                content=content,
                display=display,
                details=details,
            )
        )

    def append_label(self, target_id: str, label: str | None) -> str:
        if target_id not in self._by_id:
            raise KeyError(f"Entry {target_id} not found")
        return self._append(LabelEntry(**self._base(), target_id=target_id, label=label or None))

    def append_session_info(self, name: str) -> str:
        clean = " ".join(name.replace("\r", "\n").split("\n")).strip()
        return self._append(SessionInfoEntry(**self._base(), name=clean))

    # ------------------------------------------------------------------ fork

    def fork(self, entry_id: str, *, directory: Path | None = None) -> SessionFile:
        """A new session holding the root-to-``entry_id`` path (labels on it kept), with this
        file as its ``parentSession``. Written at once when the path holds a message."""
        path = self.get_branch(entry_id)
        if not path or path[-1].id != entry_id:
            raise KeyError(f"Entry {entry_id} not found")
        kept: list[SessionEntry] = []
        parent: str | None = None
        for entry in path:
            if isinstance(entry, LabelEntry):
                continue
            kept.append(entry.model_copy(update={"parent_id": parent}))
            parent = entry.id
        ids = {e.id for e in kept}
        for target, label in self._labels.items():
            if target in ids:
                label_id = new_entry_id(ids)
                ids.add(label_id)
                kept.append(
                    LabelEntry(
                        id=label_id,
                        parent_id=parent,
                        timestamp=iso_now(),
                        target_id=target,
                        label=label,
                    )
                )
                parent = label_id
        if self.persist:
            child = SessionFile.new(
                directory or self.path.parent,
                self.header.cwd,
                parent_session=str(self.path) if self._on_disk else None,
                redactor=self.redactor,
            )
        else:
            child = SessionFile.in_memory(self.header.cwd)
        child.sync = self.sync
        for entry in kept:
            child._index(entry)
        if child.persist:
            child._backlog = [dumps_line(child._dict(e)) for e in kept]
            if any(isinstance(e, _PERSIST_TRIGGERS) for e in kept):
                child.flush()
        return child

    # ------------------------------------------------------------------ locking

    def acquire_lock(self) -> bool:
        """Take the advisory write lock on the file (True when held, or when there is nothing
        to lock yet: a file not written so far is locked when it is created). False when
        another process holds it. Platforms without ``flock`` always get True."""
        if self._lock_fd is not None or not self.persist or not self._on_disk:
            return True
        if not HAVE_FLOCK:  # pragma: no cover - Windows
            return True
        fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    @property
    def is_locked(self) -> bool:
        return self._lock_fd is not None

    def close(self) -> None:
        """Release the lock (pending lines stay pending: ``flush`` first to write them)."""
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    # ------------------------------------------------------------------ persistence

    def flush(self) -> None:
        """Write everything pending now (creating the file if needed). Raises ``OSError``
        on I/O failure; the pending lines are kept and retried on the next write."""
        if not self.persist:
            return
        if self._loaded is not None and self._on_disk:
            repair_tail(self.path, self._loaded)  # idempotent: clears its own flags
        if not self._on_disk:
            header_line = dumps_line(self._dict(self.header))
            append_lines(self.path, [header_line, *self._backlog], create=True, sync=self.sync)
            self._on_disk = True
            self.acquire_lock()  # a new file: nobody else can hold it
        elif self._backlog:
            append_lines(self.path, self._backlog, create=False, sync=self.sync)
        self._backlog = []

    def _append(self, entry: SessionEntry) -> str:
        self._index(entry)
        if not self.persist:
            return entry.id
        self._backlog.append(dumps_line(self._dict(entry)))
        if self._on_disk or any(isinstance(e, _PERSIST_TRIGGERS) for e in self._entries):
            self.flush()
        return entry.id

    def _dict(self, entry: SessionHeader | SessionEntry) -> dict[str, Any]:
        data = entry_to_dict(entry)
        redacted: dict[str, Any] = self.redactor.data(data)
        return redacted

    def _base(self) -> dict[str, Any]:
        return {
            "id": new_entry_id(self._by_id),
            "parent_id": self.leaf_id,
            "timestamp": iso_now(),
        }

    def _index(self, entry: SessionEntry) -> None:
        self._entries.append(entry)
        self._by_id[entry.id] = entry
        self.leaf_id = entry.id
        if isinstance(entry, LabelEntry):
            if entry.label:
                self._labels[entry.target_id] = entry.label
            else:
                self._labels.pop(entry.target_id, None)

    def __repr__(self) -> str:
        return f"SessionFile({self.session_id!r}, entries={len(self._entries)})"
