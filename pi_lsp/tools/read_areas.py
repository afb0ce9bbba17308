"""Directories the read-only tools (``read``, ``ls``, ``find``, ``grep``) may read although
they lie outside the workspace: the skills the session discovered (docs/context.md#skills).

The system prompt's skills block tells the model to ``read`` a skill's ``SKILL.md`` and the
files beside it; skills often live outside the project (``~/.pi/agent/skills``,
``~/.claude/skills``), where the confined tools would refuse. ``ReadAreasWorkspace`` wraps the
session's workspace for those four tools only: a path that resolves (symlinks followed)
inside an area is allowed, everything else goes to the workspace's own rule. ``write``,
``edit`` and ``bash`` keep the plain workspace, so nothing in an area can be changed through
them. Must not import anything above tools/.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from .paths import expand_path
from .workspace import OutsideWorkspaceError, Workspace


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class ReadAreas:
    """The current areas (the session replaces them when its resources reload)."""

    def __init__(self, directories: Iterable[str | Path] = ()) -> None:
        self._dirs: tuple[Path, ...] = ()
        self.set(directories)

    def set(self, directories: Iterable[str | Path]) -> None:
        real = {Path(os.path.realpath(d)) for d in directories}
        self._dirs = tuple(sorted(real))

    @property
    def directories(self) -> tuple[Path, ...]:
        return self._dirs

    def allows(self, path: Path) -> bool:
        real = Path(os.path.realpath(path))
        return any(_within(real, d) for d in self._dirs)


class ReadAreasWorkspace:
    """``inner`` plus read access inside ``areas`` (see the module docstring)."""

    def __init__(self, inner: Workspace, areas: ReadAreas) -> None:
        self._inner = inner
        self._areas = areas

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    @property
    def roots(self) -> tuple[Path, ...]:
        """The workspace's roots, then the areas (a search inside an area is relative to it)."""
        return (*self._inner.roots, *self._areas.directories)

    def resolve(self, path: str) -> Path:
        try:
            return self._inner.resolve(path)
        except OutsideWorkspaceError:
            candidate = expand_path(path, self._inner.cwd)
            if self._areas.allows(candidate):
                return candidate
            raise

    def confine(self, path: Path) -> Path:
        try:
            return self._inner.confine(path)
        except OutsideWorkspaceError:
            candidate = Path(
                os.path.normpath(path if path.is_absolute() else self._inner.cwd / path)
            )
            if self._areas.allows(candidate):
                return candidate
            raise

    def contains(self, path: Path) -> bool:
        inner = getattr(self._inner, "contains", None)
        return bool(inner is not None and inner(path)) or self._areas.allows(path)


def with_read_areas(workspace: Workspace, areas: ReadAreas | None) -> Workspace:
    return workspace if areas is None else cast(Workspace, ReadAreasWorkspace(workspace, areas))
