"""Parsing tool-call arguments while they stream (pi-ai ``parseStreamingJson``).

Order: blank -> ``{}``; strict parse; strict parse of the repaired text; partial parse of the
raw text; partial parse of the repaired text; ``{}``. Partial parsing is pydantic-core's
``from_json(..., allow_partial="trailing-strings")`` (an unterminated string value is
kept, as the partial-json library does). The result is always a dict (a non-object parse
gives ``{}``). Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic_core import from_json

_VALID_ESCAPES = frozenset('"\\/bfnrtu')
_CONTROL_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NEEDS_REPAIR = re.compile(r"[\x00-\x1f\\]")


def repair_json(text: str) -> str:
    """Escape raw control characters inside strings and double stray backslashes.

    ``\\uXXXX`` escapes are left alone. Outside strings nothing changes.
    """
    if not _NEEDS_REPAIR.search(text):
        return text
    out: list[str] = []
    in_string = False
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if not in_string:
            if ch == '"':
                in_string = True
            out.append(ch)
            i += 1
            continue
        if ch == '"':
            in_string = False
            out.append(ch)
        elif ch == "\\":
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt in _VALID_ESCAPES and nxt:
                out.append(ch)
                out.append(nxt)
                i += 2
                continue
            out.append("\\\\")
        elif ch < " ":
            out.append(_CONTROL_ESCAPES.get(ch, f"\\u{ord(ch):04x}"))
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _as_object(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def parse_streaming_json(text: str | None) -> dict[str, Any]:
    """Best-effort parse of possibly incomplete JSON into an object (never raises)."""
    if text is None or not text.strip():
        return {}
    try:
        parsed = _as_object(json.loads(text))
        if parsed is not None:
            return parsed
    except ValueError:
        pass
    repaired = repair_json(text)
    if repaired is not text:
        try:
            parsed = _as_object(json.loads(repaired))
            if parsed is not None:
                return parsed
        except ValueError:
            pass
    for candidate in (text, repaired) if repaired is not text else (text,):
        try:
            parsed = _as_object(from_json(candidate, allow_partial="trailing-strings"))
            if parsed is not None:
                return parsed
        except ValueError:
            continue
    return {}
