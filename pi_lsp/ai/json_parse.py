"""Parsing tool-call arguments while they stream (pi-ai ``parseStreamingJson``).

Pi's order: blank -> ``{}``; strict parse; strict parse of the repaired text; partial parse of
the raw text; partial parse of the repaired text; ``{}`` (see ``parse_streaming_json`` for how
this module gets the same results in fewer passes). Partial parsing is pydantic-core's
``from_json(..., allow_partial="trailing-strings")`` (an unterminated string value is
kept, as the partial-json library does). The result is always a dict (a non-object parse
gives ``{}``). Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic_core import from_json

_VALID_ESCAPE_CHARS = frozenset('"\\/bfnrtu')
_CONTROL_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NEEDS_REPAIR = re.compile(r"[\x00-\x1f\\]")
# a string literal: its body (escape pairs kept together, possibly a lone trailing backslash)
# and its closing quote, or the end of a truncated text
_STRING_LITERAL = re.compile(r'"((?:[^"\\]++|\\.)*+\\?)("|\Z)', re.DOTALL)
# inside a string body: a run of fine text and valid escape pairs, then at most one stray
# backslash (before an invalid escape character, or at the very end). Matches tile the body
# from left to right, so an escape pair is never split.
_STRAY_BACKSLASH = re.compile(r'((?:[^\\]++|\\[\\"/bfnrtu])*+)(?:\\(.|\Z))?', re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x1f]")


def _double_stray(match: re.Match[str]) -> str:
    good, following = match.groups()
    return str(good) if following is None else f"{good}\\\\{following}"


def _escape_control(match: re.Match[str]) -> str:
    ch = match.group(0)
    return _CONTROL_ESCAPES.get(ch, f"\\u{ord(ch):04x}")


def _fix_string(match: re.Match[str]) -> str:
    body, closing = match.groups()
    if "\\" in body:
        body = _STRAY_BACKSLASH.sub(_double_stray, body)
    if _CONTROL.search(body):
        body = body.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
        body = _CONTROL.sub(_escape_control, body)
    return f'"{body}{closing}'


def repair_json(text: str) -> str:
    """Escape raw control characters inside strings and double stray backslashes.

    ``\\uXXXX`` escapes are left alone. Outside strings nothing changes. Regex-driven (C
    speed): this runs on every streamed tool-argument delta that is not valid JSON yet.
    """
    if not _NEEDS_REPAIR.search(text):
        return text
    return _STRING_LITERAL.sub(_fix_string, text)


def _as_object(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def parse_streaming_json(text: str | None) -> dict[str, Any]:
    """Best-effort parse of possibly incomplete JSON into an object (never raises).

    The strict parse and the partial parse of the raw text are one pydantic-core call: a
    valid (possibly truncated) JSON prefix parses to the same value either way, and the
    repaired text can only parse where the raw text did not, so the result equals pi's
    strict → repaired → partial → partial-repaired order without running the repair on
    every delta of a long, valid tool argument.
    """
    if text is None or not text.strip():
        return {}
    try:
        return _as_object(from_json(text, allow_partial="trailing-strings")) or {}
    except ValueError:
        pass
    repaired = repair_json(text)
    if repaired is text:
        return {}
    try:
        parsed = _as_object(json.loads(repaired))
        if parsed is not None:
            return parsed
    except ValueError:
        pass
    try:
        return _as_object(from_json(repaired, allow_partial="trailing-strings")) or {}
    except ValueError:
        return {}


class StreamingJsonParser:
    """The providers' per-tool-call parser: ``feed(delta)`` returns what
    ``parse_streaming_json(text so far)`` would, but repairs only the new characters.

    Tool arguments only ever grow by appending, so the repaired text is kept incrementally
    (a trailing backslash stays pending until the next character says whether it starts a
    valid escape). Re-running the repair over the whole text on every delta made a long
    ``write`` with raw newlines quadratic in pure Python.

    Parsing is linear too: below ``EAGER_PARSE_CHARS`` every delta re-parses; above it the
    text is re-parsed once it has grown by ``PARSE_GROWTH`` since the last parse (between
    parses ``feed`` returns the last result), so the total parsing work is a constant times
    the argument's length. A 640 KB ``write`` in 4-character deltas re-parsed on every delta
    cost ~50 GB of parsing. ``parse()`` (called at the block's end) always parses it all.
    """

    __slots__ = ("_committed", "_in_string", "_last", "_next_parse", "_pending_backslash", "text")

    EAGER_PARSE_CHARS = 4096
    PARSE_GROWTH = 1.25

    def __init__(self) -> None:
        self.text = ""
        self._committed = ""
        self._in_string = False
        self._pending_backslash = False
        self._last: dict[str, Any] = {}
        self._next_parse = 0

    def feed(self, delta: str) -> dict[str, Any]:
        # Extend the strings in place: dropping our reference first lets CPython grow the
        # string instead of copying it (``self.text += delta`` copies all of it every time).
        text = self.text
        self.text = ""
        text += delta
        self.text = text
        self._repair(delta)
        size = len(text)
        if size <= self.EAGER_PARSE_CHARS or size >= self._next_parse:
            self._last = self.parse()
            self._next_parse = int(size * self.PARSE_GROWTH)
        return self._last

    def repaired(self) -> str:
        """``repair_json(self.text)``."""
        tail = "\\\\" if self._pending_backslash else ""
        return self._committed + tail

    def parse(self) -> dict[str, Any]:
        text = self.text
        if not text.strip():
            return {}
        try:
            return _as_object(from_json(text, allow_partial="trailing-strings")) or {}
        except ValueError:
            pass
        repaired = self.repaired()
        if repaired == text:
            return {}
        try:
            parsed = _as_object(json.loads(repaired))
            if parsed is not None:
                return parsed
        except ValueError:
            pass
        try:
            return _as_object(from_json(repaired, allow_partial="trailing-strings")) or {}
        except ValueError:
            return {}

    def _repair(self, delta: str) -> None:
        if (
            not self._pending_backslash
            and '"' not in delta
            and (not self._in_string or not _NEEDS_REPAIR.search(delta))
        ):
            self._append_committed(delta)  # nothing to repair, and no string starts or ends
            return
        parts: list[str] = []
        for ch in delta:
            if self._pending_backslash:
                self._pending_backslash = False
                if ch in _VALID_ESCAPE_CHARS:
                    parts.append("\\" + ch)
                    continue
                parts.append("\\\\")  # stray backslash: doubled; ch is handled below
            if not self._in_string:
                self._in_string = ch == '"'
                parts.append(ch)
            elif ch == '"':
                self._in_string = False
                parts.append(ch)
            elif ch == "\\":
                self._pending_backslash = True
            elif ch < " ":
                parts.append(_CONTROL_ESCAPES.get(ch, f"\\u{ord(ch):04x}"))
            else:
                parts.append(ch)
        self._append_committed("".join(parts))

    def _append_committed(self, piece: str) -> None:
        committed = self._committed
        self._committed = ""  # see feed(): grow in place rather than copy
        committed += piece
        self._committed = committed
