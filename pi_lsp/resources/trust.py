"""Project trust: which of a project's own files pi-lsp may load.

A repository's ``.pi/SYSTEM.md``, ``.pi/APPEND_SYSTEM.md``, ``.pi/settings.json``, skills
(``.pi/skills``, ``.agents/skills``, ``.claude/skills``), templates (``.pi/prompts``,
``.claude/commands``) and subagent definitions (``.pi/agents``, ``.claude/agents``) steer
the agent as much as the user does, so they load only in a trusted project. Context files
(``AGENTS.md``, ``CLAUDE.md``) need no trust (Pi and Codex agree), nor does anything under
the agent dir or the home directory.

One decision per directory, kept in ``<pi-lsp data dir>/project-trust.json`` (never in the
repository); the closest ancestor's decision applies.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from .decision_file import DecisionFile
from .roots import project_skill_roots, project_template_roots

Decision = Literal["trusted", "untrusted"]
PROTECTED_PI_FILES = ("SYSTEM.md", "APPEND_SYSTEM.md", "settings.json", "lsp.json")
PROTECTED_ROOT_FILES = (".lsp.json",)
"""Language servers the project configures (``lspServers``): they start programs."""


def protected_candidates(
    cwd: str, *, claude_compat: bool = True, home: str | None = None
) -> list[str]:
    """Every project path of ``cwd`` that would need trust if it existed."""
    home = home if home is not None else os.path.expanduser("~")
    candidates = [os.path.join(cwd, ".pi", name) for name in PROTECTED_PI_FILES]
    candidates += [os.path.join(cwd, name) for name in PROTECTED_ROOT_FILES]
    candidates += [r.path for r in project_skill_roots(cwd, claude_compat=claude_compat, home=home)]
    candidates += [r.path for r in project_template_roots(cwd, claude_compat=claude_compat)]
    # task agents' definitions (pi_lsp/subagents/definitions.py): they steer a child agent
    candidates.append(os.path.join(cwd, ".pi", "agents"))
    if claude_compat:
        candidates.append(os.path.join(cwd, ".claude", "agents"))
    return list(dict.fromkeys(candidates))


def protected_paths(cwd: str, *, claude_compat: bool = True, home: str | None = None) -> list[str]:
    """The project files and directories of ``cwd`` that exist and need trust."""
    candidates = protected_candidates(cwd, claude_compat=claude_compat, home=home)
    return [path for path in candidates if os.path.exists(path)]


class ProjectTrustStore:
    """The decisions, in one JSON file ``{"version": 1, "projects": {path: decision}}``."""

    def __init__(self, path: Path) -> None:
        self._file = DecisionFile[Decision](
            path, "projects", ("trusted", "untrusted"), "project trust"
        )
        self.path = path

    def decision(self, cwd: str) -> Decision | None:
        """The decision for ``cwd`` or its closest ancestor that has one."""
        decisions = self._file.read()
        directory = _key(cwd)
        while True:
            found = decisions.get(directory)
            if found is not None:
                return found
            parent = os.path.dirname(directory)
            if parent == directory:
                return None
            directory = parent

    def remember(self, cwd: str, decision: Decision) -> None:
        self._file.change(lambda decisions: decisions.update({_key(cwd): decision}))

    def forget(self, cwd: str) -> None:
        self._file.change(lambda decisions: decisions.pop(_key(cwd), None))


def _key(cwd: str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(cwd)))
