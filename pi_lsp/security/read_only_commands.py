"""Which shell commands plan mode lets ``bash`` run: those proven read-only.

``check_read_only(command)`` splits the command with ``shell_split`` (which refuses anything
that could run code it cannot see: ``$(…)``, backticks, subshells, here-documents…) and
requires **every** simple command to be on a short list of programs that only read, called
without the options that make them write or run other programs:

- ``ls`` ``cat`` ``head`` ``tail`` ``wc`` ``pwd`` ``echo`` ``printf`` ``true`` ``false``
  ``which`` ``basename`` ``dirname`` ``realpath`` ``readlink`` ``stat`` ``du`` ``df`` ``nl``
  ``cut`` ``tr`` ``diff`` ``cmp`` ``comm`` ``column`` ``md5sum`` ``sha1sum`` ``sha256sum``
  ``test`` ``[`` ``cd`` ``jq`` ``grep`` ``egrep`` ``fgrep``;
- ``file`` without ``-C``/``--compile``; ``tree`` without ``-o`` / ``--output`` / ``-R``;
  ``sort`` without ``-o`` / ``--output`` / ``--compress-program``; ``rg`` without ``--pre`` /
  ``--hostname-bin``; ``fd`` without ``-x`` / ``-X`` / ``--exec`` / ``--exec-batch``;
  ``date`` without ``-s`` / ``--set``;
- ``find`` without ``-exec`` ``-execdir`` ``-ok`` ``-okdir`` ``-delete`` ``-fls``
  ``-fprint`` ``-fprint0`` ``-fprintf``;
- ``git`` ``status`` ``log`` ``diff`` ``show`` ``blame`` ``rev-parse`` ``ls-files``
  ``describe`` ``shortlog`` ``grep`` (not ``-O``) and ``branch`` / ``tag`` / ``remote`` used
  only to list; ``--output`` and the submodule options (``--recurse-submodules``,
  ``--ignore-submodules``, ``--submodule``) are refused everywhere, and of git's own
  options only ``--no-pager`` / ``-P``, ``--no-optional-locks`` and
  ``--literal-pathspecs``: ``-C``, ``--git-dir``, ``--work-tree`` and ``-c`` pick another
  repository or configuration, whose programs plan mode switches off only for the
  repository git finds itself (``security.plan_git``).

A refused long option is refused abbreviated too (``--out``, ``--comp``: GNU tools and git
accept any unambiguous prefix). Also refused: a program named by a path or an expansion
(``./x``, ``$CMD``), leading ``NAME=value`` assignments, and redirections other than reading
a file (``<``), fd duplications (``2>&1``) and ``/dev/null``. Short options are checked
inside bundles (``sort -ro`` has ``-o``). Known limit: an unquoted glob expands to file
names, and a file named like an option (``-delete``) becomes one; the tool runs in the
user's own workspace, where such names would be deliberate. Imports nothing of ours but
``shell_split``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .shell_split import SimpleCommand, split_command

Check = Callable[[Sequence[str]], str | None]
"""Given the arguments (the program's name excluded): why they are refused, or None."""


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    reason: str = ""
    """Why not (empty when allowed), phrased for the model."""


def _any(_: Sequence[str]) -> str | None:
    return None


def _abbreviates(name: str, options: Sequence[str]) -> bool:
    """Whether ``--name`` is one of ``options`` or a prefix of one (``--out`` for
    ``--output``: getopt_long and git take any unambiguous prefix)."""
    return len(name) > 2 and any(opt.startswith(name) for opt in options)


def _refuse_options(long: Sequence[str] = (), short: str = "", exact: Sequence[str] = ()) -> Check:
    """Refuse ``--long`` / ``--long=…`` options (also abbreviated), short letters (also
    inside a bundle such as ``-ro``) and exact words (``find``'s ``-delete``)."""

    def check(args: Sequence[str]) -> str | None:
        for arg in args:
            if arg == "--":
                return None  # operands only from here on
            if arg in exact:
                return arg
            if arg.startswith("--"):
                if _abbreviates(arg.split("=", 1)[0], long):
                    return arg
            elif arg.startswith("-") and any(letter in short for letter in arg[1:]):
                return arg
        return None

    return check


_FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls")


def _find(args: Sequence[str]) -> str | None:
    for arg in args:
        if arg in _FIND_ACTIONS or arg.startswith("-fprint"):
            return arg
    return None


_GIT_READS = frozenset(
    {"status", "log", "diff", "show", "blame", "rev-parse", "ls-files", "describe", "shortlog"}
)
_GIT_LISTING_FLAGS = {
    "branch": frozenset(
        {
            "-a",
            "-r",
            "-v",
            "-vv",
            "--all",
            "--remotes",
            "--list",
            "-l",
            "--show-current",
            "--verbose",
            "--no-color",
            "--color",
        }
    ),
    "tag": frozenset({"-l", "--list", "-n"}),
    "remote": frozenset({"-v", "--verbose"}),
}


_GIT_GLOBAL_OPTIONS = frozenset({"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs"})
_GIT_REFUSED = ("--output", "--recurse-submodules", "--ignore-submodules", "--submodule")
"""Options no git subcommand may have: a write, or a submodule's own (foreign) config."""


def _git(args: Sequence[str]) -> str | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] not in _GIT_GLOBAL_OPTIONS:
            return f"git {args[i]}"
        i += 1
    if i >= len(args):
        return "git without a subcommand"
    sub, rest = args[i], args[i + 1 :]
    bad = _refuse_options(long=_GIT_REFUSED)(rest)
    if bad is not None:
        return f"git {sub} {bad}"
    if sub in _GIT_READS:
        return None
    if sub == "grep":
        bad = _refuse_options(long=("--open-files-in-pager",), short="O")(rest)
        return None if bad is None else f"git grep {bad}"
    allowed = _GIT_LISTING_FLAGS.get(sub)
    if allowed is not None and all(a in allowed or a.startswith("--format") for a in rest):
        return None
    return (
        f"git {sub}" if allowed is None else f"git {sub} with arguments (only listing is read-only)"
    )


