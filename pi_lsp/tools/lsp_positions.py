"""Columns for the ``lsp`` tool: the model's 1-based code points ↔ LSP position units, and
a ``symbol`` on a line → its column. Pure functions. Must not import above tools/.
"""

from __future__ import annotations

import functools
import re

from .code_intel import Encoding


def _unit_len(ch: str, encoding: Encoding) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-16":
        return 2 if ord(ch) > 0xFFFF else 1
    return len(ch.encode("utf-8", "surrogatepass"))


def to_units(line: str, column: int, encoding: Encoding = "utf-16") -> int:
    """The LSP ``character`` of code point ``column`` (0-based) of ``line``."""
    column = max(0, min(column, len(line)))
    if encoding == "utf-32":
        return column
    return sum(_unit_len(ch, encoding) for ch in line[:column])


def from_units(line: str, units: int, encoding: Encoding = "utf-16") -> int:
    """The 0-based code point column of LSP ``character`` ``units`` on ``line`` (clamped; a
    position inside a character counts as that character)."""
    if encoding == "utf-32":
        return max(0, min(units, len(line)))
    count = 0
    for index, ch in enumerate(line):
        if count >= units:
            return index
        count += _unit_len(ch, encoding)
    return len(line)


def find_symbol(line: str, symbol: str) -> int | None:
    """The 0-based column of the first whole-word occurrence of ``symbol`` on ``line``
    (``None``: absent). A symbol that is not an identifier is matched as written."""
    symbol = symbol.strip()
    if not symbol:
        return None
    found = _symbol_pattern(symbol).search(line)
    return found.start() if found else None


@functools.lru_cache(maxsize=256)
def _symbol_pattern(symbol: str) -> re.Pattern[str]:
    pattern = re.escape(symbol)
    if re.match(r"\w", symbol):
        pattern = r"(?<!\w)" + pattern
    if re.search(r"\w$", symbol):
        pattern += r"(?!\w)"
    return re.compile(pattern)


_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """``text``'s lines as LSP counts them (``\\n``, ``\\r\\n`` and ``\\r`` end a line)."""
    return _BREAK.split(text)


def line_starts(text: str) -> list[int]:
    """The offset where each LSP line of ``text`` starts."""
    return [0, *(m.end() for m in _BREAK.finditer(text))]


def offset_at(text: str, starts: list[int], pos: dict[str, object], encoding: Encoding) -> int:
    """The code point offset into ``text`` of LSP position ``pos`` (clamped to its line;
    a line past the end is the end of the text)."""
    line = int(str(pos.get("line", 0)))
    units = int(str(pos.get("character", 0)))
    if line >= len(starts):
        return len(text)
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    content = _BREAK.sub("", text[start:end])
    return start + from_units(content, units, encoding)
