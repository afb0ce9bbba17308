"""Where skills and prompt templates are looked for, in Pi's order (project before user;
within a scope ``.pi`` before ``.agents`` before ``.claude``; the first of a name wins).
"""

from __future__ import annotations

import os

from .skills import SkillRoot
from .templates import TemplateRoot


def git_root(start: str) -> str | None:
    directory = start
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _up_to_git_root(cwd: str) -> list[str]:
    """``cwd`` and its ancestors up to the git root (the filesystem root outside a repo)."""
    root = git_root(cwd)
    out = []
    directory = cwd
    while True:
        out.append(directory)
        if root is not None and directory == root:
            return out
        parent = os.path.dirname(directory)
        if parent == directory:
            return out
        directory = parent


def project_skill_roots(cwd: str, *, claude_compat: bool, home: str) -> list[SkillRoot]:
    user_agents = os.path.join(home, ".agents", "skills")
    user_claude = os.path.join(home, ".claude", "skills")
    roots = [SkillRoot(os.path.join(cwd, ".pi", "skills"), "project", "pi")]
    roots += [
        SkillRoot(os.path.join(d, ".agents", "skills"), "project", "agents")
        for d in _up_to_git_root(cwd)
        if os.path.join(d, ".agents", "skills") != user_agents
    ]
    if claude_compat:
        roots += [
            SkillRoot(os.path.join(d, ".claude", "skills"), "project", "agents")
            for d in _up_to_git_root(cwd)
            if os.path.join(d, ".claude", "skills") != user_claude
        ]
    return roots


def user_skill_roots(agent_dir: str, *, claude_compat: bool, home: str) -> list[SkillRoot]:
    roots = [
        SkillRoot(os.path.join(agent_dir, "skills"), "user", "pi"),
        SkillRoot(os.path.join(home, ".agents", "skills"), "user", "agents"),
    ]
    if claude_compat:
        roots.append(SkillRoot(os.path.join(home, ".claude", "skills"), "user", "agents"))
    return roots


def project_template_roots(cwd: str, *, claude_compat: bool) -> list[TemplateRoot]:
    roots = [TemplateRoot(os.path.join(cwd, ".pi", "prompts"), "project")]
    if claude_compat:
        roots.append(TemplateRoot(os.path.join(cwd, ".claude", "commands"), "project"))
    return roots


def user_template_roots(agent_dir: str, *, claude_compat: bool, home: str) -> list[TemplateRoot]:
    roots = [TemplateRoot(os.path.join(agent_dir, "prompts"), "user")]
    if claude_compat:
        roots.append(TemplateRoot(os.path.join(home, ".claude", "commands"), "user"))
    return roots