_PLAIN_READERS = (
    *("ls", "cat", "head", "tail", "wc", "pwd", "echo", "printf", "true", "false", "which"),
    *("basename", "dirname", "realpath", "readlink", "stat", "du", "df", "nl", "cut", "tr"),
    *("diff", "cmp", "comm", "column", "md5sum", "sha1sum", "sha256sum", "test", "[", "cd"),
    *("jq", "grep", "egrep", "fgrep"),
)
READ_ONLY_PROGRAMS: dict[str, Check] = {
    **dict.fromkeys(_PLAIN_READERS, _any),
    "file": _refuse_options(long=("--compile",), short="C"),
    "tree": _refuse_options(long=("--output",), short="oR"),
    "sort": _refuse_options(long=("--output", "--compress-program"), short="o"),
    "rg": _refuse_options(long=("--pre", "--hostname-bin")),
    "fd": _refuse_options(long=("--exec", "--exec-batch"), short="xX"),
    "date": _refuse_options(long=("--set",), short="s"),
    "find": _find,
    "git": _git,
}
"""Each read-only program and the check of its arguments (docs/tools.md#plan-mode)."""


def _part_verdict(part: SimpleCommand) -> str | None:
    program = part.words[0]
    if part.assignments:
        return f"variable assignments ({part.assignments[0]})"
    for redirect in part.redirects:
        if redirect.op == "<" or redirect.harmless:
            continue
        return f"a redirection to a file ({redirect.op} {redirect.target})"
    if not part.raw_words[0] or "/" in program:
        return f"{program!r} is not a plain program name"
    check = READ_ONLY_PROGRAMS.get(program)
    if check is None:
        return f"{program} is not on the read-only list"
    bad = check(part.words[1:])
    if bad is not None:
        return f"{bad if bad.startswith(program) else f'{program} {bad}'} can write or run programs"
    return None


def check_read_only(command: str) -> Verdict:
    """Whether ``command`` provably only reads (every part of a compound command)."""
    parts = split_command(command)
    if parts is None:
        return Verdict(
            False,
            "the command cannot be checked (substitutions, subshells, here-documents or "
            "comments) or is empty",
        )
    for part in parts:
        reason = _part_verdict(part)
        if reason is not None:
            return Verdict(False, reason)
    return Verdict(True)
