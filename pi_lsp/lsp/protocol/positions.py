"""Python string offsets ↔ LSP positions in the negotiated ``positionEncoding``.

LSP lines end at ``\\n``, ``\\r\\n`` or ``\\r``; a character is counted in UTF-16 code units
by default, or UTF-8 bytes / code points when negotiated. Pure functions, no pygls.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]
_BREAK = re.compile(r"\r\n|\r|\n")


def normalize_encoding(value: object) -> Encoding:
    text = str(getattr(value, "value", value) or "utf-16").lower()
    if text in ("utf-8", "utf8"):
        return "utf-8"
    if text in ("utf-32", "utf32"):
        return "utf-32"
    return "utf-16"


def units(text: str, encoding: Encoding) -> int:
    """Length of ``text`` in code units of ``encoding``."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-16":
        return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
    return len(text.encode("utf-8", "surrogatepass"))


class TextIndex:
    """Line table of one text for repeated conversions."""

    def __init__(self, text: str, encoding: Encoding = "utf-16") -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0] + [m.end() for m in _BREAK.finditer(text)]

    def line_end(self, line: int) -> int:
        """Offset where ``line``'s content ends (before its line break)."""
        if line + 1 < len(self.starts):
            end = self.starts[line + 1]
            brk = self.text[max(end - 2, self.starts[line]) : end]
            return end - (2 if brk == "\r\n" else 1)
        return len(self.text)

    def position(self, offset: int) -> tuple[int, int]:
        """``(line, character)`` of a string offset (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        end = self.line_end(line)
        if offset > end:  # inside a \r\n pair: snap to the line end
            offset = end
        return line, units(self.text[start:offset], self.encoding)

    def offset(self, line: int, character: int) -> int:
        """String offset of an LSP position (past-the-end values are clamped, as LSP says)."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self.line_end(line)
        if self.encoding == "utf-32":
            return min(start + character, end)
        count = 0
        pos = start
        while pos < end and count < character:
            ch = self.text[pos]
            if self.encoding == "utf-16":
                count += 2 if ord(ch) > 0xFFFF else 1
            else:
                count += len(ch.encode("utf-8", "surrogatepass"))
            pos += 1
        return pos
