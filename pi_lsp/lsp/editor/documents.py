"""Open editor buffers as the agent sees them: lookup by real path, and edits in flight.

pygls keeps the text (``workspace.text_documents``, keyed by the *unquoted* uri); this module
adds what the agent needs on top: finding a buffer from a resolved filesystem path (symlinks,
quoting), and the text an applied edit produced until the client's ``didChange`` confirms it
(Neovim debounces didChange; eglot sends it late), so a read right after an edit never sees
the old text. Must not import the session or agent modules.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from pygls.uris import to_fs_path
from pygls.workspace import Workspace as PyglsWorkspace

CONFIRM_TIMEOUT = 1.0
"""How long a read waits for the didChange that follows an applied edit."""


@dataclass(slots=True)
class Buffer:
    uri: str
    text: str
    version: int | None
    expected: bool = False
    """True when ``text`` is an applied edit's result the client has not confirmed yet."""


@dataclass(slots=True)
class _Expectation:
    base_version: int | None
    text: str


def real_path(uri: str) -> Path | None:
    if not uri.startswith("file:"):
        return None
    fs = to_fs_path(uri)
    if fs is None:
        return None
    try:
        return Path(os.path.realpath(fs))
    except (OSError, ValueError):
        return None


class DocumentTracker:
    def __init__(self, workspace: PyglsWorkspace | None = None) -> None:
        self.workspace = workspace
        self._by_path: dict[Path, str] = {}
        self._expected: dict[str, _Expectation] = {}
        self._changed: dict[str, asyncio.Event] = {}

    # ------------------------------------------------------------- notifications in

    def opened(self, uri: str) -> None:
        path = real_path(uri)
        if path is not None:
            self._by_path[path] = unquote(uri)
        self._expected.pop(unquote(uri), None)
        self._signal(uri)

    def changed(self, uri: str, version: int | None) -> None:
        key = unquote(uri)
        exp = self._expected.get(key)
        if exp is not None and (
            version is None or exp.base_version is None or version > exp.base_version
        ):
            del self._expected[key]
        self._signal(uri)

    def closed(self, uri: str) -> None:
        key = unquote(uri)
        path = real_path(uri)
        if path is not None and self._by_path.get(path) == key:
            del self._by_path[path]
        self._expected.pop(key, None)
        self._signal(uri)

    def forget_all(self, workspace: PyglsWorkspace | None = None) -> None:
        """The client went away (or a new one came): its buffers are gone with it."""
        self.workspace = workspace
        self._by_path.clear()
        self._expected.clear()
        for event in self._changed.values():
            event.set()
        self._changed.clear()

    def _signal(self, uri: str) -> None:
        event = self._changed.pop(unquote(uri), None)
        if event is not None:
            event.set()

    # --------------------------------------------------------------------- queries

    def uri_for(self, path: Path) -> str | None:
        """The uri of the open buffer showing ``path`` (symlinks resolved), if any."""
        real = Path(os.path.realpath(path))
        key = self._by_path.get(real)
        if key is not None and self.workspace is not None:
            if key in self.workspace.text_documents:
                return key
            del self._by_path[real]
        return None

    def open_paths(self) -> list[Path]:
        """The files open in the editor (symlinks resolved), in the order they were opened."""
        return [path for path in list(self._by_path) if self.uri_for(path) is not None]

    def buffer(self, uri: str) -> Buffer | None:
        """The buffer's current text (an unconfirmed applied edit included)."""
        if self.workspace is None:
            return None
        key = unquote(uri)
        doc = self.workspace.text_documents.get(key)
        if doc is None:
            return None
        exp = self._expected.get(key)
        if exp is not None and (exp.base_version is None or doc.version == exp.base_version):
            return Buffer(key, exp.text, doc.version, expected=True)
        if exp is not None:
            del self._expected[key]
        return Buffer(key, doc.source, doc.version)

    async def settled_buffer(self, uri: str) -> Buffer | None:
        """Like ``buffer``, but first waits (briefly) for the didChange of an applied edit."""
        buf = self.buffer(uri)
        if buf is None or not buf.expected:
            return buf
        event = self._changed.setdefault(unquote(uri), asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), CONFIRM_TIMEOUT)
        return self.buffer(uri)

    def expect(self, uri: str, base_version: int | None, text: str) -> None:
        """An edit was applied to the open buffer at ``base_version``, giving ``text``."""
        self._expected[unquote(uri)] = _Expectation(base_version, text)
