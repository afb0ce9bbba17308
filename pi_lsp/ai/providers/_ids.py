"""Tool-call and item ids shared by the Responses and Gemini providers: Pi's ``shortHash``
(so a long id hashes to the same short id as in Pi) and id sanitising.

Pure functions, standard library only. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import re

_MASK = 0xFFFFFFFF
_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _imul(a: int, b: int) -> int:
    return (a * b) & _MASK


def _base36(value: int) -> str:
    if value == 0:
        return "0"
    out = []
    while value:
        value, rest = divmod(value, 36)
        out.append(_DIGITS[rest])
    return "".join(reversed(out))


def short_hash(text: str) -> str:
    """Pi's deterministic 53-bit style hash (two 32-bit lanes, base 36), over UTF-16 code
    units as JavaScript sees the string; the result equals Pi's for the same input."""
    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    units = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(units), 2):
        ch = units[i] | (units[i + 1] << 8)
        h1 = _imul(h1 ^ ch, 2654435761)
        h2 = _imul(h2 ^ ch, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return _base36(h2 & _MASK) + _base36(h1 & _MASK)


def sanitize_id(part: str, limit: int = 64) -> str:
    """Only ``[A-Za-z0-9_-]`` (others become ``_``), at most ``limit`` characters, no
    trailing underscores (Pi's ``normalizeIdPart``)."""
    return _ID_CHARS.sub("_", part)[:limit].rstrip("_")
