"""The Workspace seam: everything a tool may do to files goes through this protocol.

Two implementations: ``DiskWorkspace`` (headless CLI, tests) and the LSP layer's
``EditorWorkspace`` (open buffers first; edits become ``workspace/applyEdit``). Tools never
touch the editor and never write the disk directly.

Offsets in ``TextEdit`` are Python ``str`` indices into ``Document.text`` (code points); the
editor layer converts them to LSP positions in the negotiated encoding.

Errors a tool can hit (all ``WorkspaceError``; their message is what the model reads)::

    WorkspaceError
     ├── OutsideWorkspaceError   path resolves outside every root (``..``, absolute, symlink)
     ├── StaleDocumentError      the text changed since it was read (edit not applied)
     └── EditRejectedError       the editor/user refused the edit (nothing written)

Must not import pygls/lsprotocol or anything above tools/.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from ..agent.types import ToolFailure
from ..ai.abort import AbortSignal


@dataclass(frozen=True, slots=True)
class ToolCallContext:
    """Which run a change belongs to, passed by ``edit`` / ``write`` to the workspace: the
    session and tool call that make it (review hunks, checkpoints) and the run's abort
    signal (an editor round trip made for it is cancelled with the run)."""

    session_id: str | None = None
    tool_call_id: str | None = None
    signal: AbortSignal | None = None


class WorkspaceError(ToolFailure):
    """A file operation failed; ``str(exc)`` is written for the model to act on."""


class OutsideWorkspaceError(WorkspaceError):
    """The path resolves outside the workspace roots."""


class StaleDocumentError(WorkspaceError):
    """The document changed after it was read; the computed edit was not applied."""


class EditRejectedError(WorkspaceError):
    """The editor or the user rejected the edit; nothing was written."""


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``text[start:end]`` with ``new_text`` (offsets into the original text)."""

    start: int
    end: int
    new_text: str


@dataclass(frozen=True, slots=True)
class Document:
    """A file's current text as the agent may see it."""

    path: Path
    """Resolved absolute path inside the workspace."""
    text: str
    """Exact text: for disk files the decoded bytes (BOM and CRLF kept)."""
    version: int | None = None
    """Editor buffer version when read from an open buffer, else ``None``."""
    from_buffer: bool = False


def apply_text_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """``text`` with ``edits`` applied (offsets into the original ``text``). Edits must be
    in range and must not overlap; their order does not matter. Raises ``ValueError``."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    parts: list[str] = []
    pos = 0
    for edit in ordered:
        if not 0 <= edit.start <= edit.end <= len(text):
            raise ValueError(f"edit range {edit.start}..{edit.end} is outside the text")
        if edit.start < pos:
            raise ValueError("edits overlap")
        parts.append(text[pos : edit.start])
        parts.append(edit.new_text)
        pos = edit.end
    parts.append(text[pos:])
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class DirEntry:
    name: str
    is_dir: bool


@runtime_checkable
class Workspace(Protocol):
    @property
    def roots(self) -> Sequence[Path]:
        """Absolute, resolved workspace roots (the first one is the cwd)."""
        ...

    @property
    def cwd(self) -> Path:
        """Where relative paths resolve and ``bash`` runs."""
        ...

    def resolve(self, path: str) -> Path:
        """Resolve a model-given path (relative, absolute, ``~``, ``@``-prefixed, file:// URL)
        to an absolute path inside a root; raise ``OutsideWorkspaceError`` otherwise
        (symlinks are followed for the check)."""
        ...

    def confine(self, path: Path) -> Path:
        """Check an absolute path as it is (no expansion): return it if it resolves inside a
        root (symlinks followed), else raise ``OutsideWorkspaceError``."""
        ...

    def display_path(self, path: Path) -> str:
        """How a path is shown to the model (relative to the cwd when inside it)."""
        ...

    def seen_text(self, path: Path) -> str | None:
        """The text the agent last saw of ``path`` (its last read, or its own edit's result)
        when the workspace tracks it — the editor's, where the user types meanwhile — else
        ``None``."""
        ...

    async def read_document(self, path: Path) -> Document:
        """The open buffer's text when the editor has it open, else the file on disk.
        Raises ``FileNotFoundError`` / ``IsADirectoryError`` / ``PermissionError``."""
        ...

    async def read_bytes(self, path: Path) -> bytes:
        """Raw bytes on disk (image/binary detection)."""
        ...

    async def read_head(self, path: Path, size: int) -> bytes:
        """At most the first ``size`` bytes on disk (type sniffing without loading the file).
        Raises like ``read_bytes``."""
        ...

    async def file_size(self, path: Path) -> int:
        """Size in bytes on disk. Raises ``FileNotFoundError`` / ``PermissionError``."""
        ...

    async def write_document(
        self, path: Path, text: str, *, label: str, context: ToolCallContext | None = None
    ) -> None:
        """Create or replace the whole file (parent directories created). ``context``: the
        tool call making the change (``None``: not the agent's, e.g. an undo)."""
        ...

    async def apply_edits(
        self,
        document: Document,
        edits: Sequence[TextEdit],
        *,
        label: str,
        context: ToolCallContext | None = None,
    ) -> None:
        """Apply edits computed against ``document``; raise ``StaleDocumentError`` if the text
        changed since, ``EditRejectedError`` if refused. On success the disk matches."""
        ...

    async def disk_note(self, paths: Sequence[Path] | None = None) -> str | None:
        """docs/protocol.md#the-disk-tells-the-truth-93: where the agent's last change to ``paths``
        is (``None``: every file whose change is only in an editor buffer), in plain words for the
        model; ``None`` when there is nothing to say."""
        ...

    async def exists(self, path: Path) -> bool: ...

    async def is_dir(self, path: Path) -> bool: ...

    async def list_dir(self, path: Path) -> list[DirEntry]: ...

    def mutation_lock(self, path: Path) -> AbstractAsyncContextManager[None]:
        """FIFO lock per real path: edit/write on one file run one at a time, in call order."""
        ...


FileEdits = Mapping[Path, tuple[Document, Sequence[TextEdit]]]
"""Several files' edits, each computed against its ``Document``: one change (a rename)."""


@runtime_checkable
class MultiFileEdits(Protocol):
    """A workspace that applies several files' edits as one change (``DiskWorkspace``: all
    checked first, then written; ``EditorWorkspace``: one ``workspace/applyEdit`` — one undo
    step, hunks in the review, one checkpoint). A workspace without it gets one
    ``apply_edits`` per file."""

    async def apply_workspace_edit(
        self, files: FileEdits, *, label: str, context: ToolCallContext | None = None
    ) -> None:
        """Apply every file's edits or none: ``StaleDocumentError`` when any file changed
        since its document was read, ``EditRejectedError`` when refused."""
        ...
