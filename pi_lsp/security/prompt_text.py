"""The command as a permission prompt shows it: never a harmless head hiding the real tail.

``shown_command`` collapses every run of whitespace (newlines, tabs, hundreds of spaces) to
one space, so padding cannot push text out of view; shows control and format characters
(terminal escapes, bidi overrides, zero-width characters) as ``\\u`` escapes; and when the
result is still longer than the limit keeps its head *and* tail around
``[N characters hidden]``. ``cut`` says
whether anything was hidden: a command the user could not see whole is never offered
"always allow".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_SHOWN = 2000
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class ShownCommand:
    text: str
    cut: bool
    hidden: int
    """Characters left out of ``text`` (after whitespace collapsing)."""


def _visible(char: str) -> str:
    """Control and format characters (escape sequences, bidi overrides, zero-width ones)
    as ``\\u…`` escapes, so the prompt cannot be made to display something else."""
    if unicodedata.category(char) in ("Cc", "Cf"):
        return f"\\u{ord(char):04x}"
    return char


def shown_command(command: str, limit: int = MAX_SHOWN) -> ShownCommand:
    flat = _WHITESPACE.sub(" ", command).strip()
    flat = "".join(_visible(c) for c in flat)
    if len(flat) <= limit:
        return ShownCommand(flat, cut=False, hidden=0)
    keep = max(limit - 40, 2)
    head = keep * 2 // 3
    tail = keep - head
    hidden = len(flat) - head - tail
    text = f"{flat[:head]} … [{hidden} characters hidden] … {flat[len(flat) - tail :]}"
    return ShownCommand(text, cut=True, hidden=hidden)
