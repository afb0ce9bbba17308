""".gitignore-aware directory walk for ``find`` and the Python ``grep`` backend.

Owns ``walk``: depth-first in name order (the order ``rg --sort path`` prints), hidden files
included, ``.git`` skipped, symlinked directories not followed, ignored directories not
entered. Ignore rules come from ``.gitignore`` and ``.ignore`` files in every directory from the
workspace root down, each relative to its own directory, deeper files overriding shallower
ones (``pathspec`` does the pattern semantics). Runs in a worker thread; ``cancelled`` is
polled. Must not import anything above tools/.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .regular_files import open_regular

if TYPE_CHECKING:
    import pathspec

IGNORE_FILES = (".gitignore", ".ignore")
MAX_IGNORE_FILE_BYTES = 1 << 20
ALWAYS_SKIPPED = frozenset({".git"})


@dataclass(frozen=True, slots=True)
class WalkEntry:
    path: str
    """Absolute path."""
    rel: str
    """Path relative to the walk's start, ``/``-separated."""
    is_dir: bool
    is_symlink: bool
    is_file: bool
    """A regular file (not a symlink, FIFO, socket or device)."""


@dataclass(frozen=True, slots=True)
class _Rules:
    base: str
    """Absolute directory the patterns are relative to (with a trailing separator)."""
    spec: pathspec.GitIgnoreSpec


def _load_rules(directory: str) -> _Rules | None:
    lines: list[str] = []
    for name in IGNORE_FILES:
        try:
            with open_regular(os.path.join(directory, name)) as fh:  # never a FIFO
                data = fh.read(MAX_IGNORE_FILE_BYTES)
            lines.extend(data.decode("utf-8", "replace").splitlines())
        except OSError:
            continue
    if not any(line.strip() and not line.startswith("#") for line in lines):
        return None
    import pathspec  # loaded by the first walk that meets an ignore file, not at start-up

    return _Rules(directory.rstrip(os.sep) + os.sep, pathspec.GitIgnoreSpec.from_lines(lines))


def _ignored(rules: list[_Rules], path: str, is_dir: bool) -> bool:
    for rule in reversed(rules):  # the deepest file with an opinion decides
        rel = path[len(rule.base) :].replace(os.sep, "/")
        result = rule.spec.check_file(rel + "/" if is_dir else rel)
        if result.include is not None:
            return bool(result.include)
    return False


def ancestor_rules(root: Path, start: Path) -> list[_Rules]:
    """Rules from ``root`` down to (not including) ``start``: parents' ignore files apply."""
    rules: list[_Rules] = []
    if start == root or root not in start.parents:
        return rules
    current = root
    for part in start.relative_to(root).parts:
        loaded = _load_rules(str(current))
        if loaded is not None:
            rules.append(loaded)
        current = current / part
    return rules


def is_ignored(root: Path, path: Path, is_dir: bool) -> bool:
    """Whether ``path`` itself is ignored by the ignore files above it (up to ``root``)."""
    rules = ancestor_rules(root, path)
    return any(part in ALWAYS_SKIPPED for part in path.parts) or _ignored(rules, str(path), is_dir)


def walk(
    root: Path,
    start: Path,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    keep_file: Callable[[str], bool] | None = None,
) -> Iterator[WalkEntry]:
    """Every entry under ``start`` that is not ignored, each directory followed by its
    contents (name order). ``keep_file(rel)`` may bring back an ignored file (ripgrep's
    ``--glob`` overrides ignore files the same way)."""
    prefix = len(str(start).rstrip(os.sep)) + 1
    yield from _walk_dir(str(start), ancestor_rules(root, start), prefix, cancelled, keep_file)


def _walk_dir(
    directory: str,
    inherited: list[_Rules],
    prefix: int,
    cancelled: Callable[[], bool],
    keep_file: Callable[[str], bool] | None,
) -> Iterator[WalkEntry]:
    if cancelled():
        return
    own = _load_rules(directory)
    rules = [*inherited, own] if own is not None else inherited
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
            is_file = entry.is_file(follow_symlinks=False)
        except OSError:
            continue
        if is_dir and entry.name in ALWAYS_SKIPPED:
            continue
        rel = entry.path[prefix:].replace(os.sep, "/")
        if (
            rules
            and _ignored(rules, entry.path, is_dir)
            and (is_dir or keep_file is None or not keep_file(rel))
        ):
            continue
        yield WalkEntry(entry.path, rel, is_dir, is_link, is_file)
        if is_dir:
            yield from _walk_dir(entry.path, rules, prefix, cancelled, keep_file)
