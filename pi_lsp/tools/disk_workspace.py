"""``DiskWorkspace``: the ``Workspace`` protocol on the real filesystem, with confinement.

Owns path resolution and the confinement rule (every path must resolve, symlinks followed,
inside one of the roots), disk reads/writes, listing, and the per-file mutation queue. The LSP
layer's ``EditorWorkspace`` subclasses it and overrides only ``read_document``,
``write_document`` and ``apply_edits``; the ``disk_*`` helpers are there for it to reuse.
File contents are read and written in a worker thread so the event loop never blocks on disk.
Must not import pygls/lsprotocol or anything above tools/.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import anyio.to_thread

from .mutation_queue import FileMutationQueue
from .paths import expand_path, is_within
from .regular_files import open_regular
from .text_cache import DiskTextCache
from .workspace import (
    DirEntry,
    Document,
    FileEdits,
    OutsideWorkspaceError,
    StaleDocumentError,
    TextEdit,
    ToolCallContext,
    apply_text_edits,
)

# Non-UTF-8 bytes survive a read/write round trip as lone surrogates (PEP 383).
TEXT_ERRORS = "surrogateescape"


def decode_text(data: bytes) -> str:
    """Disk bytes to ``Document.text``: UTF-8, BOM and line endings kept, bad bytes kept."""
    return data.decode("utf-8", TEXT_ERRORS)


def encode_text(text: str) -> bytes:
    return text.encode("utf-8", TEXT_ERRORS)


class DiskWorkspace:
    """A workspace of one or more root directories; the first root is the cwd."""

    def __init__(self, roots: Sequence[Path | str]) -> None:
        if not roots:
            raise ValueError("a workspace needs at least one root")
        resolved: list[Path] = []
        for root in roots:
            real = Path(os.path.realpath(Path(root).expanduser()))
            if real not in resolved:
                resolved.append(real)
        self._roots: tuple[Path, ...] = tuple(resolved)
        self._queue = FileMutationQueue()
        self._texts = DiskTextCache()
        """Recently read texts, served again while the file's stat is unchanged."""

    def set_roots(self, roots: Sequence[Path | str]) -> None:
        """Replace the roots (an editor added or removed workspace folders). The cwd stays the
        same while it is still a root, so ``bash`` and relative paths do not move under a
        session; an empty list keeps the current roots (a workspace never has none)."""
        resolved: list[Path] = []
        for root in roots:
            real = Path(os.path.realpath(Path(root).expanduser()))
            if real not in resolved:
                resolved.append(real)
        if not resolved:
            return
        cwd = self._roots[0]
        if cwd in resolved:
            resolved.remove(cwd)
            resolved.insert(0, cwd)
        self._roots = tuple(resolved)

    # ------------------------------------------------------------------ paths and rules

    @property
    def roots(self) -> Sequence[Path]:
        return self._roots

    @property
    def cwd(self) -> Path:
        return self._roots[0]

    def roots_text(self) -> str:
        return ", ".join(str(r) for r in self._roots)

    def contains(self, path: Path) -> bool:
        """True when ``path`` (symlinks followed) lies inside a root."""
        real = Path(os.path.realpath(path))
        return any(is_within(real, root) for root in self._roots)

    def resolve(self, path: str) -> Path:
        return self.confine(expand_path(path, self.cwd))

    def confine(self, path: Path) -> Path:
        candidate = Path(os.path.normpath(path if path.is_absolute() else self.cwd / path))
        real = Path(os.path.realpath(candidate))
        if any(is_within(real, root) for root in self._roots):
            return candidate
        rule = "Only files inside the workspace can be accessed."
        if real != candidate and any(is_within(candidate, r) for r in self._roots):
            raise OutsideWorkspaceError(
                f"Path {candidate} is a symbolic link to {real}, which is outside the "
                f"workspace (roots: {self.roots_text()}). {rule}"
            )
        raise OutsideWorkspaceError(
            f"Path {candidate} is outside the workspace (roots: {self.roots_text()}). {rule}"
        )

    def seen_text(self, path: Path) -> str | None:
        return None  # nobody else types here

    def display_path(self, path: Path) -> str:
        if is_within(path, self.cwd):
            return path.relative_to(self.cwd).as_posix() or "."
        return str(path)

    def mutation_lock(self, path: Path) -> AbstractAsyncContextManager[None]:
        return self._queue.hold(os.path.realpath(path))

    # ------------------------------------------------------------ the three text seams

    async def read_document(self, path: Path) -> Document:
        return Document(path=path, text=await self.disk_read_text(path))

    async def write_document(
        self, path: Path, text: str, *, label: str, context: ToolCallContext | None = None
    ) -> None:
        await self.disk_write_text(path, text)

    async def disk_note(self, paths: Sequence[Path] | None = None) -> str | None:
        return None  # the disk is the only copy: Pi's wording already says it all

    async def apply_edits(
        self,
        document: Document,
        edits: Sequence[TextEdit],
        *,
        label: str,
        context: ToolCallContext | None = None,
    ) -> None:
        def work() -> None:
            current = decode_text(_read_regular(document.path))
            if current != document.text:
                raise StaleDocumentError(
                    f"{self.display_path(document.path)} changed on disk after it was read; "
                    "the edit was not applied. Read the file again and retry."
                )
            _write_in_place(document.path, encode_text(apply_text_edits(current, edits)))

        await anyio.to_thread.run_sync(work)

    async def apply_workspace_edit(
        self, files: FileEdits, *, label: str, context: ToolCallContext | None = None
    ) -> None:
        """Every file checked against its document first (any change: nothing written),
        then each written, under every file's mutation lock."""
        async with contextlib.AsyncExitStack() as stack:
            for path in sorted(files, key=os.path.realpath):  # one order: no deadlock
                await stack.enter_async_context(self.mutation_lock(path))

            def work() -> None:
                for document, _ in files.values():
                    if decode_text(_read_regular(document.path)) != document.text:
                        raise StaleDocumentError(
                            f"{self.display_path(document.path)} changed on disk after it was "
                            "read; nothing was changed. Read the file again and retry."
                        )
                for document, edits in files.values():
                    new = apply_text_edits(document.text, edits)
                    _write_in_place(document.path, encode_text(new))

            await anyio.to_thread.run_sync(work)

    # --------------------------------------------------------------- disk primitives

    async def disk_read_text(self, path: Path) -> str:
        cached = self._texts.get(path)  # one stat: no worker thread for an unchanged file
        if cached is not None:
            return cached
        return await anyio.to_thread.run_sync(self._texts.read, path, decode_text)

    async def disk_write_text(self, path: Path, text: str) -> None:
        data = encode_text(text)

        def work() -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists():
                _require_regular(path)
            _write_in_place(path, data)

        await anyio.to_thread.run_sync(work)

    async def read_bytes(self, path: Path) -> bytes:
        return await anyio.to_thread.run_sync(_read_regular, path)

    async def read_head(self, path: Path, size: int) -> bytes:
        def work() -> bytes:
            with open_regular(path) as fh:
                return fh.read(size)

        return await anyio.to_thread.run_sync(work)

    async def file_size(self, path: Path) -> int:
        return (await anyio.to_thread.run_sync(os.stat, path)).st_size

    async def exists(self, path: Path) -> bool:
        return await anyio.to_thread.run_sync(os.path.exists, path)

    async def is_dir(self, path: Path) -> bool:
        return await anyio.to_thread.run_sync(os.path.isdir, path)

    async def list_dir(self, path: Path) -> list[DirEntry]:
        def work() -> list[DirEntry]:
            entries: list[DirEntry] = []
            with os.scandir(path) as it:
                for entry in it:
                    try:
                        is_dir = entry.is_dir()  # follows symlinks, like Pi's stat()
                        if not is_dir:
                            os.stat(entry.path)  # broken links are skipped, as Pi does
                    except OSError:
                        continue
                    entries.append(DirEntry(entry.name, is_dir))
            return entries

        return await anyio.to_thread.run_sync(work)


def _require_regular(path: Path) -> None:
    """Refuse to write into FIFOs, sockets and devices: opening one could block forever."""
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "Not a regular file", str(path))


def _read_regular(path: Path) -> bytes:
    with open_regular(path) as fh:
        return fh.read()


def _write_in_place(path: Path, data: bytes) -> None:
    """Overwrite keeping the inode (mode, owner, hard links), as editors and Pi do."""
    with path.open("wb") as fh:
        fh.write(data)
