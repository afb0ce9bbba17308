"""Regexes from the model (grep patterns, find globs) compiled for a linear-time engine.

Python's ``re`` backtracks: ``(a+)+$`` against 32 ``a`` and a ``!``, or the glob
``*a*a*a*a*a*a*a*a*a*a*a*b`` against a long name, runs for minutes while holding the GIL, and
the whole server freezes. RE2 (the ``google-re2`` wheel) matches in time linear in the text,
and accepts the syntax ripgrep does (no backreferences or look-around), so the Python grep
backend and the glob matcher behave like the ripgrep / fd paths they stand in for.
Without the wheel, model-supplied patterns are refused with a clear message rather than run
unbounded. Must not import anything above tools/.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Protocol

from ..agent.types import ToolFailure


class LinearPattern(Protocol):
    def search(self, text: str) -> Any: ...

    def match(self, text: str) -> Any: ...


class PatternError(ToolFailure, ValueError):
    """The pattern cannot be compiled (the message says why)."""


@cache
def _engine() -> Any:
    """The ``re2`` module, or ``None`` without the wheel (imported by the first pattern a
    tool compiles, not at start-up)."""
    try:  # pragma: no cover - the import is environment-dependent
        import re2
    except ImportError:  # pragma: no cover
        return None
    return re2


def available() -> bool:
    return _engine() is not None


def compile_linear(
    pattern: str, *, ignore_case: bool = False, multiline: bool = False
) -> LinearPattern:
    """``pattern`` compiled by RE2 (``PatternError`` for bad syntax or a missing engine)."""
    _re2 = _engine()
    if _re2 is None:
        raise PatternError(
            "the linear-time regex engine (the google-re2 package) is not installed; "
            "reinstall pi-lsp, install ripgrep, or search with literal=true"
        )
    options = _re2.Options()
    options.log_errors = False
    options.case_sensitive = not ignore_case
    options.max_mem = 64 << 20
    source = f"(?m){pattern}" if multiline else pattern
    try:
        compiled: LinearPattern = _re2.compile(source, options)
    except Exception as exc:  # re2.error; its message may be bytes
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise PatternError(str(detail)) from None
    return compiled


def escape(text: str) -> str:
    """``text`` as a literal pattern (RE2 accepts a backslash before any punctuation)."""
    return "".join(ch if ch.isalnum() or ch == "_" or ord(ch) > 127 else "\\" + ch for ch in text)
