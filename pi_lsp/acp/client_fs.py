"""The tools' ``Workspace`` for an ACP session: the client's files when it offers them.

``ClientFsWorkspace`` wraps the disk workspace (paths, confinement, listing, the per-file
mutation lock stay there) and sends whole-file writes and edits through
``fs/write_text_file`` when the client advertised ``fs.writeTextFile`` (Zed builds its
Keep/Reject review list from exactly these), and reads of documents through
``fs/read_text_file`` when it advertised ``fs.readTextFile`` (an editor answers with the
unsaved buffer). A capability the client did not advertise is never used: those operations
go to the disk. An edit is applied to the text it was computed against; if the client's text
changed in between, the edit fails with ``StaleDocumentError`` (the model reads it and reads
the file again) instead of overwriting the user's typing.
Imports the workspace protocol (``tools/workspace.py``) and nothing else of ours.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path

from ..tools.workspace import (
    DirEntry,
    Document,
    EditRejectedError,
    StaleDocumentError,
    TextEdit,
    Workspace,
    apply_text_edits,
)

log = logging.getLogger("pi_lsp.acp")

ReadText = Callable[[Path], Awaitable[str]]
WriteText = Callable[[Path, str], Awaitable[None]]


class ClientFsError(Exception):
    """The client answered an ``fs/*`` request with an error."""


@dataclass(frozen=True, slots=True)
class ClientFs:
    """What the client offers: ``read`` / ``write`` are ``None`` when it did not advertise
    them."""

    read: ReadText | None = None
    write: WriteText | None = None


class ClientFsWorkspace:
    """A ``Workspace`` that delegates to ``inner`` except where the client takes over."""

    def __init__(self, inner: Workspace, fs: ClientFs) -> None:
        self.inner = inner
        self.fs = fs

    # ------------------------------------------------------------------ delegated as is

    @property
    def roots(self) -> Sequence[Path]:
        return self.inner.roots

    @property
    def cwd(self) -> Path:
        return self.inner.cwd

    def resolve(self, path: str) -> Path:
        return self.inner.resolve(path)

    def confine(self, path: Path) -> Path:
        return self.inner.confine(path)

    def seen_text(self, path: Path) -> str | None:
        return self.inner.seen_text(path)

    def display_path(self, path: Path) -> str:
        return self.inner.display_path(path)

    async def read_bytes(self, path: Path) -> bytes:
        return await self.inner.read_bytes(path)

    async def read_head(self, path: Path, size: int) -> bytes:
        return await self.inner.read_head(path, size)

    async def file_size(self, path: Path) -> int:
        return await self.inner.file_size(path)

    async def exists(self, path: Path) -> bool:
        return await self.inner.exists(path)

    async def is_dir(self, path: Path) -> bool:
        return await self.inner.is_dir(path)

    async def list_dir(self, path: Path) -> list[DirEntry]:
        return await self.inner.list_dir(path)

    def mutation_lock(self, path: Path) -> AbstractAsyncContextManager[None]:
        return self.inner.mutation_lock(path)

    async def disk_note(self, paths: Sequence[Path] | None = None) -> str | None:
        return await self.inner.disk_note(paths)

    # ------------------------------------------------------------------ through the client

    async def read_document(self, path: Path) -> Document:
        if self.fs.read is None or not await self.inner.exists(path):
            return await self.inner.read_document(path)  # raises FileNotFoundError & co.
        if await self.inner.is_dir(path):
            raise IsADirectoryError(21, "Is a directory", str(path))
        try:
            text = await self.fs.read(path)
        except ClientFsError as exc:
            log.info("fs/read_text_file %s failed (%s): reading the disk", path, exc)
            return await self.inner.read_document(path)
        return Document(path=path, text=text, from_buffer=True)

    async def write_document(self, path: Path, text: str, *, label: str) -> None:
        if self.fs.write is None:
            await self.inner.write_document(path, text, label=label)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        await self._client_write(path, text)

    async def apply_edits(
        self, document: Document, edits: Sequence[TextEdit], *, label: str
    ) -> None:
        if self.fs.write is None:
            if document.from_buffer:  # computed on the client's text: check the disk's
                current = await self.inner.read_document(document.path)
                if current.text != document.text:
                    raise StaleDocumentError(
                        f"{self.display_path(document.path)} changed since it was read; "
                        "read it again"
                    )
                await self.inner.apply_edits(current, edits, label=label)
                return
            await self.inner.apply_edits(document, edits, label=label)
            return
        current = await self.read_document(document.path)
        if current.text != document.text:
            raise StaleDocumentError(
                f"{self.display_path(document.path)} changed since it was read; read it again"
            )
        try:
            new_text = apply_text_edits(document.text, edits)
        except ValueError as exc:
            raise StaleDocumentError(str(exc)) from exc
        await self._client_write(document.path, new_text)

    async def _client_write(self, path: Path, text: str) -> None:
        assert self.fs.write is not None
        try:
            await self.fs.write(path, text)
        except ClientFsError as exc:
            raise EditRejectedError(
                f"The editor did not write {self.display_path(path)}: {exc}"
            ) from exc
