"""Lone surrogates: Python strings can hold them, UTF-8 and strict JSON readers cannot.

They arrive as half an emoji cut by a UTF-16 editor (an LSP position inside a pair), or as
the bytes of a non-UTF-8 file kept by ``surrogateescape`` (U+DC80–U+DCFF, one per byte).
``replace_lone_surrogates`` makes text safe to persist or send (a split pair that is whole
again is joined; the rest become U+FFFD); ``show_undecodable`` makes escaped bytes visible as
``\\xNN`` where a person reads them (diffs). Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR_OR_LONE = re.compile("([\ud800-\udbff][\udc00-\udfff])|[\ud800-\udfff]")
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def _fix(match: re.Match[str]) -> str:
    pair = match.group(1)
    if pair is not None:
        return pair.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    return "\ufffd"


def replace_lone_surrogates(text: str) -> str:
    """``text`` with surrogate pairs joined and every other surrogate replaced by U+FFFD."""
    if _SURROGATE.search(text) is None:
        return text
    return _PAIR_OR_LONE.sub(_fix, text)


def show_undecodable(text: str) -> str:
    """Bytes kept by ``surrogateescape`` shown as ``\\xNN``; other lone surrogates → U+FFFD."""
    if _SURROGATE.search(text) is None:
        return text
    text = _ESCAPED_BYTE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text)
    return replace_lone_surrogates(text)


def clean_surrogates(value: Any) -> Any:
    """JSON-like data with ``replace_lone_surrogates`` applied to every string (keys too)."""
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    if isinstance(value, dict):
        return {clean_surrogates(k): clean_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_surrogates(v) for v in value]
    return value
