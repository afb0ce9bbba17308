"""Split a shell command into the simple commands a permission rule must each match.

``split_command`` understands the part of POSIX shell syntax needed to say, for certain,
which programs a command line starts: words, quotes, backslash escapes, the separators
``;`` ``&&`` ``||`` ``|`` ``|&`` ``&`` and newlines, leading ``NAME=value`` assignments and
redirections. Everything that can run code it cannot see (``$(…)``, backticks, ``<(…)``,
subshells and ``( … )`` groups, here-documents, ``$'…'``, comments, ``;;``) makes it answer
``None``: a command it cannot parse safely is never matched by a rule. Errors only ever go in
that direction: a part split too finely is asked about, never allowed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_BLANK = " \t"
_META = " \t\n;&|<>()`"
SAFE_REDIRECT_TARGETS = frozenset({"/dev/null"})


class Unparseable(Exception):
    """The command uses syntax that could run something the splitter cannot see."""


@dataclass(frozen=True, slots=True)
class Redirect:
    op: str
    """``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``<``, ``<>``, ``>&``, ``<&`` (fd prefix dropped)."""
    target: str

    @property
    def harmless(self) -> bool:
        """An fd duplication (``2>&1``, ``>&-``) or a redirection from/to ``/dev/null``."""
        if self.op in (">&", "<&"):
            return self.target == "-" or self.target.isdigit()
        return self.target in SAFE_REDIRECT_TARGETS


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    words: tuple[str, ...]
    """The words after quote removal (the program first), assignments not included."""
    assignments: tuple[str, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    raw_words: tuple[bool, ...] = ()
    """Per word: True when it was written without any quoting or expansion characters."""

    @property
    def plain(self) -> bool:
        """No leading assignments and only harmless redirections."""
        return not self.assignments and all(r.harmless for r in self.redirects)


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.parts: list[SimpleCommand] = []
        self._reset_part()

    def _reset_part(self) -> None:
        self.words: list[str] = []
        self.raw: list[bool] = []
        self.assignments: list[str] = []
        self.redirects: list[Redirect] = []

    def peek(self, offset: int = 0) -> str:
        j = self.i + offset
        return self.text[j] if j < len(self.text) else ""

    # ------------------------------------------------------------------- words

    def read_word(self) -> tuple[str, bool] | None:
        """The next word (quotes removed) and whether it was plain; None at an operator."""
        out: list[str] = []
        plain = True
        started = False
        while self.i < len(self.text):
            c = self.text[self.i]
            if c in _META:
                break
            if c == "#" and not started:
                raise Unparseable("comment")
            if c == "\\" and self.peek(1) == "\n":
                self.i += 2  # line continuation: not part of any word
                continue
            started = True
            if c == "\\":
                nxt = self.peek(1)
                self.i += 2
                if nxt == "":
                    raise Unparseable("trailing backslash")
                out.append(nxt)
                plain = False
                continue
            if c == "'":
                end = self.text.find("'", self.i + 1)
                if end < 0:
                    raise Unparseable("unterminated quote")
                out.append(self.text[self.i + 1 : end])
                self.i = end + 1
                plain = False
                continue
            if c == '"':
                out.append(self._double_quoted())
                plain = False
                continue
            if c == "$":
                nxt = self.peek(1)
                if nxt in ("(", "'", '"'):
                    raise Unparseable("command substitution or $-quoting")
                plain = False
            if c in "*?[]{}~!":
                plain = False
            out.append(c)
            self.i += 1
        if not started:
            return None
        return "".join(out), plain

    def _double_quoted(self) -> str:
        out: list[str] = []
        self.i += 1
        while self.i < len(self.text):
            c = self.text[self.i]
            if c == '"':
                self.i += 1
                return "".join(out)
            if c == "`" or (c == "$" and self.peek(1) == "("):
                raise Unparseable("command substitution")
            if c == "\\" and self.peek(1) in ('"', "\\", "$", "`", "\n"):
                if self.peek(1) != "\n":
                    out.append(self.peek(1))
                self.i += 2
                continue
            out.append(c)
            self.i += 1
        raise Unparseable("unterminated quote")

    # --------------------------------------------------------------- operators

    def end_part(self) -> None:
        if self.words or self.assignments or self.redirects:
            if not self.words:
                raise Unparseable("a part with no command")
            self.parts.append(
                SimpleCommand(
                    tuple(self.words),
                    tuple(self.assignments),
                    tuple(self.redirects),
                    tuple(self.raw),
                )
            )
        self._reset_part()

    def separator(self) -> bool:
        """Consume ``;`` ``&&`` ``||`` ``|`` ``|&`` ``&`` or a newline; True if one was there."""
        c = self.peek()
        if c == "\n" or c == ";":
            if c == ";" and self.peek(1) == ";":
                raise Unparseable(";;")
            self.i += 1
        elif c == "|":
            self.i += 2 if self.peek(1) in ("|", "&") else 1
        elif c == "&" and self.peek(1) != ">":
            self.i += 2 if self.peek(1) == "&" else 1
        else:
            return False
        self.end_part()
        return True

    def redirect(self, fd_word: str | None) -> bool:
        """Consume a redirection operator and its target; True if one was there."""
        rest = self.text[self.i :]
        if rest.startswith(("<<", "<(", ">(")):
            raise Unparseable("here-document or process substitution")
        for op in ("&>>", "&>", ">>", ">|", ">&", "<&", "<>", ">", "<"):
            if rest.startswith(op):
                break
        else:
            return False
        if fd_word is not None and not fd_word.isdigit():
            return False
        self.i += len(op)
        self.skip_blanks()
        target = self.read_word()
        if target is None:
            raise Unparseable("redirection without a target")
        self.redirects.append(Redirect(op, target[0]))
        return True

    def skip_blanks(self) -> None:
        while self.peek() and self.peek() in _BLANK:
            self.i += 1

    def run(self) -> list[SimpleCommand]:
        while True:
            self.skip_blanks()
            c = self.peek()
            if not c:
                break
            if c in "()`":
                raise Unparseable("subshell, group or backtick")
            if self.separator() or self.redirect(None):
                continue
            start = self.i
            word = self.read_word()
            if word is None:
                if self.i > start:
                    continue  # only line continuations
                raise Unparseable(f"unexpected {c!r}")
            if self.peek() in ("<", ">") and self.redirect(self.text[start : self.i]):
                continue  # ``2>file``: the word was the fd number
            text, plain = word
            if not self.words and plain and _ASSIGNMENT.match(text):
                self.assignments.append(text)
            elif not self.words and _ASSIGNMENT.match(text):
                raise Unparseable("assignment with expansions")
            else:
                self.words.append(text)
                self.raw.append(plain)
        self.end_part()
        return self.parts


def split_command(command: str) -> list[SimpleCommand] | None:
    """The simple commands of ``command`` in order, or ``None`` when it cannot be split safely
    (or is empty)."""
    try:
        parts = _Lexer(command).run()
    except Unparseable:
        return None
    return parts or None
