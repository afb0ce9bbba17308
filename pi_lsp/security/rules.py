"""Permission rules: "always allow `pytest`" as users expect it, and where they are kept.

A rule allows a command *prefix*, word by word: ``pytest`` allows ``pytest -k foo`` but not
``pytest2``, and never ``pytest; rm -rf ~``, because a command is first split into its
simple commands (``shell_split``) and *every* part must be allowed (a rule's prefix, or one
of the harmless builtins ``cd``, ``pwd``, ``echo``, ``true``, ``false`` alongside a part a
rule allows). A part with leading ``NAME=value`` assignments or a redirection to a file never
matches, nor does anything the splitter cannot parse.

``suggest_patterns`` proposes the prefix an "always allow" would store for a command: the
program (``pytest``), the program and its subcommand (``git status``, ``ruff check``), the
runner and what it runs (``uv run pytest``, ``python -m pytest``); none for commands whose
generalisation would surprise (``rm``, ``sudo``, ``curl``, wrappers such as ``env`` or
``xargs``, an interpreter given code with ``-c``).

``RuleStore`` keeps a workspace's rules in one JSON file in the user's data directory (never
in the repository), rewritten atomically, readable by the user only; it re-reads the file
when another process changed it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .shell_split import SimpleCommand, split_command

log = logging.getLogger(__name__)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


HARMLESS = frozenset({"cd", "pwd", "echo", "true", "false", ":"})
NEVER_GENERALISE = _words(
    "rm rmdir shred dd mkfs mv ln chmod chown chgrp sudo su doas pkexec kill pkill "
    "killall shutdown reboot curl wget nc ncat netcat ssh scp sftp rsync ftp telnet eval "
    "exec source . env xargs nohup time timeout nice ionice command builtin setsid stdbuf "
    "watch find tee sed awk gawk crontab at systemctl service mount umount export unset "
    "alias trap set shopt exit"
)
SUBCOMMAND_TOOLS = _words(
    "git npm pnpm yarn bun cargo go uv poetry pip pip3 pdm hatch docker podman kubectl "
    "helm make dotnet mvn gradle just deno tox nox ruff pre-commit rustup gh composer "
    "bundle rake mix conda mamba brew apt apt-get"
)
TARGET_TOOLS = frozenset({"make", "just"})
"""Subcommand tools whose bare form is a safe prefix (the default target)."""
RUNNER_SUBCOMMANDS = frozenset({"run", "exec", "x", "dlx", "tool"})
"""``npm run X`` / ``uv run X`` / ``poetry run X``: the rule names X too."""
RUNNERS = frozenset({"npx", "bunx", "pnpx", "uvx", "pipx"})
_PYTHON = re.compile(r"^python[0-9.]*$")
INTERPRETERS = frozenset(
    {"python", "python3", "node", "ruby", "perl", "php", "bash", "sh", "zsh", "dash", "lua"}
)


def _prefix(part: SimpleCommand) -> tuple[str, ...] | None:
    words = part.words
    program = words[0]
    if not part.plain or not part.raw_words[0] or program in NEVER_GENERALISE:
        return None
    name = program.rsplit("/", 1)[-1]
    if name in NEVER_GENERALISE:
        return None
    if _PYTHON.match(name):
        name = "python"
    second = words[1] if len(words) > 1 else None
    second_plain = len(part.raw_words) > 1 and part.raw_words[1]
    if name in INTERPRETERS:
        if second is None or not second_plain:
            return None
        if second == "-m" and len(words) > 2 and part.raw_words[2]:
            return words[:3]
        return None if second.startswith("-") else words[:2]
    if name in RUNNERS:
        return words[:2] if second and second_plain and not second.startswith("-") else None
    if name in SUBCOMMAND_TOOLS:
        if not (second and second_plain and not second.startswith("-")):
            # ``git -c core.sshCommand=… push`` must not ride on "always allow git"
            return words[:1] if name in TARGET_TOOLS else None
        third_plain = len(part.raw_words) > 2 and part.raw_words[2]
        if second in RUNNER_SUBCOMMANDS:
            if len(words) > 2 and third_plain and not words[2].startswith("-"):
                return words[:3]
            return None
        return words[:2]
    return words[:1]


def suggest_patterns(command: str) -> list[str] | None:
    """The prefixes an "always allow" of ``command`` would store (one per distinct part that
    is not a harmless builtin), or ``None`` when no safe generalisation exists."""
    parts = split_command(command)
    if parts is None:
        return None
    patterns: list[str] = []
    for part in parts:
        if is_harmless(part):
            continue
        prefix = _prefix(part)
        if prefix is None:
            return None
        pattern = " ".join(prefix)
        if pattern not in patterns:
            patterns.append(pattern)
    return patterns or None


def is_harmless(part: SimpleCommand) -> bool:
    return part.words[0] in HARMLESS and part.raw_words[0] and part.plain


def pattern_words(pattern: str) -> tuple[str, ...] | None:
    parts = split_command(pattern)
    if parts is None or len(parts) != 1 or not parts[0].plain:
        return None
    return parts[0].words


def command_allowed(command: str, patterns: Iterable[str]) -> bool:
    """True when every part of ``command`` is allowed by one of ``patterns`` (prefix, word
    by word) or is a harmless builtin, and at least one part needed a pattern."""
    parts = split_command(command)
    if parts is None:
        return False
    prefixes = [w for w in (pattern_words(p) for p in patterns) if w]
    needed = False
    for part in parts:
        if is_harmless(part):
            continue
        needed = True
        if not part.plain or not any(part.words[: len(w)] == w for w in prefixes):
            return False
    return needed


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    tool: str
    pattern: str
    created_at: str

    def to_wire(self) -> dict[str, str]:
        return {
            "id": self.id,
            "tool": self.tool,
            "pattern": self.pattern,
            "createdAt": self.created_at,
        }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class RuleStore:
    """The "always" rules of one workspace, in ``path`` (a JSON file)."""

    def __init__(self, path: Path, workspace: str = "") -> None:
        self.path = Path(path)
        self.workspace = workspace
        self._lock = threading.Lock()
        self._rules: list[Rule] = []
        self._stamp: tuple[int, int] | None = None

    # ----------------------------------------------------------------- reading

    def _load(self) -> None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._rules, self._stamp = [], None
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            rules = [_rule_from(item) for item in data.get("rules", [])]
            self._rules = [r for r in rules if r is not None]
        except (OSError, ValueError, AttributeError) as exc:
            log.warning("permission rules %s unreadable (%s): asking again", self.path, exc)
            self._rules = []
        self._stamp = stamp

    def rules(self, tool: str | None = None) -> list[Rule]:
        with self._lock:
            self._load()
            return [r for r in self._rules if tool is None or r.tool == tool]

    def allows(self, tool: str, command: str) -> bool:
        return command_allowed(command, (r.pattern for r in self.rules(tool)))

    # ----------------------------------------------------------------- writing

    def add(self, tool: str, patterns: Sequence[str]) -> list[Rule]:
        """Add a rule per pattern (an existing identical rule is kept, not duplicated)."""
        with self._lock:
            self._load()
            added: list[Rule] = []
            for pattern in patterns:
                same = next(
                    (r for r in self._rules if r.tool == tool and r.pattern == pattern), None
                )
                if same is None:
                    same = Rule(secrets.token_hex(6), tool, pattern, _now())
                    self._rules.append(same)
                added.append(same)
            self._save()
            return added

    def revoke(self, rule_id: str) -> bool:
        with self._lock:
            self._load()
            kept = [r for r in self._rules if r.id != rule_id]
            if len(kept) == len(self._rules):
                return False
            self._rules = kept
            self._save()
            return True

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        data: dict[str, Any] = {
            "version": 1,
            "workspace": self.workspace,
            "rules": [r.to_wire() for r in self._rules],
        }
        fd, tmp = tempfile.mkstemp(prefix=".rules-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        st = self.path.stat()
        self._stamp = (st.st_mtime_ns, st.st_size)


def _rule_from(item: Any) -> Rule | None:
    if not isinstance(item, dict):
        return None
    values = [item.get(k) for k in ("id", "tool", "pattern", "createdAt")]
    strings = [v for v in values if isinstance(v, str) and v]
    if len(strings) != 4:
        return None
    rule_id, tool, pattern, created = strings
    if pattern_words(pattern) is None:
        return None
    return Rule(rule_id, tool, pattern, created)
