"""An open buffer whose ``didChange`` costs what the change touches, not the whole text.

pygls' ``TextDocument`` re-splits the whole text into lines, converts the position with a
Python loop over the line, and rebuilds the whole text on every incremental change: ten
thousand one-character ``didChange``s into one long line cost ~35 s of CPU while requests
queued behind them. Here the document is a list of lines (each with its line break): a change
converts its positions on the touched lines only (C-speed for ASCII / BMP text), replaces
those lines, and the full text is joined only when someone asks for it (cached until the next
change). Line breaks are LSP's: ``\\n``, ``\\r\\n`` and ``\\r``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument
from pygls.workspace import Workspace as PyglsWorkspace

from ..protocol.positions import Encoding, normalize_encoding

_ASTRAL = "\U00010000"
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def split_lines(text: str) -> list[str]:
    """Lines with their breaks, split where LSP splits (``str.splitlines`` also splits on
    U+2028, form feeds and more, which clients count as ordinary characters)."""
    if "\r" not in text:  # the common case: str.split runs at memcpy speed, the regex does not
        parts = text.split("\n")
        lines = [part + "\n" for part in parts[:-1]]
        if parts[-1]:
            lines.append(parts[-1])
        return lines
    return _LINE.findall(text)


def _content(line: str) -> str:
    """``line`` without its line break."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\n", "\r")):
        return line[:-1]
    return line


def column_to_index(content: str, character: int, encoding: Encoding) -> int:
    """String index of an LSP ``character`` in one line's content (clamped to its end)."""
    if character <= 0:
        return 0
    if encoding == "utf-32" or content.isascii():
        return min(character, len(content))
    if encoding == "utf-16":
        if not content or max(content) < _ASTRAL:
            return min(character, len(content))
        count = 0
        for index, ch in enumerate(content):
            if count >= character:
                return index
            count += 2 if ch >= _ASTRAL else 1
        return len(content)
    head = content.encode("utf-8", "surrogatepass")[:character]
    chars = head.decode("utf-8", "ignore")
    if len(chars.encode("utf-8", "surrogatepass")) < len(head):
        return min(len(chars) + 1, len(content))  # inside a character: after it (TextIndex)
    return len(chars)


class PiTextDocument(TextDocument):
    """See the module docstring; a drop-in for pygls' ``TextDocument``."""

    def __init__(self, *args: Any, encoding: Encoding = "utf-16", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.encoding = encoding
        self._lines: list[str] = split_lines(self._source or "")
        self._joined: str | None = self._source or ""
        self._source = None
        self.full_joins = 0
        """How often the whole text was rebuilt (for the linear-cost test)."""

    @property
    def source(self) -> str:
        if self._joined is None:
            self._joined = "".join(self._lines)
            self.full_joins += 1
        return self._joined

    @property
    def lines(self) -> Sequence[str]:
        return tuple(self._lines)

    def _apply_full_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        self._lines = split_lines(change.text)
        self._joined = change.text

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        lines = self._lines
        start, end = change.range.start, change.range.end
        if start.line >= len(lines):  # past the end: append (as pygls does)
            self._splice(len(lines), len(lines), "", change.text, "")
            return
        first = start.line
        last = min(max(end.line, first), len(lines) - 1)
        first_line = lines[first]
        start_index = column_to_index(_content(first_line), start.character, self.encoding)
        if end.line >= len(lines):
            last_line = lines[last]
            end_index = len(last_line)
        else:
            last_line = lines[last]
            end_index = column_to_index(_content(last_line), end.character, self.encoding)
        prefix = first_line[:start_index]
        suffix = last_line[end_index:]
        if last == first and end.line == start.line and end_index < start_index:
            suffix = first_line[start_index:]  # a reversed range: treat as empty
        self._splice(first, last + 1, prefix, change.text, suffix)

    def _splice(self, first: int, stop: int, prefix: str, text: str, suffix: str) -> None:
        lines = self._lines
        middle = prefix + text + suffix
        if (
            first > 0
            and not prefix
            and (
                # the last line has no break: an append continues it
                not lines[first - 1].endswith(("\n", "\r"))
                # "\r" ending the line before and "\n" starting this one are one break
                or (middle.startswith("\n") and lines[first - 1].endswith("\r"))
            )
        ):
            first -= 1
            middle = lines[first] + middle
        if stop == first + 1 and "\n" not in text and "\r" not in text and middle:
            lines[first] = middle  # typing inside one line: no line break appears or goes
        else:
            lines[first:stop] = split_lines(middle)
        self._joined = None


def install(workspace: PyglsWorkspace) -> None:
    """Make ``workspace`` create ``PiTextDocument``s for the buffers opened from now on."""
    encoding = normalize_encoding(workspace.position_encoding)
    sync_kind = workspace._sync_kind
    codec = workspace.position_codec

    def create(
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return PiTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=sync_kind,
            position_codec=codec,
            encoding=encoding,
        )

    workspace._create_text_document = create  # type: ignore[method-assign]
