"""Skills (the Agent Skills format) as Pi's loader finds, checks and lists them.

A skills directory holds ``SKILL.md`` files in sub-directories (a directory with one is a
skill and is not searched further; hidden entries and ``node_modules`` are skipped;
``.gitignore`` / ``.ignore`` / ``.fdignore`` are honoured) and, in Pi's own ``.pi`` layout,
``.md`` files directly in it. Validation is lenient as in Pi: a bad name or a long
description is a warning; a ``SKILL.md`` with no description is not loaded (a diagnostic
names the file); on a name used twice the first one found is kept.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import pathspec

from .files import (
    FirstOfName,
    FrontmatterError,
    Watch,
    entry_kind,
    list_dir,
    parse_frontmatter,
    read_text,
)
from .models import Diagnostic, Skill

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")
MAX_SKILL_DIRS = 2000
"""A bound on the directories one skills root may make the loader visit (a symlink loop, a
huge tree)."""
Layout = Literal["pi", "agents"]
SkillScope = Literal["user", "project", "path"]


@dataclass(frozen=True, slots=True)
class SkillRoot:
    path: str
    scope: SkillScope
    layout: Layout = "pi"
    """``pi``: ``.md`` files directly in the root are skills too; ``agents``: only
    ``SKILL.md`` files (and ``.md`` files below the root), as Pi reads ``.agents/skills``."""


class _Ignore:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.spec = pathspec.GitIgnoreSpec.from_lines([])

    def add(
        self,
        directory: str,
        root: str,
        names: set[str],
        watch: Watch,
        diagnostics: list[Diagnostic],
    ) -> None:
        """The ignore files among ``names`` (the directory's entries)."""
        present = [n for n in IGNORE_FILE_NAMES if n in names]
        if not present:
            return
        rel = os.path.relpath(directory, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        added = False
        for name in present:
            path = os.path.join(directory, name)
            if not os.path.isfile(path):
                continue
            text = read_text(path, diagnostics, watch) or ""
            for line in text.splitlines():
                pattern = _prefixed(line, prefix)
                if pattern is not None:
                    self.lines.append(pattern)
                    added = True
        if added:
            self.spec = pathspec.GitIgnoreSpec.from_lines(self.lines)

    def ignores(self, rel: str) -> bool:
        return bool(self.lines) and self.spec.match_file(rel)


def _prefixed(line: str, prefix: str) -> str | None:
    trimmed = line.strip()
    if not trimmed or (trimmed.startswith("#") and not trimmed.startswith("\\#")):
        return None
    pattern, negated = line, False
    if pattern.startswith("!"):
        negated, pattern = True, pattern[1:]
    elif pattern.startswith("\\!"):
        pattern = pattern[1:]
    pattern = pattern.removeprefix("/")
    pattern = f"{prefix}{pattern}"
    return f"!{pattern}" if negated else pattern


def _validate_name(name: str) -> list[str]:
    errors = []
    if len(name) > MAX_NAME_LENGTH:
        errors.append(f"name exceeds {MAX_NAME_LENGTH} characters ({len(name)})")
    if not re.fullmatch(r"[a-z0-9-]+", name):
        errors.append("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        errors.append("name must not start or end with a hyphen")
    if "--" in name:
        errors.append("name must not contain consecutive hyphens")
    return errors


def load_skill_file(
    path: str, scope: SkillScope, diagnostics: list[Diagnostic], watch: Watch
) -> Skill | None:
    declared = os.path.basename(path) == "SKILL.md"
    text = read_text(path, diagnostics, watch)
    if text is None:
        return None
    try:
        front, _ = parse_frontmatter(text)
    except FrontmatterError as exc:
        if declared:
            diagnostics.append(Diagnostic(type="warning", message=str(exc), path=path))
        return None
    description = front.get("description")
    has_description = isinstance(description, str) and description.strip() != ""
    if not declared and not has_description:
        return None
    if not has_description:
        diagnostics.append(
            Diagnostic(
                type="warning",
                message="description is required (the skill was not loaded)",
                path=path,
            )
        )
        return None
    assert isinstance(description, str)
    if len(description) > MAX_DESCRIPTION_LENGTH:
        diagnostics.append(
            Diagnostic(
                type="warning",
                message=f"description exceeds {MAX_DESCRIPTION_LENGTH} characters "
                f"({len(description)})",
                path=path,
            )
        )
    base_dir = os.path.dirname(path)
    raw_name = front.get("name")
    name = raw_name if isinstance(raw_name, str) and raw_name else os.path.basename(base_dir)
    for error in _validate_name(name):
        diagnostics.append(Diagnostic(type="warning", message=error, path=path))
    return Skill(
        name=name,
        description=description,
        path=path,
        base_dir=base_dir,
        scope=scope,
        model_invocable=front.get("disable-model-invocation") is not True,
    )


def _skill_files(root: SkillRoot, watch: Watch, diagnostics: list[Diagnostic]) -> list[str]:
    """The skill files under ``root`` in Pi's order (sorted names, depth first)."""
    out: list[str] = []
    ignore = _Ignore()
    visited: set[tuple[int, int]] = set()
    budget = [MAX_SKILL_DIRS]

    def walk(directory: str) -> None:
        try:
            st = os.stat(directory)
        except OSError:
            return
        real = (st.st_dev, st.st_ino)  # cheaper than realpath, and sees every loop
        if real in visited:
            diagnostics.append(
                Diagnostic(
                    type="warning",
                    message="directory reached twice (a symlink loop?): not searched again",
                    path=directory,
                )
            )
            return
        if budget[0] <= 0:
            return
        budget[0] -= 1
        visited.add(real)
        entries = list_dir(directory, watch)
        ignore.add(directory, root.path, {e.name for e in entries}, watch, diagnostics)
        for entry in entries:
            if entry.name == "SKILL.md" and entry_kind(entry) == "file":
                rel = os.path.relpath(entry.path, root.path).replace(os.sep, "/")
                if not ignore.ignores(rel):
                    out.append(entry.path)
                    return
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "node_modules":
                continue
            kind = entry_kind(entry)
            if kind is None:
                continue
            rel = os.path.relpath(entry.path, root.path).replace(os.sep, "/")
            if ignore.ignores(rel + "/" if kind == "dir" else rel):
                continue
            if kind == "dir":
                walk(entry.path)
                continue
            at_root = directory == root.path
            wanted = (root.layout == "pi" and at_root) or (root.layout == "agents" and not at_root)
            if entry.name.endswith(".md") and wanted:
                watch.note(entry.path)
                out.append(entry.path)

    walk(root.path)
    if budget[0] <= 0:
        diagnostics.append(
            Diagnostic(
                type="warning",
                message=f"more than {MAX_SKILL_DIRS} directories: the rest was not searched",
                path=root.path,
            )
        )
    return out


def _file_key(path: str) -> object:
    """The same file reached by two paths (a symlink) has one key."""
    try:
        st = os.stat(path)
    except OSError:
        return path
    return (st.st_dev, st.st_ino)


def load_skills(
    roots: Sequence[SkillRoot], diagnostics: list[Diagnostic], watch: Watch
) -> list[Skill]:
    """Skills of every root in order; the first of a name wins (a ``collision`` diagnostic
    names the loser), the same file reached twice (a symlink) is loaded once."""
    kept = FirstOfName[Skill]()
    real_paths: set[object] = set()
    for root in roots:
        is_md_file = os.path.isfile(root.path) and root.path.endswith(".md")
        if is_md_file:
            files = [root.path]
        elif os.path.isdir(root.path):
            files = _skill_files(root, watch, diagnostics)
        else:
            watch.note(root.path)
            if root.scope == "path":
                diagnostics.append(
                    Diagnostic(type="warning", message="skill path does not exist", path=root.path)
                )
            continue
        for path in files:
            skill = load_skill_file(path, root.scope, diagnostics, watch)
            if skill is None:
                continue
            real = _file_key(path)
            if real not in real_paths and kept.add(skill):
                real_paths.add(real)
    diagnostics.extend(kept.collisions)
    return kept.items()


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def format_skills_for_prompt(skills: Sequence[Skill]) -> str:
    """The skills block of the system prompt, byte for byte Pi's ``formatSkillsForPrompt``
    (with the ``read`` tool); ``""`` when no skill may be invoked by the model."""
    visible = [s for s in skills if s.model_invocable]
    if not visible:
        return ""
    lines = [
        "\n\nThe following skills provide specialized instructions for specific tasks.",
        "Use the read tool to load a skill's file when the task matches its description.",
        "Resolve relative paths against the skill's directory (parent of SKILL.md). "
        "Use absolute paths in tool calls.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{_escape(skill.name)}</name>",
            f"    <description>{_escape(skill.description)}</description>",
            f"    <location>{_escape(skill.path)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)
