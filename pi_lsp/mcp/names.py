"""Model-facing names of MCP tools: ``mcp__<server>__<tool>``, within every provider's rule
``^[a-zA-Z0-9_-]{1,64}$``.

Characters outside the rule become ``_``; a name longer than 64 keeps its head and gets a
short hash of the full name, so two long names never collide; a clash after sanitising gets
``_2``, ``_3``… (in listing order, so the names are stable for one tool list).
"""

from __future__ import annotations

import hashlib
import re

MAX_LEN = 64
PREFIX = "mcp__"
_BAD = re.compile(r"[^a-zA-Z0-9_-]")


def sanitise(part: str) -> str:
    return _BAD.sub("_", part) or "_"


def tool_name(server: str, tool: str) -> str:
    full = f"{PREFIX}{sanitise(server)}__{sanitise(tool)}"
    if len(full) <= MAX_LEN:
        return full
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{full[: MAX_LEN - 9]}_{digest}"


def unique(names: list[str]) -> list[str]:
    """``names`` with clashes made distinct (still within ``MAX_LEN``)."""
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        candidate, n = name, 1
        while candidate in seen:
            n += 1
            suffix = f"_{n}"
            candidate = name[: MAX_LEN - len(suffix)] + suffix
        seen.add(candidate)
        out.append(candidate)
    return out
