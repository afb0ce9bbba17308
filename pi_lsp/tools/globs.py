"""Glob patterns as fd and ripgrep's globset read them, compiled to Python regexes.

Owns ``glob_to_regex``: ``*`` and ``?`` stop at ``/``, ``**`` crosses directories, ``[...]`` /
``[!...]`` classes, ``{a,b}`` alternatives (nestable) and ``\\`` escapes. ``find`` matches the
basename, or the full path for patterns containing ``/``; the Python grep backend applies
``--glob`` the gitignore way. The regexes run on RE2 (``linear_regex``): a glob from the model
with many ``*`` never backtracks. Pure functions; must not import anything above tools/.
"""

from __future__ import annotations

from functools import lru_cache

from .linear_regex import LinearPattern, compile_linear
from .linear_regex import escape as _escape


def _translate(pattern: str, i: int, stop_at: str) -> tuple[str, int]:
    out: list[str] = []
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch in stop_at:
            return "".join(out), i
        if ch == "\\" and i + 1 < n:
            out.append(_escape(pattern[i + 1]))
            i += 2
            continue
        if ch == "*":
            if pattern.startswith("**", i):
                before_ok = i == 0 or pattern[i - 1] == "/"
                after = pattern[i + 2 : i + 3]
                if before_ok and after == "/":
                    out.append("(?:.*/)?")
                    i += 3
                    continue
                if before_ok and after in ("", *stop_at):
                    out.append(".*")
                    i += 2
                    continue
            out.append("[^/]*")
            i += 1
            continue
        if ch == "?":
            out.append("[^/]")
            i += 1
            continue
        if ch == "[":
            end = _class_end(pattern, i)
            if end == -1:
                out.append(_escape(ch))
                i += 1
                continue
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            body = body.replace("\\", "\\\\").replace("[", "\\[")
            out.append(f"[{'^' if negate else ''}{body}]")
            i = end + 1
            continue
        if ch == "{":
            alternatives: list[str] = []
            j = i + 1
            while True:
                part, j = _translate(pattern, j, ",}")
                alternatives.append(part)
                if j >= n:  # unbalanced: treat the brace literally
                    return "".join(out) + _escape(pattern[i:]), n
                if pattern[j] == "}":
                    break
                j += 1
            out.append("(?:" + "|".join(alternatives) + ")")
            i = j + 1
            continue
        out.append(_escape(ch))
        i += 1
    return "".join(out), i


def _class_end(pattern: str, start: int) -> int:
    j = start + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 1
    return j if j < len(pattern) else -1


@lru_cache(maxsize=256)
def glob_to_regex(pattern: str, ignore_case: bool = False) -> LinearPattern:
    """A full-match regex for ``pattern`` over ``/``-separated paths (``PatternError`` if
    it cannot be compiled)."""
    body, _ = _translate(pattern, 0, "")
    return compile_linear(f"(?s:{body})\\z", ignore_case=ignore_case)


class PathGlob:
    """A ``--glob``-style filter (ripgrep semantics): without ``/`` it matches the file name
    at any depth, with ``/`` the path relative to the search root; ``!`` negates."""

    def __init__(self, pattern: str) -> None:
        self.negated = pattern.startswith("!")
        body = pattern[1:] if self.negated else pattern
        self.on_basename = "/" not in body.rstrip("/")
        self._regex = glob_to_regex(body.lstrip("/").rstrip("/"))

    def matches(self, rel_path: str) -> bool:
        target = rel_path.rsplit("/", 1)[-1] if self.on_basename else rel_path
        return self._regex.match(target) is not None
