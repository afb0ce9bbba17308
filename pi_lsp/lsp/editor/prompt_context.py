"""The text sections attachments add to a prompt: a file, a selection, a line range, or the
editor's diagnostics with the code around them.

A range selects lines/characters in the negotiated position encoding. Large text is cut
(2000 lines / 50 KB, like ``read``) with a note telling the model to ``read`` the rest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..protocol.positions import Encoding, TextIndex

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
SMALL_FILE_LINES = 200
"""Diagnostics in a file this short come with the whole file; else with the lines around."""
AROUND = 20
"""Lines of context above and below the diagnostics in a longer file."""
MAX_DIAGNOSTICS = 50
_SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _cut(text: str) -> tuple[str, bool]:
    lines = text.split("\n")
    cut = len(lines) > MAX_LINES
    lines = lines[:MAX_LINES]
    out = "\n".join(lines)
    data = out.encode("utf-8", "surrogatepass")
    if len(data) > MAX_BYTES:
        out = data[:MAX_BYTES].decode("utf-8", "ignore")
        cut = True
    return out, cut


def _block(header: str, shown_path: str, body: str, *, first_line: int | None = None) -> str:
    """``header``, then ``body`` fenced (cut when large, with a note to ``read`` the rest)."""
    body, cut = _cut(body.removesuffix("\n"))
    language = Path(shown_path).suffix.lstrip(".")
    fence = _fence(body)
    note = ""
    if cut:
        offset = f" (from line {first_line})" if first_line else ""
        note = f"\n[Cut to fit; read `{shown_path}`{offset} for the rest.]"
    return f"{header}\n{fence}{language}\n{body}\n{fence}{note}"


def file_section(
    *,
    shown_path: str,
    content: str,
    encoding: Encoding,
    start: tuple[int, int] | None = None,
    end: tuple[int, int] | None = None,
) -> str:
    """The file (or the ``start``–``end`` selection) in a fence."""
    if start is not None and end is not None and (start != end):
        index = TextIndex(content, encoding)
        a = index.offset(*start)
        b = index.offset(*end)
        if b < a:
            a, b = b, a
        first, last = start[0] + 1, max(start[0], end[0] - (1 if end[1] == 0 else 0)) + 1
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        header = f"Selected code from `{shown_path}` ({where}):"
        return _block(header, shown_path, content[a:b], first_line=first)
    return _block(f"The file `{shown_path}`:", shown_path, content)


def build_prompt(text: str, **section: Any) -> str:
    """``text`` followed by ``file_section(**section)`` (the v1 ``context``)."""
    return f"{text}\n\n{file_section(**section)}"


def lines_section(shown_path: str, content: str, first: int, last: int) -> str:
    """Lines ``first``–``last`` (0-based, inclusive; clamped to the file)."""
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    last = min(last, len(lines) - 1)
    if first > last:
        return f"`{shown_path}` has only {len(lines)} lines (asked for line {first + 1} on)."
    where = f"line {first + 1}" if first == last else f"lines {first + 1}-{last + 1}"
    body = "\n".join(lines[first : last + 1])
    return _block(f"Lines of `{shown_path}` ({where}):", shown_path, body, first_line=first + 1)


def describe_diagnostics(items: Sequence[dict[str, Any]]) -> str:
    """One line per diagnostic: ``- line N (severity, source code): message``."""
    out = []
    for d in items[:MAX_DIAGNOSTICS]:
        start = d.get("range", {}).get("start", {})
        tags = [_SEVERITY.get(d.get("severity") or 0, "")]
        tags += [str(d[k]) for k in ("source", "code") if d.get(k) not in (None, "")]
        label = ", ".join(t for t in tags if t)
        line = f"- line {int(start.get('line', 0)) + 1}"
        out.append(
            f"{line} ({label}): {d.get('message', '')}"
            if label
            else f"{line}: {d.get('message', '')}"
        )
    if len(items) > MAX_DIAGNOSTICS:
        out.append(f"- … and {len(items) - MAX_DIAGNOSTICS} more")
    return "\n".join(out)


def diagnostics_section(shown_path: str, content: str, items: Sequence[dict[str, Any]]) -> str:
    """The diagnostics, then the code they are about: the whole file when it is short
    (``SMALL_FILE_LINES``), else the lines from ``AROUND`` above the first to ``AROUND``
    below the last."""
    header = f"Diagnostics in `{shown_path}`:\n{describe_diagnostics(items)}"
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    if len(lines) <= SMALL_FILE_LINES or not items:
        return f"{header}\n\n" + _block(f"The file `{shown_path}`:", shown_path, content)
    starts = [int(d.get("range", {}).get("start", {}).get("line", 0)) for d in items]
    ends = [int(d.get("range", {}).get("end", {}).get("line", 0)) for d in items]
    first = max(0, min(starts) - AROUND)
    last = min(len(lines) - 1, max(ends) + AROUND)
    return f"{header}\n\n" + lines_section(shown_path, content, first, last)
