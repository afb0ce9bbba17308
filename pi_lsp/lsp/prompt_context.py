"""``pi/prompt`` ``context: {uri, range?}`` → the file or selection appended to the prompt.

The text comes from the open buffer when there is one (unsaved changes included), else from
disk. A range selects lines/characters in the negotiated position encoding. Large files are
cut (2000 lines / 50 KB, like ``read``) with a note telling the model how to read the rest.
"""

from __future__ import annotations

import re
from pathlib import Path

from .positions import Encoding, TextIndex

MAX_LINES = 2000
MAX_BYTES = 50 * 1024


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


def build_prompt(
    text: str,
    *,
    shown_path: str,
    content: str,
    encoding: Encoding,
    start: tuple[int, int] | None = None,
    end: tuple[int, int] | None = None,
) -> str:
    """``text`` followed by the file (or the ``start``–``end`` selection) in a fence."""
    language = Path(shown_path).suffix.lstrip(".")
    if start is not None and end is not None and (start != end):
        index = TextIndex(content, encoding)
        a = index.offset(*start)
        b = index.offset(*end)
        if b < a:
            a, b = b, a
        body, cut = _cut(content[a:b])
        first, last = start[0] + 1, max(start[0], end[0] - (1 if end[1] == 0 else 0)) + 1
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        header = f"Selected code from `{shown_path}` ({where}):"
    else:
        body, cut = _cut(content)
        header = f"The file `{shown_path}`:"
    fence = _fence(body)
    note = f"\n[Cut to fit; read `{shown_path}` for the rest.]" if cut else ""
    return f"{text}\n\n{header}\n{fence}{language}\n{body}\n{fence}{note}"
